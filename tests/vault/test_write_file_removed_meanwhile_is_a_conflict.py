"""A file removed between Ora's read and its write (a sync tool, `git checkout` or an editor
saving it by delete-and-create) is a Conflict (409: it changed meanwhile), and a note absent when
it is read is NotFound (404), never a FileNotFoundError (500 `internal`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sidecar.errors import Conflict, NotFound
from sidecar.lint.diagnostics import fix_dates
from sidecar.vault.edit import edit_frontmatter
from sidecar.vault.settings_edit import _edit_list
from sidecar.vault.vault_settings import load_vault_settings
from sidecar.vault.write import atomic_write, content_hash

NOTE = "---\ntype: engram\n---\nFiller tok_filler\n"
SETTINGS = "private:\n  - Health/\nexclude:\n  - Scratch/\n"


def test_atomic_write_of_a_file_removed_since_it_was_read_is_a_conflict(tmp_path: Path) -> None:
    note = tmp_path / "Note.md"
    note.write_text(NOTE, encoding="utf-8")
    read = content_hash(note.read_bytes())
    note.unlink()  # removed after the read, before the write
    with pytest.raises(Conflict) as caught:
        atomic_write(note, b"new text\n", read, "Note.md")
    assert caught.value.status == 409 and "removed since it was read" in caught.value.message
    assert not note.exists()  # nothing written in its place


def test_a_note_edit_planned_from_a_removed_note_is_not_found(tmp_path: Path) -> None:
    (tmp_path / "Note.md").write_text(NOTE, encoding="utf-8")
    read = content_hash(NOTE.encode("utf-8"))
    (tmp_path / "Note.md").unlink()
    with pytest.raises(NotFound):
        edit_frontmatter(tmp_path, "Note.md", lambda cm: None, expected_hash=read)


def test_the_settings_editor_answers_a_conflict_when_ora_yaml_goes_before_its_write(
    tmp_path: Path,
) -> None:
    vault, data = tmp_path / "vault", tmp_path / "data"
    vault.mkdir()
    data.mkdir()
    (vault / "ora.yaml").write_text(SETTINGS, encoding="utf-8")
    load_vault_settings(vault, data)

    def removed_meanwhile(entries: list[Any]) -> bool:
        # runs between the editor's read and its write (twice: its edit and the one it checks
        # the written text against): the sync tool's delete lands here
        (vault / "ora.yaml").unlink(missing_ok=True)
        entries.append("Z/")
        return True

    with pytest.raises(Conflict) as caught:
        _edit_list(vault, data, ("exclude",), removed_meanwhile)
    assert caught.value.status == 409
    assert not (vault / "ora.yaml").exists()  # not created again with a part of its settings


def test_lint_fix_of_a_note_absent_when_read_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(NotFound) as caught:
        fix_dates(tmp_path, "Ideas/Gone.md")
    assert caught.value.status == 404
