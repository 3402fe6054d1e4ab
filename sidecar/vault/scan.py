"""Which files of a vault are notes, and vault-relative paths that cannot escape the vault.

Paths are vault-relative with `/` separators everywhere in the sidecar. Dot-folders (`.obsidian/`,
`.ora/`, `.trash/`, `.git/`, ...) and dot-files are never notes, as in Obsidian. Symbolic links
are skipped: following them could loop, leave the vault, or let an atomic write replace the
link with a plain file. That holds for every component of a path, not only the last: a note
under a linked folder is not a note of this vault (`symlink_in`, `vault_path`). Only regular
files are notes, and only regular files are ever read (`read_regular`): opening a FIFO named
`pipe.md` waits for a writer forever, and a device or socket is no note either.
"""

from __future__ import annotations

import hashlib
import os
import stat
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath

from sidecar.errors import BadRequest

NOTE_SUFFIX = ".md"


def _is_text(rel: str) -> bool:
    """False for a name whose bytes are not UTF-8 (Python keeps them as lone surrogates, which
    no database, JSON document or terminal accepts)."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_name(rel: str) -> str:
    """`rel` as printable text: bytes of the name that are not UTF-8 shown as `\\xNN`."""
    return os.fsencode(rel).decode("utf-8", "backslashreplace")


# Why a note's name cannot be used (a lint code and what it says): the note is skipped and named.
NAME_PROBLEMS = {
    "file-name-undecodable": "the name is not valid UTF-8",
    # a path of the vault is read with `\` as `/` (normalise_rel): it would name another note
    "file-name-backslash": "the name holds a backslash (\\), which no file's name may hold in "
                           "Obsidian",
}


def name_problem(rel: str) -> str | None:
    """Why the file at `rel` cannot be used by that name (a key of `NAME_PROBLEMS`), or None."""
    if not _is_text(rel):
        return "file-name-undecodable"
    return "file-name-backslash" if "\\" in rel else None


def is_ignored(rel: str) -> bool:
    """True when a vault-relative path is not a note: not `.md`, under a dot-folder, or with a
    name Ora cannot use (see `unusable_names`)."""
    parts = PurePosixPath(rel).parts
    if not parts or not rel.lower().endswith(NOTE_SUFFIX) or name_problem(rel) is not None:
        return True
    return any(part.startswith(".") for part in parts)


def _note_files(root: Path, also: Callable[[str], bool] | None = None) -> Iterator[str]:
    """Vault-relative paths of `.md` files (and of those whose name `also` accepts) outside
    dot-folders, links not followed."""
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        base = Path(folder)
        for name in files:
            full = base / name
            wanted = name.lower().endswith(NOTE_SUFFIX) or (also is not None and also(name))
            if wanted and not name.startswith(".") and _is_regular(full):
                yield full.relative_to(root).as_posix()


def _is_regular(path: Path) -> bool:
    """True for a regular file itself (not a link, FIFO, socket or device)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:  # gone meanwhile
        return False


class NotRegularFile(OSError):
    """A path that is not a regular file (a folder, FIFO, socket or device) where a file is read."""


READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


def content_hash(data: bytes) -> str:
    """sha256 hex of a file's bytes: the version token edits are checked against."""
    return hashlib.sha256(data).hexdigest()


FileStamp = tuple[int, int, int, int] | None  # (size, mtime_ns, ctime_ns, inode); None: no file


def file_stamp(path: Path) -> FileStamp:
    """What tells a file's change without reading it: its size, times and inode (an editor's
    save by rename is a new inode), or None when there is no file."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


def read_regular(path: Path, limit: int | None = None) -> bytes:
    """The bytes of the regular file at `path` (at most `limit` + 1 of them when given, so a
    caller can tell it is over); NotRegularFile for anything else. The file is opened without
    blocking (O_NONBLOCK) and checked on the open descriptor, so a FIFO put in its place
    between a check and the open can never hang the reader."""
    fd = os.open(path, READ_FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise NotRegularFile(f"{path.name} is a folder, not a file")
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"{path.name} is not a regular file (a pipe, socket or device)")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read() if limit is None else handle.read(limit + 1)
    finally:
        os.close(fd)


def iter_note_paths(vault: str | Path) -> Iterator[str]:
    """Every note of the vault as a vault-relative `/` path, in sorted order."""
    yield from sorted(rel for rel in _note_files(Path(vault)) if not is_ignored(rel))


def unusable_names(vault: str | Path,
                   also: Callable[[str], bool] | None = None) -> list[tuple[str, str]]:
    """Notes (and files whose name `also` accepts: documents) skipped because their name (or a
    folder's) cannot be used (`NAME_PROBLEMS`), as (`shown_name`, problem): each run reports
    them by name instead of failing on them or reading another file in their place."""
    return sorted((shown_name(rel), problem) for rel in _note_files(Path(vault), also)
                  if (problem := name_problem(rel)) is not None)


def normalise_rel(rel: str) -> str:
    """`rel` as a clean vault-relative `/` path; BadRequest if it is absolute or climbs out."""
    posix = PurePosixPath(rel.replace("\\", "/"))
    if posix.is_absolute() or not posix.parts or ".." in posix.parts:
        raise BadRequest(f"not a path inside the vault: {rel!r}")
    return posix.as_posix()


def composed_name(name: str) -> str:
    """`name` composed (NFC): a name macOS saved decomposed (NFD) is the name as typed."""
    return name if unicodedata.is_normalized("NFC", name) else unicodedata.normalize("NFC", name)


def folded(name: str) -> str:
    """`name` composed (NFC) and case-folded (composed again: folding can decompose, `ǰ`): how
    names are compared, so `Hinweisblöcke` typed composed names a file saved decomposed, and `Ä`
    names `ä`, as Obsidian, macOS and Windows take them."""
    return composed_name(composed_name(name).casefold())


def as_saved(vault: str | Path, rel: str) -> str:
    """`rel` as the vault saved it, where a name was typed composed and saved decomposed (NFD,
    as macOS saves names) or the reverse; `rel` itself when it is there, or no such note is."""
    current = Path(vault)
    if (current / rel).exists():
        return rel
    found = []
    for part in PurePosixPath(rel).parts:
        if not (current / part).exists():
            typed = composed_name(part)
            try:
                part = next(e.name for e in os.scandir(current)
                            if composed_name(e.name) == typed)
            except (OSError, StopIteration):
                return rel
        found.append(part)
        current = current / part
    return "/".join(found)


def symlink_in(vault: str | Path, rel: str) -> str | None:
    """The leading part of `rel` that is a symbolic link (a linked folder or note), or None.

    Components that do not exist (yet) cannot be links; the vault folder itself may be one.
    """
    current = Path(vault)
    parts = PurePosixPath(rel).parts
    for i, part in enumerate(parts):
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except (FileNotFoundError, NotADirectoryError):
            return None
        if stat.S_ISLNK(mode):
            return "/".join(parts[: i + 1])
    return None


def vault_path(vault: str | Path, rel: str) -> Path:
    """The file path of a vault-relative path, checked to stay inside the vault: BadRequest if
    it is absolute, climbs out, or passes through a symbolic link (folder or note)."""
    clean = normalise_rel(rel)
    link = symlink_in(vault, clean)
    if link is not None:
        raise BadRequest(f"{clean}: {link} is a symbolic link, and Ora does not follow links "
                         "(they can lead out of the vault); use the file it points to")
    return Path(vault) / clean
