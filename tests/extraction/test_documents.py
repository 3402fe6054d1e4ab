"""Extraction from a document's resource notes (`ora ingest`): the atomic distillations of the
issue on documents, proposed through the same gate and review as a conversation's claims, as
the user's own (never AI-derived), citing the page note's lines, recorded in its frontmatter."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.extraction import IndexEngrams, load_source, plan_extraction
from sidecar.index import open_index
from sidecar.models.embedder import Embedder
from sidecar.settings import Config
from sidecar.vault.note import read_note
from tests.notes import write_notes

from ..conftest import AppClient
from ..documents.make_pdfs import PAGES, write_paper
from .conftest import NOTES, settings

DOC = "Tidal pumping.pdf"
PAGE = "Resources/Tidal pumping/Tidal pumping - page 06.md"
LINK = "[[Resources/Tidal pumping/Tidal pumping - page 06|Tidal pumping - page 06, lines "

Ora = Callable[..., tuple[int, Any]]


def _ingested(root: Path, ora: Ora, use_settings: Callable[..., Any], *,
              private: bool = False) -> Path:
    vault = root / "vault"
    write_paper(vault / DOC)
    if private:  # the document lies in a folder `ora.yaml` makes private
        (vault / "ora.yaml").write_text(f"private:\n  - {DOC}\n", encoding="utf-8")
    use_settings(vault)
    status, done = ora("ingest", str(vault), DOC, "--apply")
    assert status == 0 and PAGE in done["written"]
    return vault


def test_a_page_note_proposes_its_claims_as_the_users_own_once(
    tmp_path: Path, ora: Ora, use_settings: Callable[..., Any],
) -> None:
    vault = _ingested(tmp_path, ora, use_settings)
    page = (vault / PAGE).read_text(encoding="utf-8").splitlines()
    status, plan = ora("extract", str(vault), "--note", PAGE)
    assert status == 0 and plan["extractor"] == "rules" and plan["note"] == PAGE
    assert plan["conversation"] is None
    texts = [p["text"] for p in plan["proposals"]]
    assert any(PAGES[5].figure in t for t in texts), texts
    assert not any(t.startswith("Source:") for t in texts)  # ingest's pointer is no claim
    for p in plan["proposals"]:
        assert p["ai_derived"] is False and p["contradicts"] == []
        src = p["source"]
        assert src["path"] == PAGE
        cited = " ".join(page[src["line_start"] - 1:src["line_end"]])
        assert p["text"].rstrip(".").split()[-1] in cited, (p["text"], cited)

    status, kept = ora("extract", str(vault), "--note", PAGE, "--accept", "all")
    assert status == 0 and len(kept["written"]) == len(texts)
    for rel in kept["written"]:
        engram = read_note(vault, rel, 1 << 20)
        assert engram.type == "engram" and "ai-derived" not in engram.tags
        assert "private" not in engram.tags
        [link] = engram.frontmatter["source_document"]
        assert link.startswith(LINK)
    record = read_note(vault, PAGE, 1 << 20).frontmatter["extracted"]
    assert sorted(record) == sorted(p["id"] for p in plan["proposals"])
    assert ora("lint", str(vault))[1]["diagnostics"] == []

    status, again = ora("extract", str(vault), "--note", PAGE)
    assert status == 0 and again["proposals"] == []
    # The record is Ora's own edit: the unchanged document is still unchanged to ingest.
    assert ora("ingest", str(vault), DOC)[1]["unchanged"] is True
    assert ora("ingest", str(vault), DOC, "--apply")[1] == {"written": [], "trashed": []}

    status, undone = ora("extract", str(vault), "--undo")
    assert status == 0 and undone["restored"] == [PAGE]
    assert sorted(undone["removed"]) == sorted(kept["written"])
    assert "extracted" not in read_note(vault, PAGE, 1 << 20).frontmatter
    assert ora("ingest", str(vault), DOC)[1]["unchanged"] is True
    assert [p["id"] for p in ora("extract", str(vault), "--note", PAGE)[1]["proposals"]] == [
        p["id"] for p in plan["proposals"]]


def test_a_private_documents_note_needs_private_mode_and_makes_private_engrams(
    tmp_path: Path, ora: Ora, use_settings: Callable[..., Any],
) -> None:
    vault = _ingested(tmp_path, ora, use_settings, private=True)
    status, public = ora("extract", str(vault), "--note", PAGE)
    assert status != 0 and public is None
    assert status == ora("extract", str(vault), "--note", "Resources/No page.md")[0]

    status, plan = ora("extract", str(vault), "--note", PAGE, "--private")
    assert status == 0 and plan["proposals"]
    assert all(p["ai_derived"] is False for p in plan["proposals"])
    status, kept = ora("extract", str(vault), "--note", PAGE, "--private", "--accept", "all")
    assert status == 0
    for rel in kept["written"]:
        assert "private" in read_note(vault, rel, 1 << 20).tags


def test_a_note_that_is_neither_chat_nor_document_names_what_can_be_extracted(
    vault: Path, capsys: pytest.CaptureFixture[str], use_settings: Callable[..., Any],
) -> None:
    from sidecar.cli import main

    use_settings(vault)
    assert main(["extract", str(vault), "--note", "Resources/Bread.md", "--json"]) == 2
    err = capsys.readouterr().err
    assert "chat notes" in err and "resource notes" in err and "source_file" in err, err


async def test_http_extract_of_a_page_note_is_the_cli_plan(
    tmp_path: Path, ora: Ora, use_settings: Callable[..., Any],
    app_client: Callable[[Config], Awaitable[AppClient]],
) -> None:
    # `ora` runs its own event loop: in a thread beside the test's
    vault = await asyncio.to_thread(_ingested, tmp_path, ora, use_settings)
    (vault / "Resources" / "Bread.md").write_text(NOTES["Resources/Bread.md"], encoding="utf-8")
    plan = (await asyncio.to_thread(ora, "extract", str(vault), "--note", PAGE))[1]
    api = await app_client(settings(vault))
    await api.reconciled()
    assert await api.call("POST", "/v1/extract", {"note": PAGE}) == (200, plan)
    status, refused = await api.call("POST", "/v1/extract", {"note": "Resources/Bread.md"})
    assert status == 400 and "resource notes" in refused["error"]["message"], refused


async def test_the_language_model_reads_a_page_note_as_document_turns(
    tmp_path: Path, embedder: Embedder, llm: Any,
) -> None:
    rel = "Resources/Field notes/Field notes - page 2.md"
    said = "Rye flour ferments faster than wheat flour."
    vault = write_notes(tmp_path / "vault", {**NOTES, rel: (
        "---\ntype: resource\nnexus: []\ntags: []\nsource_file: \"Field notes.pdf\"\n"
        "source_document:\n  - \"[[Field notes.pdf#page=2]]\"\n---\n# Field notes, page 2\n\n"
        f"Bakers keep a starter warm.\n\n{said}\n\nSource: [[Field notes.pdf#page=2]]\n")})
    llm.reply = lambda body: json.dumps({"proposals": [{"turn": 2, "text": said}]})
    config = settings(vault, llm_url=llm.url)
    with open_index(config, embedder=embedder) as index:
        index.reconcile()
        source = load_source(config, note=rel)
        assert [(t.role, t.line_start) for t in source.turns] == [("document", 11),
                                                                  ("document", 13)]
        plan = await plan_extraction(config, source, IndexEngrams(index, embedder, private=False))
    assert plan.extractor == "llm:test-model"
    [proposal] = plan.as_json()["proposals"]
    assert proposal["ai_derived"] is False and proposal["text"] == said
    assert proposal["source"] == {"path": rel, "line_start": 13, "line_end": 13}
    assert f"[turn 2] document:\n{said}" in llm.requests[0]["messages"][1]["content"]
