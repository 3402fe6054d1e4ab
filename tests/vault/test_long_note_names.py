"""Notes whose names are long (up to the 255-byte limit, legal on Linux and allowed by
Obsidian): every name Ora builds from a note's name plus its own suffix (the writer's temporary
copy, its `.ora-old` and `.ora-kept`, a numbered trash name) still fits, and the stale-copy
sweep still knows such a copy for its note's."""

from __future__ import annotations

import os
import time
from pathlib import Path

from sidecar.lint.adopt import plan_adoption
from sidecar.lint.adopt_journal import apply_adoption
from sidecar.vault import temp_files, write
from sidecar.vault.held_open import trash_names
from sidecar.vault.temp_files import TEMP_STALE_S, sweep_temp_files
from sidecar.vault.trash import move_to_trash
from sidecar.vault.trash_place import TRASH_FOLDER
from sidecar.vault.write import content_hash

# 255 bytes in all; the two-byte "é"s make a cut fall inside a character unless it steps back
LONG = "x" + "é" * 125 + "y.md"
NAME_MAX = 255  # bytes of one file name (ext4, APFS)


def _later() -> float:
    """A time at which a copy made now is stale (taken when the sweep runs, not at import: a
    test run later than a minute after collection found nothing stale)."""
    return time.time() + TEMP_STALE_S + 60


def _fits(name: str) -> bool:
    raw = os.fsencode(name)
    return len(raw) <= NAME_MAX and raw.decode("utf-8") == name  # whole characters only


def test_adopt_apply_writes_a_note_with_a_255_byte_name(tmp_path: Path) -> None:
    """Its temporary copy `.NAME.xxxxxxxx.ora-tmp` went over the name limit: File name too
    long, a traceback, and the notes after it not adopted."""
    assert len(LONG.encode()) == NAME_MAX
    (tmp_path / LONG).write_text("plain note about compost #garden\n", encoding="utf-8")
    (tmp_path / "short.md").write_text("another plain note about tomatoes\n", encoding="utf-8")
    outcome = apply_adoption(tmp_path, plan_adoption(tmp_path, data=None).proposals)
    assert outcome.refused == []
    assert sorted(outcome.done) == sorted([LONG, "short.md"])
    assert (tmp_path / LONG).read_text(encoding="utf-8").startswith("---\ntype:")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".ora-tmp")]


def test_the_writers_hidden_names_for_a_long_note_fit(tmp_path: Path) -> None:
    fd, tmp = write._new_file(tmp_path / LONG, 0o600)
    os.close(fd)
    for suffix in (".ora-tmp", ".ora-old", ".ora-kept"):
        assert _fits(tmp.with_suffix(suffix).name)
    assert temp_files._TEMP_NAME.fullmatch(tmp.name)  # still one of Ora's own, for the sweep


def test_numbered_trash_names_of_a_long_note_fit() -> None:
    names = trash_names(LONG)
    firsts = [next(names) for _ in range(1200)]
    assert firsts[0] == LONG and all(map(_fits, firsts))
    assert len(set(firsts)) == len(firsts) and firsts[1000].endswith(" 1000.md")


def test_a_long_note_moved_to_a_trash_holding_its_name_gets_a_numbered_name(
    tmp_path: Path,
) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / LONG).write_bytes(folder.encode())
    assert move_to_trash(tmp_path, f"a/{LONG}", None) == f".trash/{LONG}"
    second = move_to_trash(tmp_path, f"b/{LONG}", None)
    assert second.endswith(" 1.md") and (tmp_path / second).read_bytes() == b"b"


def _stale_copy(folder: Path, note: str, data: bytes) -> Path:
    """A copy the writer left for `note`, as a killed write leaves it."""
    fd, tmp = write._new_file(folder / note, 0o600)
    os.write(fd, data)
    os.close(fd)
    return tmp


def test_the_sweep_deletes_a_long_notes_copy_holding_the_notes_bytes(tmp_path: Path) -> None:
    (tmp_path / LONG).write_bytes(b"the note\n")
    tmp = _stale_copy(tmp_path, LONG, b"the note\n")
    assert sweep_temp_files(tmp_path, now=_later()) == [tmp.name]
    assert sorted(p.name for p in tmp_path.iterdir()) == [LONG]


def test_the_sweep_keeps_a_long_notes_other_copy_in_the_trash_under_its_name(
    tmp_path: Path,
) -> None:
    """A copy holding other bytes (perhaps another program's save) is kept, under the note's
    own name, and a second sweep of the same bytes adds nothing."""
    (tmp_path / LONG).write_bytes(b"the note\n")
    tmp = _stale_copy(tmp_path, LONG, b"a save\n")
    assert sweep_temp_files(tmp_path, now=_later()) == [tmp.name]
    trash = tmp_path / TRASH_FOLDER
    assert {p.name: p.read_bytes() for p in trash.iterdir()} == {LONG: b"a save\n"}
    again = _stale_copy(tmp_path, LONG, b"a save\n")
    assert sweep_temp_files(tmp_path, now=_later()) == [again.name]
    assert [p.name for p in trash.iterdir()] == [LONG]


def test_a_long_notes_copy_is_taken_at_once_when_its_writer_is_gone(tmp_path: Path) -> None:
    (tmp_path / LONG).write_bytes(b"the note\n")
    tmp = _stale_copy(tmp_path, LONG, b"the note\n")
    assert sweep_temp_files(tmp_path, {"other.md"}) == []  # fresh, and not named
    assert sweep_temp_files(tmp_path, {LONG}) == [tmp.name]


def test_a_copy_shared_by_long_names_alike_is_deleted_only_with_one_of_their_bytes(
    tmp_path: Path,
) -> None:
    """Two long names that begin alike cut to the same NAME: their copy is deleted when it
    holds either note's bytes, and kept otherwise."""
    other = LONG.replace("y.md", "z.md")
    (tmp_path / LONG).write_bytes(b"one\n")
    (tmp_path / other).write_bytes(b"two\n")
    _stale_copy(tmp_path, other, b"two\n")
    _stale_copy(tmp_path, LONG, b"three\n")
    assert len(sweep_temp_files(tmp_path, now=_later())) == 2
    kept = {p.read_bytes() for p in (tmp_path / TRASH_FOLDER).iterdir()}
    assert kept == {b"three\n"}
    assert content_hash((tmp_path / other).read_bytes()) == content_hash(b"two\n")
