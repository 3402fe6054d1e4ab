"""`ora ingest`: the paper as resource notes with every `source_*` property, lint-clean,
idempotent, updated in place when the document changes, undone on request, and found by search
instead of the document."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main
from sidecar.schema import get_schema
from sidecar.vault.note import read_note

from .conftest import cli
from .make_pdfs import PAGES, one_page_pdf, paper_bytes, write_paper

DOC = "Tidal pumping.pdf"
FOLDER = "Resources/Tidal pumping"




def _paths(found: dict[str, Any]) -> list[str]:
    return [r["path"] for r in found["results"]]


def test_ingest_writes_clean_resource_notes_once_and_search_cites_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    vault = tmp_path / "vault"
    write_paper(vault / DOC)
    data = str(tmp_path / "data")
    cli(capsys, "index", str(vault), "--data", data)
    before = cli(capsys, "search", str(vault), "salinity wedge chloride", "--data", data)
    assert _paths(before)[0] == DOC

    plan = cli(capsys, "ingest", str(vault), DOC, "--data", data)
    assert plan["document"] == DOC and plan["unchanged"] is False
    assert len(plan["notes"]) == 14 and not (vault / "Resources").exists()  # a dry run
    assert plan["notes"][5] == {"path": f"{FOLDER}/Tidal pumping - page 06.md",
                                "page_start": 6, "page_end": 6}

    written = cli(capsys, "ingest", str(vault), DOC, "--apply", "--data", data)["written"]
    assert written == [n["path"] for n in plan["notes"]]
    assert (vault / DOC).read_bytes() == paper_bytes()  # the document stays, untouched
    note = read_note(vault, f"{FOLDER}/Tidal pumping - page 06.md", 1 << 20)
    fm = note.frontmatter
    assert fm["type"] == "resource"
    assert set(get_schema().source_properties) <= set(fm)
    assert (fm["source_file"], fm["source_format"], fm["source_path"]) == (DOC, "pdf", DOC)
    assert (fm["chunk_index"], fm["total_chunks"]) == (5, 14)
    assert fm["source_document"] == [f"[[{DOC}#page=6]]"]
    assert PAGES[5].figure in note.body
    assert cli(capsys, "lint", str(vault))["diagnostics"] == []

    nothing = {"written": [], "trashed": []}
    assert cli(capsys, "ingest", str(vault), DOC, "--apply", "--data", data) == nothing
    assert cli(capsys, "ingest", str(vault), DOC, "--data", data)["unchanged"] is True

    cli(capsys, "index", str(vault), "--data", data)
    for query in ("salinity wedge chloride", "finite-element mesh", "storm surge January"):
        found = _paths(cli(capsys, "search", str(vault), query, "--data", data))
        assert DOC not in found and found[0].startswith(f"{FOLDER}/"), found
    # Deleting the index loses nothing: the manifest lives in the vault.
    rebuilt = cli(capsys, "index", str(vault), "--data", data, "--rebuild")
    assert rebuilt["documents"] == 1 and rebuilt["files"] == 15
    found = _paths(cli(capsys, "search", str(vault), "salinity wedge chloride", "--data", data))
    assert found[0] == f"{FOLDER}/Tidal pumping - page 06.md" and DOC not in found


def test_a_changed_document_updates_its_notes_in_place_and_undo_restores_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    vault = tmp_path / "vault"
    write_paper(vault / DOC)
    data = str(tmp_path / "data")
    first = cli(capsys, "ingest", str(vault), DOC, "--apply", "--data", data)["written"]
    page6 = vault / FOLDER / "Tidal pumping - page 06.md"
    old_text = page6.read_text(encoding="utf-8")
    revised = list(PAGES)
    revised[5] = dataclasses.replace(PAGES[5], figure="Figure 4: The wedge after dredging.")
    (vault / DOC).write_bytes(paper_bytes(tuple(revised[:-1])))  # and the last page is gone
    plan = cli(capsys, "ingest", str(vault), DOC, "--data", data)
    assert plan["unchanged"] is False and len(plan["notes"]) == 13
    written = cli(capsys, "ingest", str(vault), DOC, "--apply", "--data", data)["written"]
    assert f"{FOLDER}/Tidal pumping - page 06.md" in written
    assert "after dredging" in page6.read_text(encoding="utf-8")
    assert not (vault / FOLDER / "Tidal pumping - page 14.md").exists()
    assert cli(capsys, "lint", str(vault))["diagnostics"] == []

    undone = cli(capsys, "ingest", str(vault), "--undo", "--data", data)
    assert f"{FOLDER}/Tidal pumping - page 14.md" in undone["undone"] and not undone["refused"]
    assert page6.read_text(encoding="utf-8") == old_text
    assert (vault / FOLDER / "Tidal pumping - page 14.md").exists()
    undone = cli(capsys, "ingest", str(vault), "--undo", "--data", data)
    assert sorted(undone["undone"]) == sorted(first)
    assert not page6.exists() and not (vault / FOLDER).exists()  # nor the folder made for them


def test_a_note_edited_since_ingest_is_never_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    vault = tmp_path / "vault"
    write_paper(vault / DOC)
    cli(capsys, "ingest", str(vault), DOC, "--apply")
    page6 = vault / FOLDER / "Tidal pumping - page 06.md"
    page6.write_text(page6.read_text(encoding="utf-8") + "\nMy own remark.\n", encoding="utf-8")
    revised = list(PAGES)
    revised[5] = dataclasses.replace(PAGES[5], figure="Figure 4: Revised.")
    (vault / DOC).write_bytes(paper_bytes(tuple(revised)))
    assert main(["ingest", str(vault), DOC, "--apply", "--json"]) == 2
    assert "edited since ingest wrote it" in capsys.readouterr().err
    assert "My own remark." in page6.read_text(encoding="utf-8")


def test_a_name_no_file_system_holds_is_not_found(tmp_path: Path) -> None:
    from sidecar.documents.ingest import plan_ingest
    from sidecar.errors import NotFound

    for name in ("x" * 300 + ".pdf", "a\x00.pdf"):
        with pytest.raises(NotFound):
            plan_ingest(tmp_path, name, data=None)


def test_a_documents_templater_command_and_query_are_written_inert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    # Before: the page's `<%* … %>` went live into the new note, which Templater runs on a new
    # file ("trigger on new file creation"); a title with a line break split the heading.
    from sidecar.vault.inert import inert_mark

    vault = tmp_path / "vault"
    vault.mkdir()
    body = "Invoice total 120 EUR.\n<%* app.vault.delete() %>\n```dataviewjs\ndv.pages()\n```"
    (vault / "invoice.pdf").write_bytes(one_page_pdf(body, title="Invoice\n<% tp.file.title %>"))
    (written,) = cli(capsys, "ingest", str(vault), "invoice.pdf", "--apply")["written"]
    text = (vault / written).read_text(encoding="utf-8")
    assert "<%" not in text and "```dataviewjs" not in text
    shown = text.replace(inert_mark(), "")
    assert "# Invoice <% tp.file.title %>, page 1\n" in shown
    assert "<%* app.vault.delete() %>" in shown
    assert "```text dataviewjs" in text
