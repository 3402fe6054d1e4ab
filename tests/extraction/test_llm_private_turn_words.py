"""A model that read a private turn may write its words into a claim it says another turn made:
such a claim is private, so its engram is too (docs/extraction.md Privacy)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sidecar.extraction.accept import engram_text
from sidecar.extraction.gate import gate
from sidecar.extraction.llm import parse_answer
from sidecar.extraction.proposals import Match, Proposal, Source, Turn

NOTE = "Chats/Ora/mixed.md"
PUBLIC = "Espresso extraction takes about twenty five seconds."
SECRET = "My bank pin is zanzibarpin and I keep it in my wallet."


class _NoEngrams:
    def neighbours(self, texts: Sequence[str]) -> list[list[Match]]:
        return [[] for _ in texts]


def _mixed() -> Source:
    """A public chat note with a private turn between two public ones, read in private mode."""
    turns = [Turn(1, "user", PUBLIC, False, 10, 10), Turn(2, "user", SECRET, True, 12, 12),
             Turn(3, "assistant", "Grind finer if the shot runs fast.", False, 14, 14)]
    return Source("mixed", NOTE, "h", turns, [], False, frozenset())


def _proposals(*items: dict[str, Any]) -> dict[str, Proposal]:
    source = _mixed()
    proposals, _ = gate(source, parse_answer(json.dumps({"proposals": list(items)}), source),
                        _NoEngrams())
    return {p.text: p for p in proposals}


def test_a_claim_of_a_public_turn_holding_a_private_turns_words_is_private() -> None:
    # Before: private followed the turn the model named alone, and 60% grounding in it let the
    # private turn's pin into a public engram.
    merged = "Espresso extraction takes about twenty five seconds with pin zanzibarpin."
    proposals = _proposals({"turn": 1, "text": merged,
                            "title": "Espresso extraction takes twenty five seconds"})
    assert proposals[merged].private
    assert "  - private" in engram_text(proposals[merged], "2026-12-05")


def test_a_public_turns_claim_in_a_models_own_words_is_private_when_it_read_a_private_turn(
) -> None:
    # A paraphrase can carry the private turn in words no grounding check tells apart.
    reworded = "Pulling an espresso shot takes about twenty five seconds."
    assert _proposals({"turn": 1, "text": reworded})[reworded].private


def test_a_public_turns_own_words_stay_public_and_a_title_from_a_private_turn_is_not_kept(
) -> None:
    proposals = _proposals({"turn": 1, "text": PUBLIC,
                            "title": "Espresso extraction zanzibarpin twenty five seconds"},
                           {"turn": 3, "text": "Grind finer if the shot runs fast.",
                            "title": "Grind finer if the shot runs fast"})
    own = proposals[PUBLIC]
    assert not own.private and "zanzibarpin" not in own.title.casefold()
    assert "  - private" not in engram_text(own, "2026-12-05")
    # a title of the turn's own words is kept
    assert proposals["Grind finer if the shot runs fast."].title == (
        "Grind finer if the shot runs fast")


def test_a_private_turns_claim_is_private_and_no_private_turn_read_changes_nothing() -> None:
    assert _proposals({"turn": 2, "text": SECRET})[SECRET].private
    public = Source("mixed", NOTE, "h", [Turn(1, "user", PUBLIC, False, 10, 10)], [], False,
                    frozenset())
    reworded = "Pulling an espresso shot takes about twenty five seconds."
    candidates = parse_answer(json.dumps({"proposals": [
        {"turn": 1, "text": reworded, "title": "Espresso shots take twenty five seconds"}]}),
        public)
    (p,), _ = gate(public, candidates, _NoEngrams())
    assert not p.private and p.title == "Espresso shots take twenty five seconds"
