"""The writer's temporary files left by a process killed mid-write are removed
(`write.sweep_temp_files`): only files of its own temporary name, and only once stale or when
their writer is known to be gone; never a file of the user's."""

from __future__ import annotations

import time
from pathlib import Path

from sidecar.vault.write import TEMP_STALE_S, create_file, sweep_temp_files

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
    assert left == sorted([*THEIRS, ".c.md.0123abcd.ora-tmp"])


def test_the_temporary_files_of_notes_whose_writer_is_gone_are_removed_at_once(
    tmp_path: Path,
) -> None:
    _files(tmp_path, OURS)
    assert sweep_temp_files(tmp_path, {"a.md"}) == OURS[:1]


def test_a_file_the_writer_creates_leaves_no_temporary_file(tmp_path: Path) -> None:
    create_file(tmp_path / "n.md", b"x\n")
    assert [p.name for p in tmp_path.iterdir()] == ["n.md"]
