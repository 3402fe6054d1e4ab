"""A private document's notes keep their text where its private rule covers it: a note an
apply or an undo moves to the trash goes to the `.trash/` inside the private folder, and the
earlier text of a private note an apply rewrites stays out of the journal, even for a document
private by a rule naming it alone. Both were found by a user test: the page notes of
`Health/blood.pdf` went to the vault's own `.trash/`, and a re-ingest of `private:
[Papers/labs.pdf]` copied its notes' earlier text into `.ora-journal/`."""

from __future__ import annotations

from pathlib import Path

from sidecar.documents.ingest import apply_ingest, plan_ingest
from sidecar.documents.ingest_undo import undo_ingest

from .make_pdfs import pages_pdf


def _holding(vault: Path, word: str) -> list[str]:
    return sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*")
                  if p.is_file() and word.encode() in p.read_bytes())


def _ingest(vault: Path, rel: str) -> dict[str, list[str]]:
    return apply_ingest(vault, plan_ingest(vault, rel, data=None), data=None)


def test_the_notes_of_a_private_folder_go_to_the_trash_inside_it_on_apply_and_undo(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    (vault / "Health").mkdir(parents=True)
    (vault / "ora.yaml").write_text("private:\n  - Health/\n", encoding="utf-8")
    pdf = vault / "Health/blood.pdf"
    pdf.write_bytes(pages_pdf(["zqxtrash page one", "zqxtrash page two"]))
    assert len(_ingest(vault, "Health/blood.pdf")["written"]) == 2
    pdf.write_bytes(pages_pdf(["zqxtrash page one, again"]))
    done = _ingest(vault, "Health/blood.pdf")
    assert done["trashed"] == ["Health/blood/blood - page 2.md"]
    assert undo_ingest(vault, data=None)["refused"] == []  # page 2 back from Health/.trash
    assert (vault / "Health/blood/blood - page 2.md").is_file()
    assert undo_ingest(vault, data=None)["refused"] == []
    assert not (vault / "Health/blood").exists()  # the folder the first apply made is gone
    held = _holding(vault, "zqxtrash")
    assert held and all(p.startswith("Health/") for p in held), held
    assert not (vault / ".trash").exists()


def test_a_re_ingest_keeps_a_private_notes_earlier_text_out_of_the_journal_under_a_file_rule(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    (vault / "Papers").mkdir(parents=True)
    (vault / "ora.yaml").write_text("private:\n  - Papers/labs.pdf\n", encoding="utf-8")
    pdf = vault / "Papers/labs.pdf"
    pdf.write_bytes(pages_pdf(["zqxold value"]))
    [note] = _ingest(vault, "Papers/labs.pdf")["written"]
    pdf.write_bytes(pages_pdf(["zqxnew value"]))
    assert _ingest(vault, "Papers/labs.pdf")["written"] == [note]
    assert not [p for p in _holding(vault, "zqxold") if p.startswith(".ora-journal/")]
    assert [p for p in _holding(vault, "zqxold") if p.endswith(".ora-before")]
    assert undo_ingest(vault, data=None)["undone"] == [note]
    assert "zqxold" in (vault / note).read_text(encoding="utf-8")
    assert not _holding(vault, "zqxold")[1:]  # the hidden copy went with the undo
