"""The contradiction scan reads a document's page notes (`ora ingest`) for the page's text only.

The lines ingest writes around a page's text, the `Source: [[report.pdf#page=2]]` line and the
heading "Report, page 2" (the note's title), are the same on every page but for the number: the
scan paired every page note with every other as a contradiction (a user test found it)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sidecar.cleaning.rules import RulesJudge
from sidecar.cleaning.scan import scan
from sidecar.cleaning.store import Queue
from sidecar.documents.ingest import apply_ingest, plan_ingest
from sidecar.models.embedder import Embedder
from sidecar.settings import make_config

from ..documents.make_pdfs import pages_pdf

PAGES = ["The river carries sediment downstream to the delta.",
         "Forests store carbon in their soils for centuries.",
         "Glaciers retreat in warm summers and advance in cold ones."]


def test_page_notes_are_not_paired_by_their_source_lines_or_page_titles(
    tmp_path: Path, embedder: Embedder,
) -> None:
    vault = tmp_path / "vault"
    (vault / "Papers").mkdir(parents=True)
    (vault / "Papers/report.pdf").write_bytes(pages_pdf(PAGES, title="Annual field report"))
    (vault / "Papers/Invoice #12.pdf").write_bytes(pages_pdf(PAGES[:2]))  # a Markdown link
    for document in ("Papers/report.pdf", "Papers/Invoice #12.pdf"):
        assert apply_ingest(vault, plan_ingest(vault, document, data=None), data=None)["written"]
    config = make_config(vault, tmp_path / "data")
    queue = Queue(config.data)
    try:
        asyncio.run(scan(config, queue, embedder, RulesJudge()))
        assert queue.pairs(private=True) == []
        states = queue.full_states(queue.note_states())
        claims = [text for state in states.values() for text, _, _ in state.claims]
        assert sorted(claims) == sorted(PAGES + PAGES[:2])  # the pages' text, and only it
        # the claims keep the lines of the file
        page2 = "Resources/report/report - page 2.md"
        lines = (vault / page2).read_text(encoding="utf-8").splitlines()
        ((text, first, _),) = states[page2].claims
        assert lines[first - 1] == text
    finally:
        queue.close()
