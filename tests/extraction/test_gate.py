"""The gate's rules on small conversations (no index needed: no engram is near)."""

from __future__ import annotations

from collections.abc import Sequence

from sidecar.extraction.gate import gate
from sidecar.extraction.proposals import Conversation, Match, Turn
from sidecar.extraction.rules import rule_candidates


class NoEngrams:
    """A vault without engrams."""

    def neighbours(self, texts: Sequence[str]) -> list[list[Match]]:
        return [[] for _ in texts]


def _conversation(*turns: tuple[str, str]) -> Conversation:
    return Conversation("c", "Chats/Ora/c.md", "h", [
        Turn(n, role, text, False, 10 * n, 10 * n) for n, (role, text) in enumerate(turns, 1)],
        [], False, frozenset())


def _run(*turns: tuple[str, str]) -> tuple[list[str], dict[str, str]]:
    conversation = _conversation(*turns)
    proposals, dropped = gate(conversation, rule_candidates(conversation), NoEngrams())
    return [p.text for p in proposals], {d.text: d.reason for d in dropped}


def test_a_correction_that_negates_a_claim_is_proposed_not_taken_for_a_repetition() -> None:
    # Regression: the correction shares every content word with the claim it negates, and was
    # dropped as a duplicate of it, losing the user's own claim.
    proposed, dropped = _run(
        ("assistant", "The Great Wall of China is visible from space with the naked eye."),
        ("user", "Actually, the Great Wall of China is not visible from space with the naked "
                 "eye."))
    assert proposed == ["The Great Wall of China is not visible from space with the naked eye."]
    assert dropped == {"The Great Wall of China is visible from space with the naked eye.":
                       "pushback"}


def test_a_claim_said_twice_is_proposed_once() -> None:
    proposed, dropped = _run(("assistant", "Rye bread keeps fresh longer than wheat bread."),
                             ("user", "So rye bread keeps fresh longer than wheat bread!"))
    assert proposed == ["Rye bread keeps fresh longer than wheat bread."]
    assert dropped == {"So rye bread keeps fresh longer than wheat bread!": "duplicate"}


def test_a_pushback_cue_drops_the_assistant_turn_before_it_only() -> None:
    proposed, dropped = _run(
        ("assistant", "Rye flour ferments faster than wheat flour."),
        ("user", "What about spelt?"),
        ("assistant", "Spelt flour ferments slower than rye flour."),
        ("user", "I don't think so."))
    assert proposed == ["Rye flour ferments faster than wheat flour."]
    assert dropped["Spelt flour ferments slower than rye flour."] == "pushback"
    assert dropped["I don't think so."] == dropped["What about spelt?"] == "not-a-claim"


def test_subtypes_follow_the_claims_wording() -> None:
    conversation = _conversation(
        ("user", "A levain is a portion of starter built up for one bake."),
        ("user", "Bread goes stale because its starch recrystallises."),
        ("user", "You should always preheat the oven for an hour."),
        ("user", "A Dutch oven is better than a baking stone for crusty bread."),
        ("user", "Rye flour holds more water than wheat flour."))
    proposals, _ = gate(conversation, rule_candidates(conversation), NoEngrams())
    assert [p.subtype for p in proposals] == [
        "definition", "causal_claim", "process_principle", "evaluative", "fact"]
