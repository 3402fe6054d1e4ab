"""Notes made private by their own words that the index has not yet filed as private.

A note tagged `#private` (or given `private: true`) leaves the public stores when the index
applies it: its vectors move to the private collection, some tens of milliseconds a note, one
note after another in the watcher's batch. Four hundred notes tagged at once (a tag renamed
across the vault, a template applied) stayed in non-private search for most of half a minute.
So when their change is seen, before any of it is applied, each note the index files as public
is read once more for its privacy alone (`reads_private`), and those that now say private are
held here: every answer outside private mode leaves a held note out (`retrieval/private_now.py`
asks `held_private`), as it leaves out a folder ora.yaml has just made private.

A held note counts as private only while its file still says so: a note made public again (or
its frontmatter mended) before the index applied it is read again at its next ask, once its
size, times or inode changed (`vault/scan.py` `file_stamp`), so a hold never hides what the note
now shows. A hold ends when a write that began after it was placed has applied its path (the
write read the file as it is now); a write that began before may have read the file before the
change. A hold placed by a process is seen by that process only: the server's watcher and its
searches, `ora watch`'s own.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from sidecar.errors import OraError
from sidecar.vault.note import decode_note, parse_note
from sidecar.vault.scan import FileStamp, file_stamp, read_regular
from sidecar.vault.vault_settings import VaultSettings, note_private


@dataclass
class _Hold:
    sequence: int  # when it was placed (`sequence`)
    settings: VaultSettings  # what the note's privacy was read with
    max_bytes: int
    stamp: FileStamp  # the file as last read, and whether it said private then
    private: bool


_HELD: dict[Path, dict[str, _Hold]] = {}  # vault -> path -> its hold
_GUARD = threading.Lock()
_SEQUENCE = itertools.count(1)


def _key(vault: Path) -> Path:
    return vault.resolve()


def sequence() -> int:
    """A number greater than that of every hold placed so far (a write notes it as it starts)."""
    with _GUARD:
        return next(_SEQUENCE)


def hold(vault: Path, paths: Iterable[str], settings: VaultSettings, max_bytes: int) -> None:
    """Hold `paths` private (notes just read as private: `reads_private`)."""
    stamps = {path: file_stamp(vault / path) for path in paths}
    key = _key(vault)
    with _GUARD:
        held = _HELD.setdefault(key, {})
        for path, stamp in stamps.items():
            held[path] = _Hold(next(_SEQUENCE), settings, max_bytes, stamp, True)


def release(vault: Path, paths: Iterable[str], *, before: int) -> None:
    """End the holds of `paths` placed before the write numbered `before` began."""
    with _GUARD:
        held = _HELD.get(_key(vault))
        if not held:
            return
        for path in paths:
            found = held.get(path)
            if found is not None and found.sequence < before:
                del held[path]


def held_private(vault: Path) -> Callable[[str], bool] | None:
    """Whether a path of `vault` is held private now (its file still saying so); None when no
    note is held, the common case."""
    with _GUARD:
        held = dict(_HELD.get(_key(vault), {}))
    if not held:
        return None

    def still(path: str) -> bool:
        found = held.get(path)
        if found is None:
            return False
        stamp = file_stamp(vault / path)
        if stamp != found.stamp:  # changed since it was read: read again, once a change
            found.stamp = stamp
            found.private = reads_private(vault, path, found.settings, found.max_bytes)
        return found.private

    return still


def reads_private(vault: Path, rel: str, settings: VaultSettings, max_bytes: int) -> bool:
    """Whether the note at `rel` says it is private now (its tag, its property, where it lies,
    its document), or frontmatter that does not parse might (as the planner files it). A note
    that cannot be read is left to the write, which files it as it must."""
    try:
        note = parse_note(decode_note(read_regular(vault / rel, max_bytes), rel, max_bytes), rel)
    except (OSError, ValueError, OraError):
        return False
    return note.yaml_error is not None or note_private(note, settings)
