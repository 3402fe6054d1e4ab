"""Search ranks on the SQLite facts of its candidates and reads Chroma records only for the
results it shows; what it returns is what ranking on every candidate's record returns."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from sidecar.index.records import ChunkFacts
from sidecar.index.scope import NoteFilter

from .conftest import IndexVault, NoteSpec, SearchVault

QUERY = "spaced repetition review intervals memory"
TEXT = "Spaced repetition: review at growing intervals so memory lasts ({n})."
LONG = "\n\n".join(f"## Part {n}\n\nSpaced repetition review intervals memory." for n in range(6))

OPTIONS: list[dict[str, Any]] = [
    {"k": 5},
    {"k": 50},
    {"k": 50, "private": True},
    {"k": 50, "include_archived": True},
    {"k": 3, "filters": NoteFilter.make(types=["chat", "web"])},
    {"k": 50, "private": True, "filters": NoteFilter.make(tags=["incubating"])},
    {"k": 50, "private": True, "collapse": False},
]


def _vault(index_vault: IndexVault) -> SearchVault:
    """Every type that ranks, clusters that decay, status tags, and a note of six chunks of the
    same text (equal scores, so the line each starts at decides their order)."""
    notes = [NoteSpec("Engrams/Long.md", "engram", LONG)]
    for n in range(4):
        notes += [
            NoteSpec(f"Engrams/E{n}.md", "engram", TEXT.format(n=n), tags=["incubating"][: n % 2]),
            NoteSpec(f"Resources/R{n}.md", "resource", TEXT.format(n=n),
                     tags=["archived"] if n == 1 else []),
            NoteSpec(f"Chats/C{n}.md", "chat", TEXT.format(n=n), tags=["private"][: n % 2],
                     extra={"cluster": "review", "date created": f"2025-0{n + 1}-01"}),
            NoteSpec(f"Web/W{n}.md", "web", TEXT.format(n=n),
                     extra={"cluster": "clips", "date created": f"2024-0{n + 1}-01"}),
        ]
    return index_vault(notes)


async def _on_records_only(
    vault: SearchVault, monkeypatch: pytest.MonkeyPatch, **options: Any
) -> dict[str, Any]:
    """The search as it ranks without facts: every candidate's record read from Chroma."""
    with monkeypatch.context() as patch:
        patch.setattr(vault.index, "chunk_facts", lambda ids, **_: {})
        return await vault.search(QUERY, rerank=False, **options)


async def test_ranking_on_facts_returns_what_ranking_on_records_returns(
    index_vault: IndexVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _vault(index_vault)
    for options in OPTIONS:
        found = await vault.search(QUERY, rerank=False, **options)
        assert found["results"], options
        assert found == await _on_records_only(vault, monkeypatch, **options), options
    decayed = await vault.search(QUERY, k=50, rerank=False, collapse=False)
    assert any(r["why"]["newer_in_cluster"] for r in decayed["results"])


async def test_only_the_shown_results_are_read_from_chroma(
    index_vault: IndexVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _vault(index_vault)
    read: list[str] = []
    get_chunks = vault.index.get_chunks

    def counted(ids: Sequence[str], **scope: Any) -> Any:
        read.extend(ids)
        return get_chunks(ids, **scope)

    monkeypatch.setattr(vault.index, "get_chunks", counted)
    found = await vault.search(QUERY, k=2, rerank=False)
    shown_reads = len(read)
    assert len(found["results"]) == 2
    # The two shown, and any chunk tied with the second (only its line can order them).
    tied = [r for r in (await vault.search(QUERY, k=50, rerank=False))["results"]
            if r["score"] == found["results"][1]["score"]]
    assert 2 <= shown_reads <= 1 + len(tied)


async def test_facts_that_admit_more_than_the_records_are_not_trusted(
    index_vault: IndexVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Facts read while a sync changes the notes: web clips claim to be engrams (weighed higher),
    # archived and private notes to be neither. The results must be those ranked on the records.
    vault = _vault(index_vault)
    chunk_facts = vault.index.chunk_facts

    def stale(ids: Sequence[str], **scope: Any) -> Mapping[str, ChunkFacts]:
        return {cid: dataclasses.replace(
            f, type="engram" if f.type == "web" else f.type, private=False,
            tags=tuple(t for t in f.tags if t not in ("archived", "private")))
            for cid, f in chunk_facts(ids, **scope).items()}

    options = [o for o in OPTIONS if "types" not in str(o.get("filters"))]
    options += [{"k": k} for k in (12, 16)]
    expected = [await _on_records_only(vault, monkeypatch, **o) for o in options]
    monkeypatch.setattr(vault.index, "chunk_facts", stale)
    for option, wanted in zip(options, expected, strict=True):
        found = await vault.search(QUERY, rerank=False, **option)
        assert found == wanted, option
        if not option.get("private"):
            assert not any(r["private"] for r in found["results"])
