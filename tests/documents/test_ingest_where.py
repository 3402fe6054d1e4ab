"""Which document `ora ingest` reads, and where its notes may go: a name typed composed for a
document saved decomposed, a resource folder the index never reads, a name holding a line
break. Each was found by a user test."""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

import pytest

from sidecar.cli import main
from sidecar.documents.ingest import apply_ingest, plan_ingest
from sidecar.documents.manifest import read_manifest
from sidecar.errors import BadRequest

from .make_pdfs import one_page_pdf


def test_a_document_saved_decomposed_is_ingested_by_its_composed_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    # Before: "Docs/Übersicht café.pdf is not in the vault" (exit 2; POST /v1/ingest 404),
    # though search found it: macOS saves names decomposed, Obsidian and users type them composed.
    vault = tmp_path / "vault"
    saved = unicodedata.normalize("NFD", "Docs/Übersicht café.pdf")
    typed = unicodedata.normalize("NFC", saved)
    (vault / "Docs").mkdir(parents=True)
    (vault / saved).write_bytes(one_page_pdf("An overview of the cafe menu."))
    assert main(["ingest", str(vault), typed, "--json", "--data", str(tmp_path / "data")]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["document"] == saved
    # its notes are named as typed
    assert plan["notes"][0]["path"] == unicodedata.normalize(
        "NFC", "Resources/Übersicht café/Übersicht café - page 1.md")
    apply_ingest(vault, plan_ingest(vault, typed, data=None), data=None)
    assert list(read_manifest(vault)) == [saved]


@pytest.mark.parametrize(("settings", "why"), [
    ("exclude:\n  - Resources/\n", "never indexes"),
    ("folders:\n  .res/: resource\n  Resources/: null\n", "dot-folder"),
])
def test_a_resource_folder_the_index_never_reads_is_refused_before_anything_is_written(
    tmp_path: Path, settings: str, why: str,
) -> None:
    # Before: the notes went where the index never reads them, and the manifest then kept the
    # document itself out of search: its text vanished from it.
    vault = tmp_path / "vault"
    (vault / "Papers").mkdir(parents=True)
    (vault / "Papers/t.pdf").write_bytes(one_page_pdf("Tidal pumping drives intrusion."))
    (vault / "ora.yaml").write_text(settings, encoding="utf-8")
    with pytest.raises(BadRequest, match=why):
        plan_ingest(vault, "Papers/t.pdf", data=None)
    assert sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*")) == [
        "Papers", "Papers/t.pdf", "ora.yaml"]


def test_obsidians_excluded_files_are_refused_too(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / ".obsidian/app.json").write_text('{"userIgnoreFilters": ["Resources/"]}',
                                              encoding="utf-8")
    (vault / "t.pdf").write_bytes(one_page_pdf("Tidal pumping drives intrusion."))
    with pytest.raises(BadRequest, match="Excluded files"):
        plan_ingest(vault, "t.pdf", data=None)


def test_a_document_name_with_a_line_break_is_linked_on_one_line(tmp_path: Path) -> None:
    # Before: `Source: [[a\nb.pdf#page=1]]` spanned two lines, a link to nothing.
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a\nb.pdf").write_bytes(one_page_pdf("The weir was rebuilt in 1920."))
    [note] = apply_ingest(vault, plan_ingest(vault, "a\nb.pdf", data=None), data=None)["written"]
    text = (vault / note).read_text(encoding="utf-8")
    assert text.endswith("\nSource: [ab.pdf, page 1](a%0Ab.pdf#page=1)\n")
    assert "source_document: []" in text


@pytest.mark.skipif(sys.platform == "win32", reason="a backslash is Windows's separator")
def test_a_document_whose_name_holds_a_backslash_is_refused_with_the_reason(
    tmp_path: Path,
) -> None:
    # It was said not to be in the vault: a vault path reads `\` as `/` (a user test).
    vault = tmp_path / "vault"
    (vault / "D").mkdir(parents=True)
    (vault / "D" / "slash\\back.pdf").write_bytes(one_page_pdf("A backslash in the name."))
    with pytest.raises(BadRequest, match=r"backslash .*rename the file"):
        plan_ingest(vault, "D/slash\\back.pdf", data=None)
