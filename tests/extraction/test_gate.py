"""The gate's rules on small conversations (no index needed: no engram is near), and what a
conversation's proposals take from its chat note."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from sidecar.extraction import load_source
from sidecar.extraction.gate import gate
from sidecar.extraction.proposals import Candidate, Match, Source, Turn
from sidecar.extraction.rules import rule_candidates
from tests.notes import write_notes

from .conftest import chat_text, settings


class NoEngrams:
    """A vault without engrams."""

    def neighbours(self, texts: Sequence[str]) -> list[list[Match]]:
        return [[] for _ in texts]


def _conversation(*turns: tuple[str, str]) -> Source:
    return Source("c", "Chats/Ora/c.md", "h", [
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


def test_an_answers_citation_markers_are_not_part_of_its_claims() -> None:
    proposed, _ = _run(("assistant", "Rye flour ferments faster than wheat flour [1]. Salt "
                                     "slows the fermentation of yeast [2, 3]."))
    assert proposed == ["Rye flour ferments faster than wheat flour.",
                        "Salt slows the fermentation of yeast."]


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


def test_the_nexus_is_the_chat_notes_else_its_cluster_when_that_is_a_matrix(
    tmp_path: Path,
) -> None:
    vault = write_notes(tmp_path / "vault", {
        "Projects/Bakery.md": "---\ntype: matrix\nnexus: []\ntags: []\n---\n# Bakery\n",
        "Resources/Sourdough.md": "---\ntype: resource\nnexus: []\ntags: []\n---\n# Sourdough\n"})
    turns = [("user", "I bake my bread in a cast iron pot.")]
    chats = vault / "Chats" / "Ora"
    chats.mkdir(parents=True)
    base = chat_text("a", turns)
    (chats / "a.md").write_text(base.replace("nexus: []", 'nexus: ["[[Garden]]"]'), "utf-8")
    (chats / "b.md").write_text(chat_text("b", turns).replace(
        "tags: []", "tags: []\ncluster: Bakery"), "utf-8")
    (chats / "c.md").write_text(chat_text("c", turns).replace(
        "tags: []", "tags: []\ncluster: Sourdough"), "utf-8")
    config = settings(vault)
    assert load_source(config, conversation="a").nexus == ["[[Garden]]"]
    assert load_source(config, conversation="b").nexus == ["[[Bakery]]"]
    assert load_source(config, conversation="c").nexus == []


def test_a_public_engrams_nexus_never_names_a_private_matrix(tmp_path: Path) -> None:
    # Before: a public chat note's cluster naming a matrix note in a private folder put that
    # note's name into the public engrams' nexus.
    vault = write_notes(tmp_path / "vault", {
        "ora.yaml": "private:\n  - Health/\n",
        "Health/Clinic.md": "---\ntype: matrix\nnexus: []\ntags: []\n---\n# Clinic\n"})
    chats = vault / "Chats" / "Ora"
    chats.mkdir(parents=True)
    (chats / "a.md").write_text(chat_text("a", [("user", "Sleep comes in cycles.")]).replace(
        "tags: []", "tags: []\ncluster: Clinic"), "utf-8")
    assert load_source(settings(vault), conversation="a").nexus == []


def test_a_claim_about_another_subject_or_number_said_in_the_conversation_is_no_repetition(
) -> None:
    # Before: the second of each pair was dropped as a `duplicate` of the first.
    proposed, dropped = _run(
        ("user", "Tomatoes need six hours of direct sun each day."),
        ("assistant", "Peppers need six hours of direct sun each day. Basil needs twenty-five "
                      "minutes of watering each week."),
        ("user", "Basil needs 40 minutes of watering each week."))
    assert proposed == ["Tomatoes need six hours of direct sun each day.",
                        "Peppers need six hours of direct sun each day.",
                        "Basil needs 40 minutes of watering each week."]
    # and a number in words is a number: the user's other number rejects the assistant's
    assert dropped == {"Basil needs twenty-five minutes of watering each week.": "pushback"}


def test_the_users_own_restatement_of_a_claim_is_proposed_as_theirs() -> None:
    # Before: the user's copy was left out as a repetition and the assistant's dropped as
    # pushback: the claim the user made was in neither the proposals nor the drops.
    conversation = _conversation(
        ("user", "Tell me about baking steam and dough."),
        ("assistant", "Autolyse improves gluten development in dough. Steam helps the crust "
                      "expand in the oven."),
        ("user", "I don't think so about the steam. Autolyse improves gluten development in "
                 "dough."))
    proposals, dropped = gate(conversation, rule_candidates(conversation), NoEngrams())
    assert [(p.text, p.ai_derived, p.turn.n) for p in proposals] == [
        ("Autolyse improves gluten development in dough.", False, 3)]
    assert {d.text: d.reason for d in dropped}["Steam helps the crust expand in the oven."] == (
        "pushback")
    # in other words, too, the restated claim is not rejected by the cue
    proposed, _ = _run(
        ("assistant", "Autolyse improves gluten development in dough. Steam helps the crust "
                      "expand in the oven."),
        ("user", "I don't think so about the steam. So autolyse improves gluten development "
                 "in dough!"))
    assert proposed == ["Autolyse improves gluten development in dough."]


def test_a_pushback_cue_rejects_the_turn_before_while_the_user_corrects_an_older_one() -> None:
    # Before: the correction of the older turn stopped the cue from rejecting the turn before.
    proposed, dropped = _run(
        ("user", "Tell me about cold proofing dough."),
        ("assistant", "Cold proofing overnight develops a less sour flavour in bread."),
        ("user", "Tell me about yeast temperature."),
        ("assistant", "Yeast dies at sixty degrees Celsius in dough."),
        ("user", "That's wrong. Cold proofing overnight develops a more sour flavour in "
                 "loaves."))
    assert proposed == ["Cold proofing overnight develops a more sour flavour in loaves."]
    assert dropped["Yeast dies at sixty degrees Celsius in dough."] == "pushback"
    assert dropped["Cold proofing overnight develops a less sour flavour in bread."] == (
        "pushback")


def test_a_rejection_chatter_and_a_request_in_any_language_are_not_claims() -> None:
    # Before: each of the first five was proposed (the cue after "Hmm," was not seen as one,
    # the chatter was a `fact`, requests were known in English only).
    proposed, dropped = _run(
        ("user", "Parle-moi de la levure du pain. Erzähl mir etwas über Hefe im Brot."),
        ("assistant", "Great question, let me explain further. Sure, I can help. A banneton "
                      "should be dusted with rice flour."),
        ("user", "Hmm, I don't think so about the banneton. Well, that's not right about the "
                 "proofing basket. In summer, dough rises much faster."),
        ("assistant", "Honey kills wild yeast."),
        ("user", "Oh, that's wrong, honey does not kill wild yeast. Believe me, rye flour "
                 "ferments faster than wheat."))
    assert proposed == ["In summer, dough rises much faster.", "Honey does not kill wild yeast.",
                        "Believe me, rye flour ferments faster than wheat."]
    for text in ("Parle-moi de la levure du pain.", "Erzähl mir etwas über Hefe im Brot.",
                 "Great question, let me explain further.", "Sure, I can help.",
                 "Hmm, I don't think so about the banneton.",
                 "Well, that's not right about the proofing basket."):
        assert dropped[text] == "not-a-claim", text
    assert dropped["A banneton should be dusted with rice flour."] == "pushback"
    assert dropped["Honey kills wild yeast."] == "pushback"


class NearEngram:
    """A vault whose one engram is very near every claim (a cosine over duplicate_similarity)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def neighbours(self, texts: Sequence[str]) -> list[list[Match]]:
        return [[Match("Engrams/E.md", self.text, 5, 5, 0.97, False)] for _ in texts]


@pytest.mark.parametrize(("engram", "claim"), [
    ("Я кормлю закваску каждое воскресенье утром.", "Я кормлю закваску каждый понедельник утром."),
    ("我每天早上喝绿茶。", "我每天晚上喝红茶。"),
    ("Το προζύμι μου τρώει κάθε Κυριακή πρωί.", "Το προζύμι μου τρώει κάθε Δευτέρα πρωί."),
])
def test_a_claim_in_any_script_with_a_replaced_word_is_not_a_duplicate(
        engram: str, claim: str) -> None:
    # Before: the words compared were ASCII only, so such a claim had none, was "contained" in
    # any other, and its cosine alone dropped it as a duplicate of another day's claim.
    conversation = _conversation(("user", claim))
    candidates = [Candidate(claim, conversation.turns[0])]
    proposals, dropped = gate(conversation, candidates, NearEngram(engram))
    assert ([p.text for p in proposals], dropped) == ([claim], [])
    proposals, dropped = gate(conversation, candidates, NearEngram(claim))
    assert [(d.reason, d.of) for d in dropped] == [("duplicate", "Engrams/E.md")]


def test_a_chinese_or_japanese_sentence_is_a_claim_by_its_letters() -> None:
    # Before: a run without spaces was one word, so every such sentence was too short to be a
    # claim and a Chinese or Japanese conversation proposed nothing.
    proposed, dropped = _run(("user", "我每天晚上喝红茶。東京は日本の首都です。猫很可爱。"))
    assert proposed == ["我每天晚上喝红茶。", "東京は日本の首都です。"]
    assert dropped == {"猫很可爱。": "not-a-claim"}  # as short as "Cats are cute."
