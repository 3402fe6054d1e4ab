"""The writer's temporary files left by a process killed mid-write are removed
(`temp_files.sweep_temp_files`): only files of its own temporary name, and only once stale or when
their writer is known to be gone; never a file of the user's."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sidecar.lint.diagnostics import fix_dates
from sidecar.vault import temp_files, write
from sidecar.vault.edit import edit_frontmatter
from sidecar.vault.frontmatter_edit import set_value
from sidecar.vault.temp_files import TEMP_STALE_S, sweep_temp_files
from sidecar.vault.trash import restore_bytes
from sidecar.vault.trash_place import TRASH_FOLDER
from sidecar.vault.write import content_hash, create_file

OURS = [".a.md.0123abcd.ora-tmp", ".b - page 1.md.ffffffff.ora-tmp"]
# and the writer's `.ora-old`, which may hold the only copy of another program's save
THEIRS = [".a.md.0123abcd.ora-old", "a.md", ".a.md.ora-tmp", ".a.md.0123abcd.ora-tmp.bak",
          "a.md.0123abcd.ora-tmp", ".a.md.0123ABCD.ora-tmp", ".a.md.012345.ora-tmp",
          ".x.md.0123abcd.ora-before"]


def _files(folder: Path, names: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_text("text\n", encoding="utf-8")


def test_only_the_writers_own_stale_temporary_files_are_removed(tmp_path: Path) -> None:
    _files(tmp_path, OURS + THEIRS)
    (tmp_path / ".c.md.0123abcd.ora-tmp").mkdir()  # a folder of that name is not ours
    assert sweep_temp_files(tmp_path) == []  # fresh: a write may be under way
    later = time.time() + TEMP_STALE_S + 60
    assert sorted(sweep_temp_files(tmp_path, now=later)) == sorted(OURS)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([*THEIRS, ".c.md.0123abcd.ora-tmp", TRASH_FOLDER])
    # a.md holds the bytes of its copy, which is deleted; b - page 1.md's is kept
    assert _trash(tmp_path) == {"b - page 1.md": b"text\n"}


def _trash(vault: Path, trash: str = TRASH_FOLDER) -> dict[str, bytes]:
    """What the trash folder `trash` of `vault` holds, by name."""
    folder = vault / trash
    return {p.name: p.read_bytes() for p in folder.iterdir()} if folder.is_dir() else {}


def test_the_temporary_files_of_notes_whose_writer_is_gone_are_removed_at_once(
    tmp_path: Path,
) -> None:
    _files(tmp_path, OURS)
    assert sweep_temp_files(tmp_path, {"a.md"}) == OURS[:1]


def test_a_file_the_writer_creates_leaves_no_temporary_file(tmp_path: Path) -> None:
    create_file(tmp_path / "n.md", b"x\n")
    assert [p.name for p in tmp_path.iterdir()] == ["n.md"]


NOTE = b"---\ntitle: n\n---\nBody.\n"
# How each kind of writer writes a note in `vault` (lint fix, a frontmatter edit as adopt and
# triage make, an undo, a new note): each goes through the writer's temporary copy.
WRITES: dict[str, Callable[[Path], object]] = {
    "lint-fix": lambda vault: fix_dates(vault, "n.md"),
    "edit": lambda vault: edit_frontmatter(vault, "n.md", lambda cm: set_value(cm, "s", "x")),
    "undo": lambda vault: restore_bytes(vault, "n.md", b"---\n---\nOld.\n",
                                             content_hash(NOTE)),
    "new-note": lambda vault: write.create_note(vault, "new.md", "New.\n"),
}


@pytest.mark.parametrize("how", sorted(WRITES))
def test_any_write_removes_the_stale_temporary_files_a_killed_writer_left_in_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str,
) -> None:
    # Before: only ingest and extraction accept swept; a note written by lint fix, adopt,
    # triage or undo kept a killed write's full hidden copy beside it forever.
    vault = tmp_path / "vault"
    _files(vault, OURS + THEIRS)
    (vault / "n.md").write_bytes(NOTE)
    monkeypatch.setattr(temp_files, "TEMP_STALE_S", -1.0)  # every temporary file of ours is stale
    WRITES[how](vault)
    left = {p.name for p in vault.iterdir()} - {"n.md", "new.md"}
    assert left == {*THEIRS, TRASH_FOLDER}
    assert _trash(vault) == {"b - page 1.md": b"text\n"}  # a.md's copy holds its bytes


def test_a_write_leaves_a_temporary_file_that_may_be_another_writers_in_progress(
    tmp_path: Path,
) -> None:
    _files(tmp_path, OURS)  # fresh: another Ora process may be writing them now
    (tmp_path / "n.md").write_bytes(NOTE)
    edit_frontmatter(tmp_path, "n.md", lambda cm: set_value(cm, "s", "x"))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*OURS, "n.md"])


def test_the_old_bytes_of_a_hard_linked_note_killed_mid_write_go_to_the_trash(
    tmp_path: Path,
) -> None:
    # A hard-linked note is written in place, its old bytes first copied beside it under the
    # temporary name: after a crash mid-write that copy is all that is left of them.
    _files(tmp_path, [".n.md.0123abcd.ora-tmp"])
    (tmp_path / "n.md").write_bytes(NOTE)
    os.link(tmp_path / "n.md", tmp_path / "other name.md")
    later = time.time() + TEMP_STALE_S + 60
    assert sweep_temp_files(tmp_path, now=later) == [".n.md.0123abcd.ora-tmp"]
    assert _trash(tmp_path) == {"n.md": b"text\n"}


SYNCS = b"---\ntitle: n\n---\nBody, and the laptop's edit.\n"


def _killed_after_the_swap(folder: Path) -> Path:
    """What a write killed just after its exchange leaves in `folder` when a sync tool's save
    (SYNCS) had landed just before it: the note holds Ora's edit, and the writer's temporary
    name the only copy of that save."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "n.md").write_bytes(NOTE)
    left = folder / ".n.md.0123abcd.ora-tmp"
    left.write_bytes(SYNCS)
    return left


def test_a_killed_writes_copy_holding_another_programs_save_is_kept_in_the_trash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: the next write in the folder ten minutes on deleted it: the sync tool's save
    # was gone for good.
    vault = tmp_path / "vault"
    left = _killed_after_the_swap(vault)
    monkeypatch.setattr(temp_files, "TEMP_STALE_S", -1.0)
    write.create_note(vault, "new.md", "New.\n")
    assert not left.exists()
    assert _trash(vault) == {"n.md": SYNCS}


def test_a_copy_whose_bytes_are_kept_elsewhere_is_deleted(tmp_path: Path) -> None:
    later = time.time() + TEMP_STALE_S + 60
    (tmp_path / "n.md").write_bytes(NOTE)
    (tmp_path / ".n.md.0123abcd.ora-tmp").write_bytes(NOTE)  # the note's own bytes
    (tmp_path / ".gone.md.0123abcd.ora-tmp").write_bytes(b"")  # no bytes at all
    assert len(sweep_temp_files(tmp_path, now=later)) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.md"]
    # Two copies of one save, swept apart: the trash keeps it once.
    for name in (".n.md.0123abcd.ora-tmp", ".n.md.89abcdef.ora-tmp"):
        (tmp_path / name).write_bytes(SYNCS)
        sweep_temp_files(tmp_path, now=later)
    assert _trash(tmp_path) == {"n.md": SYNCS}


def test_a_private_folders_copy_goes_to_the_trash_inside_it(tmp_path: Path) -> None:
    # As a private note Ora trashes (`trash_of`): its text stays where the rule covers it,
    # for ingest's and extraction's sweeps (given a folder only) as for a write's.
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "ora.yaml").write_text("private:\n  - Health/\n", encoding="utf-8")
    _killed_after_the_swap(vault / "Health/Labs")
    sweep_temp_files(vault / "Health/Labs", now=time.time() + TEMP_STALE_S + 60)
    assert _trash(vault, "Health/.trash") == {"n.md": SYNCS}
    assert not (vault / TRASH_FOLDER).exists()


def test_without_hard_links_a_kept_copy_still_leaves_the_notes_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # FAT, exFAT and some network shares refuse hard links: `keep` renamed the copy to a
    # hidden `.ora-kept` beside the note instead, where it stayed for good.
    def no_links(src: object, dst: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    left = _killed_after_the_swap(tmp_path)
    monkeypatch.setattr(os, "link", no_links)
    assert sweep_temp_files(tmp_path, now=time.time() + TEMP_STALE_S + 60) == [left.name]
    assert sorted(p.name for p in tmp_path.iterdir()) == [TRASH_FOLDER, "n.md"]
    assert _trash(tmp_path) == {"n.md": SYNCS}
