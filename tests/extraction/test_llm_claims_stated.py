"""A model's claim is its turn's only where the turn states it: what a user only asks ("Is it
true that…?") or denies ("I never said that…") is not the user's fact, and a run of the turn's
words inside such a sentence is not the user's own wording."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from sidecar.extraction import IndexEngrams, load_source, plan_extraction
from sidecar.extraction.gate import gate
from sidecar.extraction.llm import parse_answer
from sidecar.extraction.proposals import Match, Source, Turn
from sidecar.index import Index, open_index
from sidecar.models.embedder import Embedder

from .conftest import chat_text, chat_vault, settings

ASKED = "Is it true that rye flour ferments faster than white flour?"
DENIED = "I never said that whole wheat bread is healthier than white bread."
TURNS = [("user", ASKED),
         ("assistant", "Rye flour holds more enzymes than white flour, so it ferments faster."),
         ("user", DENIED)]
NOTE = "Chats/Ora/neg.md"


def _answer(*proposals: dict[str, Any]) -> str:
    return json.dumps({"proposals": list(proposals)})


class _NoEngrams:
    def neighbours(self, texts: Sequence[str]) -> list[list[Match]]:
        return [[] for _ in texts]


def _source(*turns: tuple[str, str]) -> Source:
    return Source("neg", NOTE, "h", [Turn(n, role, text, False, n, n)
                                     for n, (role, text) in enumerate(turns, 1)],
                  [], False, frozenset())


@pytest.fixture
def indexed(tmp_path: Path, embedder: Embedder) -> Iterator[tuple[Path, Index]]:
    vault = chat_vault(tmp_path / "vault", NOTE, chat_text("neg", TURNS))
    index = open_index(settings(vault), embedder=embedder)
    index.reconcile()
    yield vault, index
    index.close()


async def test_what_the_user_only_asked_or_denied_is_not_proposed_as_their_claim(
    indexed: tuple[Path, Index], embedder: Embedder, llm: Any,
) -> None:
    # Before: both were proposed as the user's own facts (ai_derived false): the text was
    # grounded by word overlap alone, and its words were a run of the user's turn.
    vault, index = indexed
    llm.reply = lambda body: _answer(
        {"turn": 1, "text": "Rye flour ferments faster than white flour.",
         "title": "Rye ferments faster"},
        {"turn": 3, "text": "Whole wheat bread is healthier than white bread.",
         "title": "Whole wheat healthier"})
    config = settings(vault, llm_url=llm.url)
    plan = await plan_extraction(config, load_source(config, conversation="neg"),
                                 IndexEngrams(index, embedder, private=False))
    assert plan.extractor == "llm:test-model" and plan.fallback is None
    assert plan.proposals == []
    assert {d.text: d.reason for d in plan.dropped} == {
        "Rye flour ferments faster than white flour.": "not-a-claim",
        "Whole wheat bread is healthier than white bread.": "not-a-claim"}


def test_a_claim_the_turn_states_besides_a_question_or_a_denial_is_still_the_users() -> None:
    source = _source(
        ("user", "I never said that rye bread is sour. Whole wheat bread is healthier than "
                 "white bread."),
        ("user", "Is spelt flour good for starters? I feed my starter spelt flour every "
                 "morning."))
    candidates = parse_answer(_answer(
        {"turn": 1, "text": "Whole wheat bread is healthier than white bread."},
        {"turn": 2, "text": "I feed my starter spelt flour every morning."}), source)
    proposals, dropped = gate(source, candidates, _NoEngrams())
    assert {p.text: p.ai_derived for p in proposals} == {
        "Whole wheat bread is healthier than white bread.": False,
        "I feed my starter spelt flour every morning.": False}
    assert dropped == []


def test_a_run_of_words_inside_a_users_question_is_not_their_own_wording() -> None:
    # Before: the claim was a run of the question's words, so it was taken for the user's own
    # claim (ai_derived false) though the user only asked it; what they stated grounds it, in
    # other words: the model's wording, AI-derived.
    source = _source(("user", "Does it matter that rye flour ferments faster than white flour? "
                              "I read that rye flour ferments quickly and white flour slowly."))
    candidates = parse_answer(_answer(
        {"turn": 1, "text": "Rye flour ferments faster than white flour."}), source)
    proposals, _ = gate(source, candidates, _NoEngrams())
    assert [(p.text, p.ai_derived) for p in proposals] == [
        ("Rye flour ferments faster than white flour.", True)]
