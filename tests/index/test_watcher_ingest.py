"""A watching writer follows `ora ingest` run by another process (the CLI beside `ora watch`
or the server): the document leaves search as its notes come in, and comes back when the
ingest is undone. Before, the watcher saw the notes but not the manifest (a file in the
`.ora-journal/` dot-folder), so every passage was found twice until a restart (a user test)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from sidecar.documents.ingest import apply_ingest, plan_ingest
from sidecar.documents.ingest_undo import undo_ingest
from sidecar.index import Index

from ..documents.make_pdfs import one_page_pdf
from .conftest import OpenIndex, write
from .test_watcher import _watching

DOC = "Papers/Tides.pdf"
NOTE = "Resources/Tides/Tides - page 1.md"


def _paths(index: Index, query: str) -> set[str]:
    hits = index.bm25_search(query, 10, private=True)
    return {r.path for r in index.get_chunks([h[0] for h in hits], private=True).values()}


async def _until(index: Index, changes: asyncio.Queue[dict[str, Any]], want: set[str]) -> None:
    while _paths(index, "tidal pumping intrusion") != want:
        await asyncio.wait_for(changes.get(), timeout=20)


async def test_the_watcher_drops_a_document_ingested_elsewhere_and_takes_it_back_on_undo(
    vault: Path, open_idx: OpenIndex,
) -> None:
    write(vault, DOC, one_page_pdf("Tidal pumping drives saline intrusion in the aquifer."))
    index = open_idx(vault, debounce_ms=100)
    index.reconcile()
    assert _paths(index, "tidal pumping intrusion") == {DOC}
    async with _watching(index) as changes:
        await asyncio.to_thread(
            lambda: apply_ingest(vault, plan_ingest(vault, DOC, data=None), data=None))
        await _until(index, changes, {NOTE})
        await asyncio.to_thread(lambda: undo_ingest(vault, data=None))
        await _until(index, changes, {DOC})


async def test_the_watcher_takes_a_document_back_when_its_notes_are_all_deleted(
    vault: Path, open_idx: OpenIndex,
) -> None:
    write(vault, DOC, one_page_pdf("Tidal pumping drives saline intrusion in the aquifer."))
    index = open_idx(vault, debounce_ms=100)
    index.reconcile()
    async with _watching(index) as changes:
        await asyncio.to_thread(
            lambda: apply_ingest(vault, plan_ingest(vault, DOC, data=None), data=None))
        await _until(index, changes, {NOTE})
        (vault / NOTE).unlink()
        await _until(index, changes, {DOC})


async def test_the_watcher_takes_a_renamed_document_back_at_its_new_path_on_undo(
    vault: Path, open_idx: OpenIndex,
) -> None:
    write(vault, DOC, one_page_pdf("Tidal pumping drives saline intrusion in the aquifer."))
    index = open_idx(vault, debounce_ms=100)
    index.reconcile()
    renamed = "Papers/Renamed.pdf"
    async with _watching(index) as changes:
        await asyncio.to_thread(
            lambda: apply_ingest(vault, plan_ingest(vault, DOC, data=None), data=None))
        await _until(index, changes, {NOTE})
        (vault / DOC).rename(vault / renamed)
        await _until_indexed(index, changes, renamed)
        assert _paths(index, "tidal pumping intrusion") == {NOTE}
        await asyncio.to_thread(lambda: undo_ingest(vault, data=None))
        await _until(index, changes, {renamed})


async def _until_indexed(index: Index, changes: asyncio.Queue[dict[str, Any]], rel: str) -> None:
    """Until the index holds a row for `rel` (a document kept without chunks, say)."""
    while rel not in index.ledger.paths(index.namespace):
        await asyncio.wait_for(changes.get(), timeout=20)
