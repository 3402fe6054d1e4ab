"""The writer's temporary copies: their hidden names beside a file (`.NAME.xxxxxxxx.ora-tmp`, NAME
cut to fit NAME_MAX), and the sweep of those a killed write left.

They are cleared by a later write in their folder (`sweep_beside`), and in the whole vault at
start-up (`sweep_vault`): moved to the trash unless their bytes are kept elsewhere, for they may
hold another program's save.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
import time
from collections.abc import Collection, Iterable
from pathlib import Path

from sidecar.errors import OraError
from sidecar.vault.held_open import NAME_MAX, fit_name, keep, trash_names
from sidecar.vault.scan import read_regular, vault_path
from sidecar.vault.trash_place import trash_of_folder
from sidecar.vault.vault_settings import VaultSettings, is_excluded

# The writer's own temporary copies (`write._new_file`): a hidden `.NAME.xxxxxxxx.ora-tmp` beside
# the file NAME. Never its `.ora-old` (`write._replace_checked`, `trash._drop_name`): that name
# can hold the only copy of another program's save, and a file's ctime is its creation time on
# Windows.
_TEMP_NAME = re.compile(r"\.(?P<name>.+)\.[0-9a-f]{8}\.ora-tmp")
# The bytes NAME may take in `.NAME.xxxxxxxx.ora-tmp` so that it, and the `.ora-old` and
# `.ora-kept` names made from it (`write._replace_checked`, `held_open.keep`), fit NAME_MAX: a
# longer note name is cut (`_temp_part`), and the sweep finds its note by the cut (`_notes_of`).
_NAME_ROOM = NAME_MAX - len("..01234567.ora-kept")
# Far longer than any one write lives: a held `.ora-old` waits at most the lease break time
# (45 s on Linux). Its link or rename refreshes its ctime, which is what is compared.
TEMP_STALE_S = 600.0
# A folder is swept by the writer at most this often per process (`sweep_beside`): a file
# turns stale only after TEMP_STALE_S, so sweeping more often would find nothing more.
SWEEP_EVERY_S = 60.0
_swept: dict[str, float] = {}  # folder -> time.monotonic() of this process's last sweep of it


def sweep_temp_files(folder: Path, names: Collection[str] = (), now: float | None = None,
                     vault: Path | None = None,
                     settings: VaultSettings | None = None) -> list[str]:
    """Clear `folder` (not below) of the temporary files the writer left when its process died
    mid-write (SIGKILL, a power cut): only a regular file of the writer's own temporary name,
    untouched for `TEMP_STALE_S`, or at once when its NAME is one of `names` (notes whose
    writer is known to be gone: an ingest's, under the ingest lock; a long NAME as cut,
    `_temp_part`). Nothing else is touched.
    Such a file may hold the only copy of another program's save (after the writer's exchange
    it holds what was in the note), so it is deleted only when its bytes are none, the note's
    own, or in the trash already (`_kept_elsewhere`); any other is moved to the trash a note of
    `folder` goes to (`trash_of_folder`; by `settings` when given, else the vault's ora.yaml), as
    Ora keeps every file it takes out of a note. The names taken out of `folder`."""
    now = time.time() if now is None else now
    taken: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return taken
    trash: Path | None = None  # found once something must be kept
    gone = {_temp_part(name) for name in names}  # as the temporary names spell them
    for entry in entries:
        found = _TEMP_NAME.fullmatch(entry.name)
        if found is None:  # the name first: most entries are notes, and need no stat
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        stale = now - max(st.st_mtime, st.st_ctime) > TEMP_STALE_S
        if not stat.S_ISREG(st.st_mode) or not (found["name"] in gone or stale):
            continue
        temp, notes = Path(entry.path), _notes_of(found["name"], entries)
        with contextlib.suppress(OSError):  # gone meanwhile, or it will not move: it stays
            if st.st_size and not any(_same_bytes(temp, Path(folder, n)) for n in notes):
                trash = trash or trash_of_folder(Path(folder), vault, settings)
                if not any(_kept_elsewhere(temp, trash, n) for n in notes):
                    keep(temp, trash, notes[0])
                    taken.append(entry.name)
                    continue
            os.unlink(temp)
            taken.append(entry.name)
    return taken


def _temp_part(name: str) -> str:
    """The NAME part of the writer's temporary names for the file `name`: `name`, cut to
    _NAME_ROOM bytes when longer."""
    return fit_name(name, _NAME_ROOM)


def _notes_of(part: str, entries: Iterable[os.DirEntry[str]]) -> list[str]:
    """The names of `entries` whose temporary copies have the NAME part `part`: `part` itself,
    or when `part` may be a long name cut (`_temp_part`), every name it is the cut of (more
    than one if long names begin alike; a copy matching any of them is theirs). `part` alone
    when none is there (the note gone since)."""
    if len(os.fsencode(part)) < _NAME_ROOM - 3:  # a cut is never more than 3 bytes short
        return [part]
    return [e.name for e in entries if _temp_part(e.name) == part] or [part]


def _same_bytes(a: Path, b: Path) -> bool:
    """True when the regular files `a` and `b` both exist and hold the same bytes."""
    try:
        if os.lstat(a).st_size != os.lstat(b).st_size:
            return False
        return read_regular(a) == read_regular(b)
    except OSError:
        return False


def _kept_elsewhere(temp: Path, trash: Path, name: str) -> bool:
    """True when a copy of `temp`'s bytes is in `trash` under `name` (or `name 1`, … as the
    trash names them): an earlier sweep or write kept it, and a second adds nothing."""
    for candidate in map(trash.joinpath, trash_names(name)):
        if not os.path.lexists(candidate):
            return False
        if _same_bytes(temp, candidate):
            return True
    raise AssertionError("unreachable")


def sweep_vault(vault: Path, walked: Iterable[str], settings: VaultSettings) -> list[str]:
    """Sweep the whole vault once (`sweep_temp_files`, same rules: stale copies only, kept in
    the trash a note of their folder goes to by `settings`): each folder holding a note or
    document of `walked` (the vault's walk, which the caller has made: one walk, not two) that
    `exclude` does not leave out, for Ora leaves excluded notes alone. For start-up (`ora
    serve`, `watch`, `index`: `Index.reconcile`), so a killed write's copy does not wait for
    the next write in its folder. Never fails; the vault-relative names taken."""
    by_folder: dict[str, list[str]] = {}
    for rel in walked:  # by string: thousands of paths, and a Path of each costs more than all
        by_folder.setdefault(rel.rpartition("/")[0], []).append(rel)
    taken: list[str] = []
    for folder, rels in sorted(by_folder.items()):
        if all(is_excluded(settings, rel) for rel in rels):  # most often one call per folder
            continue
        with contextlib.suppress(OSError, OraError):  # a folder gone or linked since the walk
            path = vault_path(vault, folder) if folder else vault
            names = sweep_temp_files(path, vault=vault, settings=settings)
            _swept[str(path)] = time.monotonic()  # the writers need not sweep it again soon
            taken += [f"{folder}/{name}" if folder else name for name in names]
    return taken


def sweep_beside(path: Path, vault: Path | None) -> None:
    """Sweep the folder `path` is written in (`sweep_temp_files`: its stale temporary files
    only; `vault`, when known, holds the trash), at most every SWEEP_EVERY_S in this process:
    so a killed write's copy goes with the next write in its folder, whichever writes there
    (lint fix, adopt, triage, undo, settings). Never fails the write: a folder that will not
    let them go keeps them."""
    folder, clock = str(path.parent), time.monotonic()
    last = _swept.get(folder)
    if last is not None and clock - last < SWEEP_EVERY_S:
        return
    _swept[folder] = clock
    with contextlib.suppress(OSError, OraError):
        sweep_temp_files(path.parent, vault=vault)


def hidden_name(name: str, suffix: str) -> str:
    """A fresh hidden name `.NAME.xxxxxxxx<suffix>` beside the file `name`, NAME cut so that it
    fits NAME_MAX bytes whichever of the writer's suffixes it takes (`_temp_part`)."""
    return f".{_temp_part(name)}.{secrets.token_hex(4)}{suffix}"
