"""What the writer keeps and what it refuses: comments before the closing fence, anchors and
aliases, read-only and immutable notes (library, `ora lint --fix`, `POST /v1/lint/fix`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sidecar.errors import InvalidFrontmatter, NoteNotWritable
from sidecar.vault.edit import edit_frontmatter
from sidecar.vault.frontmatter_edit import add_tag, rewrite_frontmatter, set_value
from sidecar.vault.note import parse_note
from sidecar.vault.trash import move_to_trash
from tests.notes import immutable

ORA = Path(sys.executable).with_name("ora")
NO_DATES = "---\nnexus: []\ntype: engram\ntags:\n  - memory\n---\n# Note\n\nBody.\n"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("---\ntags:\n  - a\n# closing comment\n---\nbody\n",
         "---\ntags:\n  - a\n  - archived\n# closing comment\n---\nbody\n"),
        ("---\ntags:\n  - a\n# c\n  - b\n# c\n---\nbody\n",
         "---\ntags:\n  - a\n# c\n  - b\n  - archived\n# c\n---\nbody\n"),
        ("---\ntags:\n  - a\n\n# one\n# two\n---\nbody\n",
         "---\ntags:\n  - a\n  - archived\n\n# one\n# two\n---\nbody\n"),
    ],
)
def test_a_comment_before_the_closing_fence_is_kept_once(before: str, after: str) -> None:
    assert rewrite_frontmatter(before, lambda cm: add_tag(cm, "archived")) == after


def test_an_edit_that_would_not_read_back_is_refused_and_the_note_kept(tmp_path: Path) -> None:
    """A `...` (YAML's document end) before the closing fence: a key added after it made a
    second document, so the note no longer parsed (unindexed, its properties gone in Obsidian).
    Every edit is now checked to read back as the properties it meant to write."""
    note = tmp_path / "Note.md"
    text = "---\ntype: engram\ntags: [memory]\n...\n---\n# Note\n\nBody.\n"
    note.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidFrontmatter, match="would not read back"):
        edit_frontmatter(tmp_path, "Note.md", lambda cm: set_value(cm, "date created", "2024"))
    assert note.read_text(encoding="utf-8") == text
    # A key changed in place reads back, so that edit is still made.
    edit_frontmatter(tmp_path, "Note.md", lambda cm: add_tag(cm, "archived"))
    assert parse_note(note.read_text(encoding="utf-8"), "Note.md").tags[-1] == "archived"


@pytest.mark.parametrize("line", ["x: !foo bar", "v: .nan", "s: !!set {a, b}", "n: ~"])
def test_values_without_plain_equality_still_read_back(line: str) -> None:
    """The read-back check compares data: a custom-tagged scalar or a NaN is not a refusal."""
    out = rewrite_frontmatter(f"---\n{line}\ntags: [a]\n---\nb\n",
                              lambda cm: add_tag(cm, "archived"))
    assert out == f"---\n{line}\ntags: [a, archived]\n---\nb\n"


def test_anchors_and_aliases_are_refused_rather_than_expanded(tmp_path: Path) -> None:
    note = tmp_path / "Note.md"
    text = "---\nshared: &d [a, b]\ntags: *d\n---\nbody\n"
    note.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidFrontmatter, match=r"Note\.md: .*anchors or aliases"):
        edit_frontmatter(tmp_path, "Note.md", lambda cm: add_tag(cm, "archived"))
    assert note.read_text(encoding="utf-8") == text  # no key gained `archived`
    # an edit that changes nothing is no edit, anchors or not
    edit_frontmatter(tmp_path, "Note.md", lambda cm: add_tag(cm, "a"))


def test_a_read_only_note_is_refused_and_left_alone(tmp_path: Path) -> None:
    note = tmp_path / "Note.md"
    note.write_text(NO_DATES, encoding="utf-8")
    note.chmod(0o444)
    with pytest.raises(NoteNotWritable, match=r"Note\.md is read-only"):
        edit_frontmatter(tmp_path, "Note.md", lambda cm: add_tag(cm, "archived"))
    with pytest.raises(NoteNotWritable):
        move_to_trash(tmp_path, "Note.md", None)
    assert note.read_text(encoding="utf-8") == NO_DATES
    assert not (tmp_path / ".trash").exists() or not any((tmp_path / ".trash").iterdir())


def test_an_immutable_note_is_a_clear_error_in_the_library_and_the_cli(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    note = vault / "Note.md"
    note.write_text(NO_DATES, encoding="utf-8")
    with immutable(note):
        with pytest.raises(NoteNotWritable, match=r"Note\.md cannot be written .*immutable"):
            edit_frontmatter(vault, "Note.md", lambda cm: add_tag(cm, "archived"))
        with pytest.raises(NoteNotWritable):
            move_to_trash(vault, "Note.md", None)
        done = subprocess.run([str(ORA), "lint", str(vault), "--fix"], capture_output=True,
                              text=True)
    assert note.read_text(encoding="utf-8") == NO_DATES
    assert "Traceback" not in done.stderr
    assert "cannot fix Note.md: Note.md cannot be written" in done.stderr
    assert done.returncode == 1


def test_ora_lint_fix_reports_a_read_only_note_and_fixes_the_others(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    for name in ("A.md", "B.md", "C.md"):
        (vault / name).write_text(NO_DATES, encoding="utf-8")
    (vault / "B.md").chmod(0o444)
    done = subprocess.run([str(ORA), "lint", str(vault), "--fix"], capture_output=True,
                          text=True)
    assert "Traceback" not in done.stderr
    assert "cannot fix B.md: B.md is read-only" in done.stderr
    assert "date created:" in (vault / "A.md").read_text(encoding="utf-8")
    assert "date created:" in (vault / "C.md").read_text(encoding="utf-8")
    assert (vault / "B.md").read_text(encoding="utf-8") == NO_DATES
