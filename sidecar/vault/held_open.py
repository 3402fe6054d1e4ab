"""Whether another program holds a file open for writing, told by a Linux read lease, and what
becomes of a file taken out of the vault that a program may still save into.

An editor that saves in place (truncate, then write) may have opened a note before Ora's writer
(`write.py`) took it out, and write into it after any check of its bytes. The kernel grants a read
lease only while no program holds the file open for writing, and breaks it when one opens it so
meanwhile; that is all this module asks of it. Leases are trusted only where one is granted on
Ora's own new file (`leases_tell`): a network share may refuse every lease as if each file were
held. Where there are none (not Linux, a filesystem without them) only the bytes are checked.
"""

from __future__ import annotations

import errno
import itertools
import os
import signal
import stat
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from sidecar.vault.scan import READ_FLAGS, content_hash

try:
    import fcntl
except ImportError:  # not a POSIX system: no leases
    fcntl = None  # type: ignore[assignment]

# Bytes of one file name (ext4, APFS, and most others): a name built from a note's own name plus
# a suffix (a numbered trash name, the writer's temporary copy) is cut to fit (`fit_name`).
NAME_MAX = 255
# A lease break would signal SIGIO, whose default action ends the process; SIGURG's is to ignore.
_LEASE_SIGNAL = getattr(signal, "SIGURG", 0)


def read_lease(fd: int) -> bool | None:
    """Take a read lease on the file open (read-only) at `fd`: True when taken, which the kernel
    grants only while no program (this one included) holds the file open for writing; False
    when one does; None where there are no leases (not Linux, a filesystem without them, a file
    owned by another account). Closing `fd` drops the lease."""
    if fcntl is None or not hasattr(fcntl, "F_SETLEASE"):
        return None
    try:
        fcntl.fcntl(fd, fcntl.F_SETSIG, _LEASE_SIGNAL)
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
    except OSError as exc:
        return False if exc.errno == errno.EAGAIN else None
    return True


def leases_tell(ours: Path) -> bool:
    """True where a read lease tells whether a file is held open for writing: one is granted on
    `ours`, Ora's own new file, which no program holds open. (A network share may refuse every
    lease as if the file were held: there the leases are not asked.)"""
    fd = os.open(ours, READ_FLAGS)
    try:
        return bool(read_lease(fd))
    finally:
        os.close(fd)


def lease_kept(fd: int) -> bool:
    """False once a program began opening the leased file at `fd` for writing (the kernel is
    breaking the lease; that open waits until the lease is dropped)."""
    assert fcntl is not None
    return bool(fcntl.fcntl(fd, fcntl.F_GETLEASE) == fcntl.F_RDLCK)


def fd_hash(fd: int) -> str:
    """`content_hash` of the whole file open at `fd`."""
    with os.fdopen(fd, "rb", closefd=False) as handle:
        handle.seek(0)
        return content_hash(handle.read())


def untouched(fd: int, old: Path, read_hash: str, leased: bool) -> bool:
    """True when the file swapped out to `old` is the one open at `fd`, holds the bytes hashed
    `read_hash`, and (`leased`) no program began opening it for writing meanwhile."""
    try:
        if not os.path.samestat(os.fstat(fd), os.lstat(old)) or fd_hash(fd) != read_hash:
            return False
    except OSError:
        return False
    return not leased or lease_kept(fd)


def let_go(old: Path, expected: str, leases: bool) -> bool:
    """True when the file named `old`, just taken out of the note, may be dropped: it holds the
    bytes hashed `expected`, and (with `leases`) no save can still go into it.

    An editor that saves in place (truncate, then write) may have opened the file before it
    was taken out and write after any check of the bytes: its save would go into a file no
    longer in the vault, and be lost. So the file is let go only if a read lease on it is
    granted (none is while a program holds it open for writing), the bytes are the expected
    ones, and the lease still holds after reading them (an open for writing meanwhile breaks
    it). Without leases only the bytes are checked."""
    fd = os.open(old, READ_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO renamed in: not the checked file
            return False
        leased = read_lease(fd) if leases else None
        if leased is False:  # a program holds it open for writing: its save may come yet
            return False
        if fd_hash(fd) != expected:
            return False
        return not leased or lease_kept(fd)
    finally:
        os.close(fd)


def held_for_writing(path: Path) -> bool:
    """True when leases tell that a program holds the file at `path` open for writing."""
    try:
        fd = os.open(path, READ_FLAGS)
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode) and read_lease(fd) is False
    finally:
        os.close(fd)


def trash_names(name: str) -> Iterator[str]:
    """The names a file called `name` may take in the trash, first free first: `name`, then
    `name 1`, `name 2`, … before its extension, as Obsidian's trash does; a numbered name is
    cut to fit NAME_MAX bytes."""
    path = PurePosixPath(name)
    yield name
    stem, suffix = path.stem, path.suffix
    if len(os.fsencode(suffix)) > NAME_MAX // 2:  # no real extension: number the whole name
        stem, suffix = name, ""
    for n in itertools.count(1):
        tail = f" {n}{suffix}"  # a long name's stem is cut so the numbered name still fits
        yield fit_name(stem, NAME_MAX - len(os.fsencode(tail))) + tail


def fit_name(name: str, room: int) -> str:
    """`name` cut to at most `room` bytes as the filesystem spells it, at a UTF-8 character
    boundary (never half a character); `name` itself when it fits."""
    raw = os.fsencode(name)
    if len(raw) <= room:
        return name
    cut = room
    while cut > 0 and raw[cut] & 0xC0 == 0x80:  # a continuation byte: step back to a start
        cut -= 1
    return os.fsdecode(raw[:cut])


def keep(detached: Path, trash: Path, name: str) -> str:
    """Move `detached` (a file a program may still be saving into) into `trash` under `name`,
    never over a file there (`name 1`, `name 2`, … as the trash does); where it went. If the
    trash cannot take it, it stays beside the note under a hidden `.ora-kept` name."""
    try:
        trash.mkdir(exist_ok=True)
        if trash.is_symlink():
            raise NotADirectoryError(str(trash))
        for candidate in map(trash.joinpath, trash_names(name)):
            try:
                os.link(detached, candidate)
            except FileExistsError:
                continue
            except OSError:  # no hard links here (FAT, some network shares): a free name
                if os.path.lexists(candidate):
                    continue
                os.rename(detached, candidate)
                return f"{trash.name}/{candidate.name}"
            os.unlink(detached)
            return f"{trash.name}/{candidate.name}"
    except OSError:
        pass
    kept = detached.with_suffix(".ora-kept")
    os.rename(detached, kept)
    return kept.name
