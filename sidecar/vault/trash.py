"""Moves to the trash and back: a note linked into the trash and its old name dropped, an undo's
bytes put back, a trashed note restored; each checked against the bytes it was planned from, as
`write.py` checks an edit, and never over a file.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path, PurePosixPath

from sidecar.errors import Conflict, NoteNotWritable
from sidecar.vault.held_open import trash_names
from sidecar.vault.scan import normalise_rel, vault_path
from sidecar.vault.temp_files import hidden_name
from sidecar.vault.trash_place import TRASH_FOLDER
from sidecar.vault.write import (
    atomic_write,
    check_hash,
    check_writable,
    fsync_dir,
    hash_of,
    not_writable,
    read_bytes,
)


def _trash_folder(vault: str | Path, folder: str = TRASH_FOLDER) -> Path:
    trash = Path(vault) / folder
    if trash.is_symlink():  # a move through it could leave the vault
        raise NoteNotWritable(f"{folder} is a symbolic link; Ora will not move notes into it")
    trash.mkdir(exist_ok=True)
    return trash


def _link_into_trash(src: Path, trash: Path, name: PurePosixPath, planned: str) -> str:
    """Give `src` a name in the trash (never overwriting), drop its old name; the new name.

    As with edits, the move is checked against the planned bytes before the old name goes
    and after: a save that reached the file meanwhile puts it back and is a Conflict.
    """
    for candidate in trash_names(name.name):
        dst = trash / candidate
        try:
            os.link(src, dst)  # fails if dst exists: no overwrite, no race
        except FileExistsError:
            continue
        except OSError as exc:  # no hard links on this filesystem (or an immutable file)
            if isinstance(exc, PermissionError):
                raise
            if dst.exists():
                continue
            os.rename(src, dst)
            return candidate
        if hash_of(dst) != planned:
            dst.unlink()
            raise Conflict(f"{name} changed while it was being moved; try again")
        _drop_name(src, dst, name)
        if hash_of(dst) != planned:  # an in-place save reached it during the move
            with contextlib.suppress(FileExistsError):
                os.link(dst, src)
            dst.unlink()
            raise Conflict(f"{name} changed while it was being moved; try again")
        fsync_dir(src.parent)
        return candidate
    raise AssertionError("unreachable")


def _drop_name(src: Path, dst: Path, name: PurePosixPath) -> None:
    """Remove the name `src` if it still names the file just linked to `dst`. An unlink would
    take whatever `src` names by then, an editor's save renamed over it too; a rename to a
    hidden name moves exactly that file, which can then be told from ours and put back."""
    aside = src.with_name(hidden_name(src.name, ".ora-old"))
    try:
        os.rename(src, aside)
    except FileNotFoundError:  # removed meanwhile: the trash holds the checked file anyway
        return
    try:
        if not os.path.samestat(os.lstat(aside), os.lstat(dst)):  # another writer's save
            with contextlib.suppress(FileExistsError):  # a newer save stands instead
                os.link(aside, src)
            dst.unlink()
            raise Conflict(f"{name} changed while it was being moved; try again")
    finally:
        aside.unlink()


def move_to_trash(vault: str | Path, rel: str, expected_hash: str | None,
                  trash: str = TRASH_FOLDER) -> str:
    """Move a note to the vault-relative folder `trash` (VAULT/.trash/ as Obsidian does, or
    a private one: `trash_of`), never overwriting; its new rel path."""
    rel = normalise_rel(rel)
    src = vault_path(vault, rel)
    planned = check_hash(read_bytes(src, rel), expected_hash, rel)
    check_writable(src, rel)
    try:
        candidate = _link_into_trash(src, _trash_folder(vault, trash), PurePosixPath(rel),
                                     planned)
    except PermissionError as exc:
        raise not_writable(rel, exc) from exc
    return f"{trash}/{candidate}"


def restore_bytes(vault: str | Path, rel: str, data: bytes, expected_hash: str) -> None:
    """Put earlier bytes back into VAULT/rel (an undo), atomically, only while the file still
    hashes `expected_hash` (Conflict otherwise)."""
    path = vault_path(vault, rel)
    check_hash(read_bytes(path, rel), expected_hash, rel)
    atomic_write(path, data, expected_hash, rel)


def restore_from_trash(vault: str | Path, trash_rel: str, rel: str, expected_hash: str) -> None:
    """Move a note that `move_to_trash` moved back to `rel`, if it still hashes
    `expected_hash` and nothing has taken its place (Conflict otherwise; never overwrites)."""
    src, dst = vault_path(vault, trash_rel), vault_path(vault, rel)
    check_hash(read_bytes(src, trash_rel), expected_hash, trash_rel)
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
    except FileExistsError as exc:
        raise Conflict(f"{rel} exists again; nothing was restored") from exc
    except OSError:  # no hard links on this filesystem
        if dst.exists():
            raise Conflict(f"{rel} exists again; nothing was restored") from None
        os.rename(src, dst)
        return
    os.unlink(src)
    fsync_dir(src.parent)
