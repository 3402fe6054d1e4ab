"""An ingested PDF moved into a private folder while the watcher runs: its page notes are filed
private in the index, not only hidden at query time until a restart."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sidecar.documents.ingest import apply_ingest, plan_ingest

from ..documents.make_pdfs import one_page_pdf
from .conftest import OpenIndex, write
from .test_watcher import _watching

DOC = "Papers/Tides.pdf"
NOTE = "Resources/Tides/Tides - page 1.md"


async def test_the_page_notes_of_a_pdf_moved_into_a_private_folder_are_filed_private(
    vault: Path, open_idx: OpenIndex,
) -> None:
    write(vault, "ora.yaml", "private:\n  - Health/\n")
    write(vault, DOC, one_page_pdf("Tidal pumping drives saline intrusion in the aquifer."))
    apply_ingest(vault, plan_ingest(vault, DOC, data=None), data=None)
    index = open_idx(vault, debounce_ms=100)
    index.reconcile()
    assert index.ledger.rows(index.namespace, [NOTE])[NOTE].private is False
    async with _watching(index) as changes:
        (vault / "Health").mkdir()
        (vault / DOC).rename(vault / "Health/Tides.pdf")
        # Before: the PDF's own event planned the PDF, never its notes.
        while not index.ledger.rows(index.namespace, [NOTE])[NOTE].private:
            await asyncio.wait_for(changes.get(), timeout=20)
    assert index.bm25_search("tidal pumping intrusion", 10, private=False) == []
