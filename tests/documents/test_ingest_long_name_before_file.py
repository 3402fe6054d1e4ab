"""A private note's earlier text is kept beside it in `.NAME.<hash12>.ora-before`
(`before_file`); a note named after a long title in a multibyte script has a name close to
NAME_MAX bytes, and that hidden name went over the filesystem's limit, so a re-ingest failed.
The name is cut to fit, kept apart from other long names, and the undo finds it."""

from __future__ import annotations

import os
from pathlib import Path

from sidecar.documents.ingest import apply_ingest, before_file, plan_ingest
from sidecar.documents.ingest_undo import undo_ingest
from sidecar.vault.held_open import NAME_MAX

from .make_pdfs import pages_pdf

# A title of Chinese and Latin: its notes' names take all the room a note's name has (100
# characters, 218 bytes, and ` - page 01.md`), and `.NAME.<hash12>.ora-before` 256 bytes.
LONG_TITLE = "漢" * 59 + "a" * 41
PAGES = [f"page {n}" for n in range(2, 11)]  # ten pages: two-digit page numbers


def _ingest(vault: Path, rel: str) -> dict[str, list[str]]:
    return apply_ingest(vault, plan_ingest(vault, rel, data=None), data=None)


def _hidden(vault: Path) -> list[Path]:
    return [p for p in vault.rglob("*.ora-before") if p.is_file()]


def test_a_long_note_names_earlier_text_is_kept_and_put_back_by_undo(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "Health").mkdir(parents=True)
    (vault / "ora.yaml").write_text("private:\n  - Health/\n", encoding="utf-8")
    pdf = vault / f"Health/{LONG_TITLE}.pdf"
    pdf.write_bytes(pages_pdf(["zqxold value", *PAGES]))
    rel = pdf.relative_to(vault).as_posix()
    note = _ingest(vault, rel)["written"][0]
    assert len(os.fsencode(Path(note).name)) == 231
    pdf.write_bytes(pages_pdf(["zqxnew value", *PAGES]))
    assert _ingest(vault, rel)["written"] == [note]
    [kept] = _hidden(vault)
    assert len(os.fsencode(kept.name)) <= NAME_MAX
    assert "zqxold" in kept.read_text(encoding="utf-8")
    assert undo_ingest(vault, data=None)["undone"] == [note]
    assert "zqxold" in (vault / note).read_text(encoding="utf-8")
    assert _hidden(vault) == []  # the undo found its hidden copy and removed it


def test_long_names_that_begin_alike_keep_apart() -> None:
    digest = "ab" * 32
    names = [f"Health/x/{LONG_TITLE} - page {n:02d}.md" for n in (1, 2)]
    files = [before_file(rel, digest) for rel in names]
    assert len(set(files)) == 2
    for rel in files:
        name = rel.rsplit("/", 1)[1]
        assert len(os.fsencode(name)) <= NAME_MAX
        assert name.startswith(f".{LONG_TITLE[:90]}")
        assert name.endswith(f".{digest[:12]}.ora-before")
    # a short name is spelt as before
    assert before_file("A/b.md", digest) == "A/.b.md.abababababab.ora-before"
