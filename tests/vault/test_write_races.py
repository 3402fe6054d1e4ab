"""The compare-and-swap writer racing an editor that saves by rename (write a temp file, rename
it over the note): the editor's save is never lost silently.

Instead of hoping for the race, the editor's rename is made to land before each system call the
writer makes in turn (the `os` of write.py and of the modules it calls, wrapped). Whatever the
moment, the file must end up holding the editor's save: either it landed after Ora's swap (the
editor saved over Ora's write, as it would any other), or before it, and then Ora's write is a
Conflict and the editor's file is what remains.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.errors import Conflict
from sidecar.vault import temp_files, write
from sidecar.vault import trash as trash_moves
from sidecar.vault.settings_edit import set_excluded
from sidecar.vault.trash_place import TRASH_FOLDER
from sidecar.vault.write import atomic_write, content_hash

ORIGINAL = b"---\ntype: engram\n---\n# Note\n\nThe text Ora read.\n"
ORAS = b"---\ntype: engram\ndate modified: 2024-01-02\n---\n# Note\n\nThe text Ora read.\n"
EDITORS = b"---\ntype: engram\n---\n# Note\n\nThe text Ora read, and a hand edit.\n"
# The modules whose system calls a write makes (what was write.py's alone before the split).
WRITER = (write, temp_files, trash_moves)


class _OsWithAnEditor:
    """The writer's `os`, except that `editor` runs just before its `fire_at`-th call."""

    def __init__(self, fire_at: int, editor: Callable[[], None]) -> None:
        self.fire_at, self.editor = fire_at, editor
        self.calls: list[str] = []
        self.fired_before: str | None = None

    def __getattr__(self, name: str) -> Any:
        real = getattr(os, name)
        if not callable(real):
            return real

        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            if len(self.calls) == self.fire_at:
                self.fired_before = name
                self.editor()
            return real(*args, **kwargs)
        return call


def _rename_save(path: Path, data: bytes) -> Callable[[], None]:
    """An editor saving `data` the way many do: a new file beside it, renamed over it."""
    def save() -> None:
        tmp = path.with_name(f".{path.name}.editor-swp")
        tmp.write_bytes(data)
        os.rename(tmp, path)
    return save


def _race(monkeypatch: pytest.MonkeyPatch, path: Path, original: bytes, editors: bytes,
          ora_write: Callable[[], object]) -> list[tuple[str | None, str, bytes]]:
    """Ora's write with the editor's rename before its 1st, 2nd, … system call; the rounds that
    lost the editor's save: (the call it landed before, what Ora answered, what the file holds)."""
    lost = []
    for fire_at in range(1, 200):
        path.write_bytes(original)
        fake = _OsWithAnEditor(fire_at, _rename_save(path, editors))
        with monkeypatch.context() as patch:
            for module in WRITER:  # one count across the modules a write goes through
                patch.setattr(module, "os", fake)
            try:
                ora_write()
                answer = "written"
            except Conflict:
                answer = "conflict"
        if fake.fired_before is None:  # past the writer's last call: the race is covered
            assert fire_at > 3
            break
        final = path.read_bytes() if path.exists() else b"(no file)"
        if final != editors:
            lost.append((fake.fired_before, answer, final))
        # No temp file or old copy left behind (nor a copy in the trash, after a Conflict).
        left = sorted(str(p.relative_to(path.parent)) for p in path.parent.rglob("*")
                      if p != path and p.name != TRASH_FOLDER)
        assert left == [], (fake.fired_before, left)
    return lost


def test_an_editors_rename_at_any_moment_of_a_write_is_never_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: a rename landing between the hard link that guards the old file and os.replace
    # was overwritten, and the write answered success (here: before `replace`).
    path = tmp_path / "Note.md"
    lost = _race(monkeypatch, path, ORIGINAL, EDITORS,
                 lambda: atomic_write(path, ORAS, content_hash(ORIGINAL), "Note.md"))
    assert lost == []


def test_a_hand_edit_of_ora_yaml_saved_by_rename_during_an_exclude_is_never_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: POST /v1/vault-settings/exclude answered 200 and the hand edit was gone.
    vault = tmp_path / "vault"
    vault.mkdir()
    path = vault / "ora.yaml"
    original = b"exclude:\n  - Scratch/\nprivate:\n  - Health/\n"
    hand_edit = b"exclude:\n  - Scratch/\nprivate:\n  - Health/\n  - Journal/\n"
    lost = _race(monkeypatch, path, original, hand_edit,
                 lambda: set_excluded(vault, "Archive/", True, data_folder=None))
    assert lost == []


def test_an_editors_rename_during_a_move_to_the_trash_is_never_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: a rename landing between the link into the trash and the unlink of the note's
    # name was unlinked with it; the move answered success and the trash held the old text.
    vault = tmp_path / "vault"
    vault.mkdir()
    path = vault / "Note.md"

    def move() -> None:
        trash_moves.move_to_trash(vault, "Note.md", content_hash(ORIGINAL))
        for old in (vault / TRASH_FOLDER).iterdir():  # what was moved is the checked text
            assert old.read_bytes() == ORIGINAL
            old.unlink()

    lost = _race(monkeypatch, path, ORIGINAL, EDITORS, move)
    assert lost == []


@pytest.mark.skipif(getattr(write, "_EXCHANGE", None) is None,
                    reason="no atomic exchange on this system")
def test_names_are_exchanged_atomically_where_the_system_can(tmp_path: Path) -> None:
    # The guarantee above rests on it: on Linux and macOS the fallback must not be taken.
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(b"A")
    b.write_bytes(b"B")
    assert write._exchange(a, b)
    assert (a.read_bytes(), b.read_bytes()) == (b"B", b"A")


@pytest.mark.skipif(getattr(write, "_EXCHANGE", None) is None,
                    reason="no atomic exchange on this system")
def test_a_second_save_landing_while_ora_puts_the_first_back_is_the_one_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "Note.md"
    path.write_bytes(ORIGINAL)
    later = EDITORS + b"\nAnd a later save.\n"
    saves = iter([_rename_save(path, EDITORS), _rename_save(path, later)])
    real = write._exchange

    def exchange(a: Path, b: Path) -> bool:
        next(saves, lambda: None)()  # before Ora's swap, then before it puts the first back
        return real(a, b)

    monkeypatch.setattr(write, "_exchange", exchange)
    with pytest.raises(Conflict, match=r"kept in \.trash/Note\.md"):
        atomic_write(path, ORAS, content_hash(ORIGINAL), "Note.md")
    assert path.read_bytes() == later
    # The first save is kept: the later one may have been made from Ora's edit, shown in the
    # note for that moment, and lack its text.
    assert (tmp_path / TRASH_FOLDER / "Note.md").read_bytes() == EDITORS
    assert sorted(p.name for p in tmp_path.iterdir()) == [TRASH_FOLDER, "Note.md"]


def test_without_an_atomic_exchange_only_the_moment_of_the_replace_is_unguarded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Where names cannot be exchanged (an old kernel, NFS, FAT), a rename landing after the old
    # file's hard link is still caught up to the last check before os.replace.
    monkeypatch.setattr(write, "_EXCHANGE", None)
    path = tmp_path / "Note.md"
    lost = _race(monkeypatch, path, ORIGINAL, EDITORS,
                 lambda: atomic_write(path, ORAS, content_hash(ORIGINAL), "Note.md"))
    assert {fired for fired, _, _ in lost} <= {"replace"}


def _save_in_place(path: Path, data: bytes) -> None:
    """An editor saving `data` in place: truncate, then write into what `path` names."""
    with open(path, "r+b") as handle:
        handle.truncate(0)
        handle.write(data)


def _original_note(tmp_path: Path) -> Path:
    """`vault/Note.md` holding ORIGINAL, in a vault of its own."""
    (tmp_path / "vault").mkdir()
    path = tmp_path / "vault" / "Note.md"
    path.write_bytes(ORIGINAL)
    return path


def _sync_then_editor(path: Path, monkeypatch: pytest.MonkeyPatch, editor_at: int) -> None:
    """A sync tool's rename (its save: EDITORS) lands just before Ora's swap; an editor's save
    in place (LATER_SAVE) lands in the note just after the swap (`editor_at` 1) or just before
    Ora puts the sync tool's file back (`editor_at` 2)."""
    real, calls = write._exchange, [0]

    def exchange(a: Path, b: Path) -> bool:
        calls[0] += 1
        if calls[0] == 1:
            _rename_save(path, EDITORS)()
        if calls[0] == editor_at == 2:
            _save_in_place(path, LATER_SAVE)
        swapped = real(a, b)
        if calls[0] == editor_at == 1:
            _save_in_place(path, LATER_SAVE)
        return swapped

    monkeypatch.setattr(write, "_exchange", exchange)


LATER_SAVE = EDITORS + b"\nThe editor's newest save.\n"


@pytest.mark.skipif(getattr(write, "_EXCHANGE", None) is None,
                    reason="no atomic exchange on this system")
@pytest.mark.parametrize("editor_at", [1, 2], ids=["after-the-swap", "before-the-put-back"])
def test_a_save_in_place_into_oras_copy_stays_in_the_note_over_an_older_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, editor_at: int,
) -> None:
    # Before: Ora put the sync tool's older file back in the note and moved the file holding
    # the editor's newest save to .trash/: the note silently showed the older text.
    path = _original_note(tmp_path)
    vault = path.parent
    _sync_then_editor(path, monkeypatch, editor_at)
    with pytest.raises(Conflict, match=r"the note holds one.*kept in \.trash/Note\.md") as caught:
        atomic_write(path, ORAS, content_hash(ORIGINAL), "Note.md")
    # Which save is older is not known: an editor's save waiting on the lease of the one kept
    # may land in it after it is moved.
    assert not {"earlier", "newest", "older"} & set(str(caught.value).split())
    assert path.read_bytes() == LATER_SAVE
    # The older save it displaced is kept aside, whole: it may hold text the newest lacks.
    assert (vault / TRASH_FOLDER / "Note.md").read_bytes() == EDITORS
    assert sorted(p.name for p in vault.iterdir()) == [TRASH_FOLDER, "Note.md"]


def _sync_then(path: Path, monkeypatch: pytest.MonkeyPatch, then: Callable[[], None]) -> None:
    """A sync tool's rename (its save: EDITORS) lands just before Ora's swap, and `then` just
    after it, while the note shows Ora's edit."""
    real, calls = write._exchange, [0]

    def exchange(a: Path, b: Path) -> bool:
        calls[0] += 1
        if calls[0] == 1:
            _rename_save(path, EDITORS)()
        swapped = real(a, b)
        if calls[0] == 1:
            then()
        return swapped

    monkeypatch.setattr(write, "_exchange", exchange)


@pytest.mark.skipif(getattr(write, "_EXCHANGE", None) is None,
                    reason="no atomic exchange on this system")
def test_a_rename_save_over_oras_copy_keeps_the_sync_tools_save_it_displaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: the editor's save stayed in the note, and the sync tool's, put back at Ora's
    # temporary name, was deleted with it: in no file at all.
    path = _original_note(tmp_path)
    vault = path.parent
    _sync_then(path, monkeypatch, _rename_save(path, LATER_SAVE))
    with pytest.raises(Conflict, match=r"the note holds one.*kept in \.trash/Note\.md"):
        atomic_write(path, ORAS, content_hash(ORIGINAL), "Note.md")
    assert path.read_bytes() == LATER_SAVE
    assert (vault / TRASH_FOLDER / "Note.md").read_bytes() == EDITORS
    assert sorted(p.name for p in vault.iterdir()) == [TRASH_FOLDER, "Note.md"]


@pytest.mark.skipif(getattr(write, "_EXCHANGE", None) is None,
                    reason="no atomic exchange on this system")
def test_a_note_deleted_just_after_the_swap_is_a_conflict_and_its_text_goes_to_the_trash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: FileNotFoundError (not a Conflict), and the sync tool's save, at Ora's temporary
    # name, was deleted: nothing was left anywhere.
    path = _original_note(tmp_path)
    vault = path.parent
    _sync_then(path, monkeypatch, path.unlink)
    with pytest.raises(Conflict, match=r"removed.*kept in \.trash/Note\.md"):
        atomic_write(path, ORAS, content_hash(ORIGINAL), "Note.md")
    assert not path.exists()
    assert (vault / TRASH_FOLDER / "Note.md").read_bytes() == EDITORS
    assert sorted(p.name for p in vault.iterdir()) == [TRASH_FOLDER]
