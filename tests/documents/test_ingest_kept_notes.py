"""Notes `ora ingest` keeps because their owner edited them: the note of a page the document no
longer has, and a note an undo cannot take back. Each is named where it is kept, and neither
stops what comes after (a user test found the first announced as trashed and then forgotten,
and the second replayed by every later undo, so that older ingests could never be undone)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sidecar.cli import main
from sidecar.documents.ingest import apply_ingest, plan_ingest
from sidecar.documents.manifest import read_manifest

from .make_pdfs import pages_pdf


def _pages(n: int, edition: str) -> bytes:
    return pages_pdf([f"Page {i} of the {edition} river survey." for i in range(1, n + 1)])


def _edit(path: Path) -> None:
    with path.open("a", encoding="utf-8") as note:
        note.write("\nMy precious annotation.\n")


def test_an_edited_note_of_a_vanished_page_is_kept_named_and_remembered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "p.pdf").write_bytes(_pages(3, "first"))
    apply_ingest(vault, plan_ingest(vault, "p.pdf", data=None), data=None)
    page3 = "Resources/p/p - page 3.md"
    _edit(vault / page3)
    (vault / "p.pdf").write_bytes(_pages(2, "second"))
    assert main(["ingest", str(vault), "p.pdf", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["stale"] == [] and plan["kept"] == [page3]  # not announced as trashed
    assert main(["ingest", str(vault), "p.pdf", "--apply"]) == 0
    assert f"kept {page3} (edited since ingest wrote it" in capsys.readouterr().out
    assert "My precious annotation" in (vault / page3).read_text(encoding="utf-8")
    assert page3 in read_manifest(vault)["p.pdf"]["notes"]  # still the document's
    again = plan_ingest(vault, "p.pdf", data=None)
    assert again.unchanged and again.kept == [page3]
    assert apply_ingest(vault, again, data=None)["kept"] == [page3]
    (vault / "p.pdf").write_bytes(_pages(3, "third"))  # the page is back: its note was edited
    assert plan_ingest(vault, "p.pdf", data=None).conflicts == [page3]
    (vault / page3).unlink()
    (vault / "p.pdf").write_bytes(_pages(2, "second"))
    apply_ingest(vault, plan_ingest(vault, "p.pdf", data=None), data=None)
    assert page3 not in read_manifest(vault)["p.pdf"]["notes"]  # deleted: forgotten


def test_an_undo_that_keeps_an_edited_note_says_so_once_and_moves_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.pdf").write_bytes(_pages(2, "alpha"))
    (vault / "b.pdf").write_bytes(_pages(1, "beta"))
    a_notes = apply_ingest(vault, plan_ingest(vault, "a.pdf", data=None), data=None)["written"]
    [b_note] = apply_ingest(vault, plan_ingest(vault, "b.pdf", data=None), data=None)["written"]
    _edit(vault / b_note)

    assert main(["ingest", str(vault), "--undo"]) == 1
    out = capsys.readouterr().out
    assert f"kept {b_note}: edited since ingest wrote it" in out
    assert "undid the ingest of b.pdf but for its notes" in out
    assert "the next --undo undoes the ingest before it" in out
    assert "My precious annotation" in (vault / b_note).read_text(encoding="utf-8")
    assert "b.pdf" not in read_manifest(vault)

    assert main(["ingest", str(vault), "--undo", "--json"]) == 0
    done = json.loads(capsys.readouterr().out)
    assert done["document"] == "a.pdf" and sorted(done["undone"]) == sorted(a_notes)
    assert not any((vault / n).exists() for n in a_notes)
    assert main(["ingest", str(vault), "--undo"]) == 2
    assert "no ingest to undo" in capsys.readouterr().err
