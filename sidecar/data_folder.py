"""The data folder holds private notes' text (chunks, claims, conversations): only its owner may
read it. Folders are created 0700 and files 0600, and an existing install is tightened when a
store opens, whatever the umask was.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from sidecar.errors import BadRequest

FOLDER_MODE = 0o700
FILE_MODE = 0o600
# Files SQLite keeps next to a database (it copies the database's mode when creating them).
_SQLITE_SIDES = ("-wal", "-shm", "-journal")


def _tighten(path: Path, mode: int) -> None:
    with contextlib.suppress(FileNotFoundError, PermissionError):  # not ours to change
        if stat.S_IMODE(path.stat().st_mode) & ~mode:
            path.chmod(mode)


def private_folder(path: Path, *, create: bool = True) -> Path:
    """Create `path` (and its parents) as needed (with `create`); `path` itself ends up 0700.
    BadRequest when no folder can be there (`--data` naming a file, a path under a file, or a
    place where nothing can be created), or when it is a folder of notes (`_notes_in`): a usage
    error, said in one line."""
    note = _notes_in(path)
    if note is not None:  # refused before any chmod: the folder is the user's, not Ora's
        raise BadRequest(f"{path} cannot be a data folder: it holds notes ({note}), and Ora "
                         "would make it private (0700) and put its index among them; give a "
                         "new or empty folder, or the default VAULT/.ora")
    if create:
        try:
            path.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError, FileNotFoundError) as exc:
            raise BadRequest(f"{path} cannot be a data folder ({_why_not(path, exc)}); give a "
                             "folder, or a path where one can be created") from exc
    _tighten(path, FOLDER_MODE)
    return path


def _notes_in(path: Path) -> str | None:
    """The name of a note (a `.md` file) or of a vault's `.obsidian` folder directly in the
    existing folder `path`, else None: such a folder is the user's (`--data VAULT/Daily`), while
    Ora's own data folder (the default VAULT/.ora) never holds either."""
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.name == ".obsidian" or entry.name.lower().endswith(".md"):
                    return entry.name
    except OSError:  # not there yet (or not a folder: mkdir says so)
        return None
    return None


def _why_not(path: Path, exc: OSError) -> str:
    """Why `path` cannot be made a folder: it, or the nearest of its parents that exists, is
    not a folder; else what the system said (a file system that takes no new folder, /proc)."""
    for place in (path, *path.parents):
        if place.exists() or place.is_symlink():
            if place.is_dir():
                break
            return "it is a file" if place == path else f"{place} is a file"
    return f"no folder can be created there: {exc.strerror or type(exc).__name__}"


def private_tree(folder: Path) -> None:
    """Tighten every folder under `folder` to 0700 and every file to 0600 (a store that
    creates its own files, as Chroma does, with the process's umask)."""
    for base, dirs, files in os.walk(folder):
        for name in dirs:
            _tighten(Path(base) / name, FOLDER_MODE)
        for name in files:
            _tighten(Path(base) / name, FILE_MODE)


def private_file(path: Path) -> Path:
    """Create `path` empty with mode 0600 unless it exists; an existing one (and SQLite's files
    beside it) is tightened to 0600."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    for suffix in ("", *_SQLITE_SIDES):
        _tighten(path.with_name(path.name + suffix), FILE_MODE)
    return path
