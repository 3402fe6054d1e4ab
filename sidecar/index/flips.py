"""Notes made private by their own words that the index has not yet filed as private.

A note tagged `#private` (or given `private: true`) leaves the public stores when the index
applies it: its vectors move to the private collection, some tens of milliseconds a note, one
note after another in the watcher's batch. Four hundred notes tagged at once (a tag renamed
across the vault, a template applied) stayed in non-private search for most of half a minute.
So when their change is seen, before any of it is applied, each note the index files as public
is read once more for its privacy alone (`reads_private`), and those that now say private are
held here: every answer outside private mode leaves a held note out (`retrieval/private_now.py`
asks `held_private`), as it leaves out a folder ora.yaml has just made private.

A hold ends when a write that began after it was placed has applied its path (the write read the
file as it is now, so the index files it as the words say); a write that began before may have
read the file before the change. A hold placed by a process is seen by that process only: the
server's watcher and its searches, `ora watch`'s own. Held or not, nothing is ever less private.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable
from pathlib import Path

from sidecar.errors import OraError
from sidecar.vault.note import decode_note, parse_note
from sidecar.vault.scan import read_regular
from sidecar.vault.vault_settings import VaultSettings, note_private

_HELD: dict[Path, dict[str, int]] = {}  # vault -> path -> the sequence number of its hold
_GUARD = threading.Lock()
_SEQUENCE = itertools.count(1)


def _key(vault: Path) -> Path:
    return vault.resolve()


def sequence() -> int:
    """A number greater than that of every hold placed so far (a write notes it as it starts)."""
    with _GUARD:
        return next(_SEQUENCE)


def hold(vault: Path, paths: Iterable[str]) -> None:
    key = _key(vault)
    with _GUARD:
        held = _HELD.setdefault(key, {})
        for path in paths:
            held[path] = next(_SEQUENCE)


def release(vault: Path, paths: Iterable[str], *, before: int) -> None:
    """End the holds of `paths` placed before the write numbered `before` began."""
    with _GUARD:
        held = _HELD.get(_key(vault))
        if not held:
            return
        for path in paths:
            if held.get(path, before) < before:
                del held[path]


def held_private(vault: Path) -> frozenset[str]:
    """The paths held private now in `vault` (a copy: holds come and go meanwhile)."""
    with _GUARD:
        return frozenset(_HELD.get(_key(vault), ()))


def reads_private(vault: Path, rel: str, settings: VaultSettings, max_bytes: int) -> bool:
    """Whether the note at `rel` says it is private now (its tag, its property, where it lies,
    its document), or frontmatter that does not parse might (as the planner files it). A note
    that cannot be read is left to the write, which files it as it must."""
    try:
        note = parse_note(decode_note(read_regular(vault / rel, max_bytes), rel, max_bytes), rel)
    except (OSError, ValueError, OraError):
        return False
    return note.yaml_error is not None or note_private(note, settings)
