"""Writes racing an editor that saves in place (truncate, then write): nothing may be lost.

A real editor process saves a new version of the note the way many editors do (open with
O_TRUNC, a pause, write) while `fix_dates` runs in this process. The editor learns from inotify
the moment the fix reads the note and truncates then, or a little later, so every round hits
the race instead of hoping for it. Afterwards the note must hold the editor's latest save,
exactly or with the dates added on top: never an earlier version, never the frontmatter alone.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sidecar.errors import Conflict
from sidecar.lint.diagnostics import fix_dates
from sidecar.vault.edit import append_to_note, edit_frontmatter
from sidecar.vault.frontmatter_edit import set_value
from sidecar.vault.write import atomic_write, content_hash

# After the fix's read the editor waits DELAY = span * fraction (span: one whole fix) before
# its truncate; 0 is the moment right after the read, where today's second read used to land.
FRACTIONS = (0.0, 0.25, 0.0, 0.5, 0.0, 0.75, 0.0, 1.0) * 2
# For each line "DELAY GAP VERSION-FILE": watch the note, say "ready", wait until the note is
# read, wait DELAY, truncate, wait GAP, write VERSION-FILE's bytes, say "saved".
EDITOR = r"""
import ctypes, os, select, sys, time
IN_ACCESS = 0x1
libc = ctypes.CDLL(None, use_errno=True)
events = libc.inotify_init1(os.O_NONBLOCK)
path = sys.argv[1]
for line in sys.stdin:
    delay, gap, source = line.split()
    body = open(source, "rb").read()
    libc.inotify_add_watch(events, path.encode(), IN_ACCESS)  # the note's current file
    while select.select([events], [], [], 0)[0]:
        os.read(events, 65536)
    print("ready", flush=True)
    if select.select([events], [], [], 10)[0]:
        os.read(events, 65536)
    time.sleep(float(delay))
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    time.sleep(float(gap))
    os.write(fd, body)
    os.close(fd)
    print("saved", flush=True)
"""
# A long list in the frontmatter (tags, aliases) makes reading it take milliseconds.
TAGS = "".join(f"  - tag{i}\n" for i in range(500))


def _version(n: int) -> str:
    return f"---\ntype: engram\ntags:\n{TAGS}---\n# Note\n\nBody of version {n}.\n"


@pytest.fixture
def note(tmp_path: Path) -> Path:
    (tmp_path / "vault").mkdir()
    path = tmp_path / "vault" / "Note.md"
    path.write_text(_version(0), encoding="utf-8")
    return path


@pytest.fixture
def editor(note: Path) -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen([sys.executable, "-c", EDITOR, str(note)], text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    yield proc
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(10)


@pytest.mark.skipif(sys.platform != "linux", reason="the editor waits on Linux inotify")
def test_lint_fix_racing_an_in_place_save_never_loses_the_save(
    note: Path, editor: subprocess.Popen[str], tmp_path: Path
) -> None:
    assert editor.stdin is not None and editor.stdout is not None
    vault, saved = note.parent, tmp_path / "saved.md"
    fix_dates(vault, note.name)  # warm up (schema, YAML), then learn how long one fix takes
    note.write_text(_version(0), encoding="utf-8")
    started = time.perf_counter()
    fix_dates(vault, note.name)
    span = time.perf_counter() - started
    outcomes = {"fixed": 0, "refused": 0, "lost": 0}
    first_loss = b""
    for n, fraction in enumerate(FRACTIONS, 1):
        note.write_text(_version(n - 1), encoding="utf-8")  # no dates: there is work to do
        saved.write_text(_version(n), encoding="utf-8")
        editor.stdin.write(f"{span * fraction} {span / 4} {saved}\n")
        editor.stdin.flush()
        assert editor.stdout.readline() == "ready\n"
        try:
            fix_dates(vault, note.name)
            outcomes["fixed"] += 1
        except Conflict:
            outcomes["refused"] += 1  # the editor won this round: the right answer
        assert editor.stdout.readline() == "saved\n"
        final = note.read_bytes()
        if f"Body of version {n}.".encode() not in final or b"tag499" not in final:
            outcomes["lost"] += 1
            first_loss = first_loss or final
    assert outcomes["lost"] == 0, (outcomes, first_loss[:200])


def test_an_empty_file_is_never_edited(note: Path) -> None:
    note.write_bytes(b"")  # what an editor's truncate leaves until its write
    with pytest.raises(Conflict, match="empty"):
        edit_frontmatter(note.parent, note.name, lambda cm: set_value(cm, "type", "engram"))
    assert note.read_bytes() == b""


def test_a_write_is_checked_against_the_bytes_it_was_planned_from(note: Path) -> None:
    planned = note.read_bytes()
    note.write_bytes(b"")  # the editor truncated after the plan
    with pytest.raises(Conflict):
        atomic_write(note, b"---\ntype: engram\n---\n", content_hash(planned))
    assert note.read_bytes() == b""
    assert sorted(p.name for p in note.parent.iterdir()) == ["Note.md"]  # nothing left behind


def test_nothing_is_appended_to_an_empty_note(note: Path) -> None:
    note.write_bytes(b"")
    with pytest.raises(Conflict, match="empty"):
        append_to_note(note.parent, note.name, "A new line.\n")
    assert note.read_bytes() == b""
