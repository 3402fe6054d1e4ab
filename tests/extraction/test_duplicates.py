"""The duplicate gate against the vault's engrams through a real index: it sees the engrams as
they are on disk even where the index is behind, and another subject or another number is
another claim, not a repetition."""

from __future__ import annotations

from pathlib import Path

from sidecar.extraction import IndexEngrams, load_source, plan_extraction
from sidecar.extraction.proposals import Plan
from sidecar.index import Index, open_index
from sidecar.models.embedder import Embedder
from tests.notes import write_notes

from .conftest import chat_text, settings

RYE = "Engrams/Rye flour.md"
TOMATO = "Engrams/Tomato sun.md"


def _engram(claim: str) -> str:
    return f"---\ntype: engram\nnexus: []\ntags: [atomic]\n---\n{claim}\n"


async def _plan(vault: Path, index: Index, embedder: Embedder) -> Plan:
    config = settings(vault)
    return await plan_extraction(config, load_source(config, conversation="c"),
                                 IndexEngrams(index, embedder, private=False))


async def test_an_engram_the_index_has_not_read_is_still_a_duplicate(
    tmp_path: Path, embedder: Embedder,
) -> None:
    # Before: without `ora index` first, the gate found no engram and an exact copy of one was
    # proposed (and written as `… 2.md`); an engram deleted since indexing still counted.
    claim = "Rye flour ferments faster than wheat flour."
    vault = write_notes(tmp_path / "vault", {
        RYE: _engram(claim), "Chats/Ora/c.md": chat_text("c", [("assistant", claim)])})
    with open_index(settings(vault), embedder=embedder) as index:  # never reconciled
        plan = await _plan(vault, index, embedder)
        assert plan.proposals == [] and [(d.reason, d.of) for d in plan.dropped] == [
            ("duplicate", RYE)]
        index.reconcile()
        (vault / RYE).unlink()  # gone since the index read it
        assert [p.text for p in (await _plan(vault, index, embedder)).proposals] == [claim]


async def test_a_claim_about_another_subject_or_number_is_not_a_duplicate(
    tmp_path: Path, embedder: Embedder,
) -> None:
    # Before: both were dropped as `duplicate` of the engram: the peppers by the overlap of
    # their words, the two hours by their meaning (the detector read no number in words).
    vault = write_notes(tmp_path / "vault", {
        TOMATO: _engram("Tomatoes need six hours of direct sun each day."),
        "Chats/Ora/c.md": chat_text("c", [
            ("user", "Peppers need six hours of direct sun each day. So tomatoes need six hours "
                     "of direct sun each day!"),
            ("assistant", "Tomatoes need two hours of direct sun each day.")])})
    with open_index(settings(vault), embedder=embedder) as index:
        index.reconcile()
        plan = await _plan(vault, index, embedder)
    assert {p.text: [m.path for m in p.contradicts] for p in plan.proposals} == {
        "Peppers need six hours of direct sun each day.": [],
        "Tomatoes need two hours of direct sun each day.": [TOMATO]}
    assert {d.text: (d.reason, d.of) for d in plan.dropped} == {
        "So tomatoes need six hours of direct sun each day!": ("duplicate", TOMATO)}


async def test_a_claim_with_a_replaced_word_is_proposed_however_near_its_meaning(
    tmp_path: Path, embedder: Embedder,
) -> None:
    # Before: both were dropped as `duplicate` of the engram by their cosine alone (over
    # duplicate_similarity), though each says another day or another time of day.
    sunday = "Engrams/Feeding day.md"
    vault = write_notes(tmp_path / "vault", {
        sunday: _engram("I feed my starter every Sunday morning."),
        "Chats/Ora/c.md": chat_text("c", [
            ("user", "I feed my starter every Monday morning. I feed my starter every Sunday "
                     "evening. I feed my starter every Sunday morning!")])})
    with open_index(settings(vault), embedder=embedder) as index:
        index.reconcile()
        plan = await _plan(vault, index, embedder)
    assert [p.text for p in plan.proposals] == ["I feed my starter every Monday morning.",
                                                "I feed my starter every Sunday evening."]
    assert {d.text: (d.reason, d.of) for d in plan.dropped} == {
        "I feed my starter every Sunday morning!": ("duplicate", sunday)}
