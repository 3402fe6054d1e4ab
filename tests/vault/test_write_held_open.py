"""The writer and an editor that holds the note open and saves in place (truncate, then write on
its open file): the editor's save always lands in the vault.

Ora's write swaps a new file in for the old one. An editor that opened the note before the swap
writes into the old file, however late; once that file is let go, the save is in no file of the
vault. So the old file is let go only while no program holds it open for writing (a Linux read
lease), and a file a program may still be saving into is never deleted.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import re
import signal
import threading
import time
from pathlib import Path

import pytest

from sidecar.errors import Conflict
from sidecar.lint.diagnostics import fix_dates
from sidecar.vault import write
from sidecar.vault.write import atomic_write, content_hash

ORIGINAL = b"---\ntype: engram\n---\n# Note\n\nThe text Ora read.\n"
ORAS = b"---\ntype: engram\ndate modified: 2024-01-02\n---\n# Note\n\nThe text Ora read.\n"
EDITORS = b"---\ntype: engram\n---\n# Note\n\nThe text Ora read, and a hand edit.\n"
LATER = EDITORS + b"\nAnd a later save.\n"


@pytest.fixture
def note(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    path = vault / "Note.md"
    path.write_bytes(ORIGINAL)
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.fcntl(fd, fcntl.F_SETSIG, signal.SIGURG)  # a break must not end the test run
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
    except (AttributeError, OSError):
        pytest.skip("no file leases on this system or filesystem")
    finally:
        os.close(fd)
    return path


def _save_in_place(fd: int, data: bytes) -> None:
    os.ftruncate(fd, 0)
    os.pwrite(fd, data, 0)
    os.close(fd)


def test_a_save_by_an_editor_holding_the_note_open_lands_in_the_note(note: Path) -> None:
    # Before: the write answered success, the editor's save went into the swapped-out file
    # and the note held Ora's version.
    fd = os.open(note, os.O_WRONLY)  # the editor has the note open; its save is to come
    with pytest.raises(Conflict):
        atomic_write(note, ORAS, content_hash(ORIGINAL), "Note.md")
    _save_in_place(fd, EDITORS)
    assert note.read_bytes() == EDITORS
    assert sorted(p.name for p in note.parent.iterdir()) == ["Note.md"]


def test_an_editor_opening_the_old_file_while_ora_checks_it_is_seen(
    note: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An editor that found the note before the swap and opens it just after: its open breaks
    # Ora's lease (and waits for it); the lease's signal does not end this process.
    opened: list[int] = []
    real_lease, old = write.read_lease, note.stat().st_ino

    def lease_then_editor_opens(fd: int) -> bool | None:
        taken = real_lease(fd)
        if taken and not opened and os.fstat(fd).st_ino == old:  # the old file, swapped out
            name = os.readlink(f"/proc/self/fd/{fd}")
            threading.Thread(target=lambda: opened.append(os.open(name, os.O_WRONLY))).start()
            deadline = time.monotonic() + 5
            while fcntl.fcntl(fd, fcntl.F_GETLEASE) == fcntl.F_RDLCK:  # until it is breaking
                assert time.monotonic() < deadline
                time.sleep(0.001)
        return taken

    monkeypatch.setattr(write, "read_lease", lease_then_editor_opens)
    with pytest.raises(Conflict):
        atomic_write(note, ORAS, content_hash(ORIGINAL), "Note.md")
    deadline = time.monotonic() + 5
    while not opened:
        assert time.monotonic() < deadline
        time.sleep(0.001)
    _save_in_place(opened[0], EDITORS)
    assert note.read_bytes() == EDITORS


def test_a_save_into_oras_copy_while_it_is_put_back_is_kept_in_the_trash(
    note: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An editor's save by rename lands just before Ora's swap (so Ora puts it back), and another
    # program opens the note while Ora's copy is in place and saves into that: the copy is not
    # deleted.
    real = write._exchange
    held: list[int] = []

    def exchange(a: Path, b: Path) -> bool:
        if note.read_bytes() == ORIGINAL:  # before Ora's swap
            editors = note.with_name(".Note.md.editor-swp")
            editors.write_bytes(EDITORS)
            os.rename(editors, note)
        elif not held:  # before Ora puts the editor's file back: Ora's copy is at the note
            held.append(os.open(note, os.O_WRONLY))
        return real(a, b)

    monkeypatch.setattr(write, "_exchange", exchange)
    with pytest.raises(Conflict, match=r"kept in \.trash/Note\.md"):
        atomic_write(note, ORAS, content_hash(ORIGINAL), "Note.md")
    _save_in_place(held[0], LATER)
    assert note.read_bytes() == EDITORS
    assert (note.parent / ".trash" / "Note.md").read_bytes() == LATER
    assert sorted(p.name for p in note.parent.iterdir()) == [".trash", "Note.md"]


def _version(n: int) -> bytes:
    return (f"---\ntype: resource\nnexus: []\ntags: []\ndate created: 2020-01-01\n"
            f"date modified: 2020-01-02\n---\nv{n} body\n").encode()


def _editor(path: Path, stop: threading.Event, last: list[int]) -> None:
    n = 0
    while not stop.is_set():
        n += 1
        fd = os.open(path, os.O_WRONLY)  # opened, a moment's pause, then the save in place
        time.sleep(random.uniform(0, 0.001))
        _save_in_place(fd, _version(n))
        last[0] = n
        time.sleep(random.uniform(0.0002, 0.002))


def test_lint_fix_racing_an_editor_that_saves_in_place_never_loses_a_save(note: Path) -> None:
    # Before: 39-45 of 150 such rounds lost the editor's latest save.
    lost = []
    for trial in range(40):
        note.write_bytes(_version(0))
        stop, last = threading.Event(), [0]
        editor = threading.Thread(target=_editor, args=(note, stop, last))
        editor.start()
        time.sleep(0.003)
        for _ in range(5):
            with contextlib.suppress(Conflict):  # the editor won this one: the right answer
                fix_dates(note.parent, note.name)
        stop.set()
        editor.join()
        found = re.search(rb"v(\d+) body", note.read_bytes())
        if found is None or int(found.group(1)) != last[0]:
            lost.append((trial, last[0], found and found.group(0)))
    assert lost == []
    assert not (note.parent / ".trash").exists()
