"""`ora ingest` when things go wrong or change: two applies at once, a note deleted before an
undo, a name too long, a document that grows past 9 pages, two documents of one name, notes
deleted by hand. Each was found by trying it (a user test); each lost notes, search results or
the way back."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main
from sidecar.documents import ingest
from sidecar.documents.ingest import apply_ingest, plan_ingest
from sidecar.documents.ingest_undo import undo_ingest
from sidecar.vault.journal import journal_folder

from .make_pdfs import one_page_pdf


def _pdf(path: Path, pages: list[str]) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    for text in pages:
        pdf.add_page()
        pdf.set_font("Helvetica", size=12)
        pdf.multi_cell(0, 8, text)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(pdf.output()))
    return path


def _pages(n: int) -> list[str]:
    return [f"Page {i} of the harbour survey: buoy {i} marks the channel." for i in range(1, n + 1)]


def _notes(vault: Path) -> list[str]:
    return sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md")
                  if ".trash" not in p.parts)


def test_two_applies_at_once_journal_only_what_each_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: the second apply, run while the first wrote, journalled creates it never made
    # (it stopped at a note the first had written), and the first undo trashed the first's notes.
    vault = tmp_path / "vault"
    _pdf(vault / "Survey.pdf", _pages(3))
    first = plan_ingest(vault, "Survey.pdf", data=None)
    second = plan_ingest(vault, "Survey.pdf", data=None)
    original = ingest.create_note
    outcome: dict[str, Any] = {}

    def run_second() -> None:
        try:
            outcome["second"] = apply_ingest(vault, second, data=None)
        except Exception as exc:  # kept to assert on
            outcome["second"] = exc

    other = threading.Thread(target=run_second)

    def create_note(root: Path, rel: str, text: str) -> str:
        if not other.is_alive() and "second" not in outcome:
            other.start()  # the second apply starts while the first is writing
            other.join(0.5)
        return original(root, rel, text)

    monkeypatch.setattr(ingest, "create_note", create_note)
    assert len(apply_ingest(vault, first, data=None)["written"]) == 3
    other.join()
    assert outcome["second"] == {"written": [], "trashed": []}  # it waited, then found them
    monkeypatch.setattr(ingest, "create_note", original)
    done = undo_ingest(vault, data=None)
    assert len(done["undone"]) == 3 and done["refused"] == []
    assert _notes(vault) == [] and not list(journal_folder(vault).glob("ingest-*.json"))


def test_undo_counts_a_note_deleted_since_as_undone(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    _pdf(vault / "Survey.pdf", _pages(2))
    written = apply_ingest(vault, plan_ingest(vault, "Survey.pdf", data=None), data=None)["written"]
    (vault / written[0]).unlink()  # the user deleted one page's note
    done = undo_ingest(vault, data=None)
    assert done["refused"] == [] and sorted(done["undone"]) == sorted(written)
    assert _notes(vault) == [] and not list(journal_folder(vault).glob("ingest-*.json"))


def test_undo_removes_the_folders_the_apply_made_and_no_other(tmp_path: Path) -> None:
    # Before: undoing a vault's first ingest left an empty Resources/ behind.
    vault = tmp_path / "vault"
    _pdf(vault / "Survey.pdf", _pages(2))
    apply_ingest(vault, plan_ingest(vault, "Survey.pdf", data=None), data=None)
    undo_ingest(vault, data=None)
    assert not (vault / "Resources").exists()
    (vault / "Resources").mkdir()  # a folder of the user's, empty, is left as it was
    apply_ingest(vault, plan_ingest(vault, "Survey.pdf", data=None), data=None)
    undo_ingest(vault, data=None)
    assert (vault / "Resources").is_dir() and not any((vault / "Resources").iterdir())


def test_a_document_name_too_long_for_a_note_is_shortened(tmp_path: Path) -> None:
    # Before: the dry run passed and --apply died with "File name too long", leaving a journal
    # whose undo was refused.
    vault = tmp_path / "vault"
    name = "Ä" * 120 + ".pdf"  # 240 bytes: a legal file name
    _pdf(vault / name, _pages(2))
    written = apply_ingest(vault, plan_ingest(vault, name, data=None), data=None)["written"]
    assert len(written) == 2
    for rel in written:
        assert len(Path(rel).name.encode()) + len("..01234567.ora-tmp") <= 255
        assert Path(rel).parent.name.encode() in Path(rel).name.encode()


def test_a_document_grown_past_nine_pages_keeps_its_notes_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    # Before: "page 3" became "page 03": eight notes went to the trash unannounced, an edited
    # one stayed beside its new twin, and links to the old names broke.
    vault = tmp_path / "vault"
    _pdf(vault / "Survey.pdf", _pages(9))
    first = apply_ingest(vault, plan_ingest(vault, "Survey.pdf", data=None), data=None)["written"]
    _pdf(vault / "Survey.pdf", _pages(10))
    plan = plan_ingest(vault, "Survey.pdf", data=None)
    assert [n.path for n in plan.notes][:9] == first and plan.stale == []
    assert plan.notes[9].path.endswith("Survey - page 10.md")
    done = apply_ingest(vault, plan, data=None)  # each note says it is one of 10 now: all rewritten
    assert done == {"written": [n.path for n in plan.notes], "trashed": []}


def test_two_documents_of_one_name_get_folders_of_their_own(tmp_path: Path) -> None:
    # Before: the second was refused as "edited since ingest wrote it, or a note of your own".
    vault = tmp_path / "vault"
    _pdf(vault / "Papers/Survey.pdf", ["The 2019 survey of the north channel."])
    _pdf(vault / "Archive/Survey.pdf", ["The 1998 survey of the south channel."])
    one = apply_ingest(vault, plan_ingest(vault, "Papers/Survey.pdf", data=None),
                       data=None)["written"]
    two = apply_ingest(vault, plan_ingest(vault, "Archive/Survey.pdf", data=None),
                       data=None)["written"]
    assert one == ["Resources/Survey/Survey - page 1.md"]
    assert two == ["Resources/Survey 2/Survey 2 - page 1.md"]
    assert "north channel" in (vault / one[0]).read_text("utf-8")
    assert "south channel" in (vault / two[0]).read_text("utf-8")
    again = plan_ingest(vault, "Archive/Survey.pdf", data=None)  # each keeps its folder
    assert again.unchanged and [n.path for n in again.notes] == two


def test_a_document_whose_notes_were_deleted_is_found_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    vault, data = tmp_path / "vault", str(tmp_path / "data")
    (vault / "Survey.pdf").parent.mkdir(parents=True)
    (vault / "Survey.pdf").write_bytes(one_page_pdf("A heron colony nests on the weir island."))
    assert main(["ingest", str(vault), "Survey.pdf", "--apply", "--data", data]) == 0
    for note in _notes(vault):
        (vault / note).unlink()  # the user deletes the notes, not the document
    assert main(["index", str(vault), "--data", data]) == 0
    capsys.readouterr()
    assert main(["search", str(vault), "heron colony on the weir", "--data", data,
                 "--json"]) == 0
    found = [r["path"] for r in json.loads(capsys.readouterr().out)["results"]]
    assert found[:1] == ["Survey.pdf"]


def test_the_dry_run_names_the_notes_an_apply_trashes_or_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    vault = tmp_path / "vault"
    _pdf(vault / "Survey.pdf", _pages(3))
    written = apply_ingest(vault, plan_ingest(vault, "Survey.pdf", data=None), data=None)["written"]
    with (vault / written[0]).open("a", encoding="utf-8") as note:
        note.write("\nMy own remark.\n")
    _pdf(vault / "Survey.pdf", [*_pages(2)[:1], "Page 2 revised: the buoy moved."])
    assert main(["ingest", str(vault), "Survey.pdf", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    # page 3 is gone; page 1's note (now "1 of 2") was edited: an apply refuses it
    assert plan["stale"] == [written[2]] and plan["conflicts"] == [written[0]]
    assert plan["cut"] is None
    assert main(["ingest", str(vault), "Survey.pdf"]) == 0
    out = capsys.readouterr().out
    assert "to the trash" in out and "refused until these are moved away" in out


def test_a_file_of_the_vault_is_found_even_when_the_current_folder_has_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    # Before: "full.pdf is not inside the vault", since ./full.pdf was tried first.
    vault = tmp_path / "vault"
    _pdf(vault / "full.pdf", _pages(1))
    _pdf(tmp_path / "elsewhere" / "full.pdf", _pages(1))
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert main(["ingest", str(vault), "full.pdf", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["document"] == "full.pdf"


def test_a_moved_document_keeps_its_notes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    # Before: the moved document was searched again beside its notes (every hit twice), and
    # ingesting it at its new path was refused as "edited since ingest wrote it".
    vault, data = tmp_path / "vault", str(tmp_path / "data")
    (vault / "Papers").mkdir(parents=True)
    (vault / "Papers/Manual.pdf").write_bytes(one_page_pdf("Grease the winch every spring."))
    assert main(["ingest", str(vault), "Papers/Manual.pdf", "--apply", "--data", data]) == 0
    [note] = _notes(vault)
    before = (vault / note).read_text("utf-8")
    (vault / "Archive").mkdir()
    (vault / "Papers/Manual.pdf").rename(vault / "Archive/Manual.pdf")
    assert main(["index", str(vault), "--data", data]) == 0
    capsys.readouterr()
    assert main(["search", str(vault), "grease the winch", "--data", data, "--json"]) == 0
    found = [r["path"] for r in json.loads(capsys.readouterr().out)["results"]]
    assert found == [note]
    done = apply_ingest(vault, plan_ingest(vault, "Archive/Manual.pdf", data=None), data=None)
    assert done == {"written": [note], "trashed": []} and _notes(vault) == [note]
    assert "[[Archive/Manual.pdf#page=1]]" in (vault / note).read_text("utf-8")
    assert plan_ingest(vault, "Archive/Manual.pdf", data=None).unchanged
    assert undo_ingest(vault, data=None)["refused"] == []
    assert (vault / note).read_text("utf-8") == before


def test_a_changed_document_keeps_its_notes_date_created(tmp_path: Path) -> None:
    import datetime as dt

    vault = tmp_path / "vault"
    _pdf(vault / "Survey.pdf", _pages(2))
    plan = plan_ingest(vault, "Survey.pdf", today=dt.date(2026, 1, 5), data=None)
    apply_ingest(vault, plan, data=None)
    _pdf(vault / "Survey.pdf", ["Page 1 revised.", *_pages(2)[1:]])
    again = plan_ingest(vault, "Survey.pdf", today=dt.date(2026, 3, 9), data=None)
    assert all("date created: 2026-01-05" in n.text for n in again.notes)
    assert all("date modified: 2026-03-09" in n.text for n in again.notes)


def test_a_document_whose_name_a_wikilink_cannot_hold_is_linked_by_a_markdown_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    # Before: `[[Docs/Invoice #12 [draft].pdf#page=1]]`, which Obsidian reads as a heading of
    # "Docs/Invoice ", and lint flagged as malformed.
    from sidecar.extraction.extract import load_source
    from sidecar.settings import make_config

    vault = tmp_path / "vault"
    _pdf(vault / "Docs/Invoice #12 [draft].pdf", ["The plumber charged for two new taps."])
    [note] = apply_ingest(vault, plan_ingest(vault, "Docs/Invoice #12 [draft].pdf", data=None),
                          data=None)["written"]
    text = (vault / note).read_text("utf-8")
    assert "source_document: []" in text
    assert ("Source: [Invoice #12 draft.pdf, page 1]"
            "(Docs/Invoice%20%2312%20%5Bdraft%5D.pdf#page=1)") in text
    assert main(["lint", str(vault), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["diagnostics"] == []
    turns = load_source(make_config(vault), note=note).turns
    assert [t.content for t in turns] == ["The plumber charged for two new taps."]


def test_undo_removes_the_temporary_copy_an_apply_killed_mid_write_left_and_its_folder(
    tmp_path: Path,
) -> None:
    # SIGKILL during `--apply` left `.NAME.xxxxxxxx.ora-tmp` beside the notes for good, and the
    # undo then kept the folder it made (a user test, on a 2,100-page PDF).
    vault = tmp_path / "vault"
    (vault / "Docs").mkdir(parents=True)
    (vault / "Docs/x.pdf").write_bytes(one_page_pdf("Killed mid-write."))
    [note] = apply_ingest(vault, plan_ingest(vault, "Docs/x.pdf", data=None),
                          data=None)["written"]
    left = vault / Path(note).parent / f".{Path(note).name}.0123abcd.ora-tmp"
    left.write_text("half a note", encoding="utf-8")
    assert undo_ingest(vault, data=None)["undone"] == [note]
    assert not (vault / "Resources").exists()
