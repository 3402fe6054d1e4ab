"""Which notes the vault's settings make private now, not when the index last planned them.

A folder added to ora.yaml's `private` moves its notes into the private stores only when the
index plans every note again (the next reconcile: seconds on a large vault, more while it is busy
with something else), and the notes `ora ingest` made from a document there with them. Until
then their chunks are filed as public, and what asks only the index's `private` flag shows them
outside private mode. So every answer outside private mode also asks `private_paths()`: a path
the settings read now make private (`is_private_path`: under a `private` folder, or any path
when the settings cannot say which are private, so privacy fails closed), or a note made from a
document they cover now where it lies (the ingest manifest names it; a document moved since,
into a private folder say, is found at its new path as the index finds it:
`documents/places.py`), as the index files the note when it plans it again. The contradiction
list asks the same (`cleaning/live_privacy.py`).

This costs a stat of ora.yaml, of the ingest manifest and of each ingested document for each
request: what they say of each path is kept until one of them changes (its size, times or
inode: an editor's save by rename is a new inode), per vault, for every request of the process;
while an ingested document is missing from its path, where it went is looked for at each
request (a walk of the vault, hashing only the private documents not hashed before).
As git does with its index, a read of a file changed less than `RACY_S` before it is not
trusted: a filesystem with coarse times would show a same-size edit just after it unchanged.
A missing ora.yaml is read again once a `MISSING_RECHECK_S` while it keeps the settings it last
had (until it has been missing long enough to count as deleted: `load_vault_settings`), and so
is one whose text drops a `private` or `exclude` entry before it has settled (a save read
halfway: its folders stay private until then), and a missing one not at all otherwise (a
vault without one, the most common) until it appears. A note's own tag is not read here: a
note's own change is indexed at once, where a settings change re-plans a whole folder. In
private mode nothing is left out, but what this check makes private is still flagged private
(`search.py`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

from sidecar.documents.places import DocumentPrivacy
from sidecar.index.flips import held_private
from sidecar.settings import Config
from sidecar.vault.scan import FileStamp, file_stamp
from sidecar.vault.vault_settings import (
    VaultSettings,
    is_private_path,
    load_vault_settings,
    missing_settings_recheck,
    settings_path,
)

PrivatePaths = Callable[[str], bool]
MISSING_RECHECK_S = 1.0
RACY_S = 2.0  # the coarsest file times in use (FAT's) and then some


class SettingsNow:
    """One vault's settings as ora.yaml holds them now, read again only when it changed."""

    def __init__(self, vault: Path, data: Path | None) -> None:
        self.vault, self.data = vault, data  # `data`: where a last good ora.yaml is kept
        self._file = settings_path(vault)
        # looked for again once a document is seen changed (`Index.hold_flips`, the watcher's
        # and the editor's events): no window after a move, and no walk at every ask
        self._documents = DocumentPrivacy(vault)
        # the settings read, the file as it was then, and until when (time.time()) they hold
        # without a read: None, until the file changes
        self._known: tuple[FileStamp, float | None, VaultSettings] | None = None
        # the answers given with those settings and that manifest
        self._asked: tuple[VaultSettings, frozenset[str], PrivatePaths] | None = None
        self._guard = threading.Lock()

    def settings(self) -> VaultSettings:
        file, now = file_stamp(self._file), time.time()
        with self._guard:
            known = self._known
        if known is not None and known[0] == file and (known[1] is None or now < known[1]):
            return known[2]
        settings = load_vault_settings(self.vault, self.data)
        until: float | None = None
        if missing_settings_recheck(self.vault, self.data) is not None:
            # the settings change with time alone while they are those the file last had: a
            # missing file's grace, or a text dropping private folders not settled yet (kept
            # private until then, so the check fails closed, and read again until it settles)
            until = now + MISSING_RECHECK_S
        elif file is not None and 0 <= now - file[1] / 1e9 < RACY_S:
            # changed just before this read: a same-size edit may not show. (A time ahead of
            # the clock, from another machine's, is not racy: the next edit changes it.)
            until = now
        with self._guard:
            self._known = (file, until, settings)
        return settings

    def private_paths(self) -> PrivatePaths:
        """Whether the settings now make the note or document at a vault path private: under
        a `private` folder, or made by `ora ingest` from a document that is where it lies now
        (moved there since, too: `documents/places.py`)."""
        settings = self.settings()
        by_document = self._documents.private_notes(settings)
        with self._guard:
            asked = self._asked
        # equal, not the same: settings read again unchanged keep the answers worked out
        if asked is not None and asked[0] == settings and asked[1] == by_document:
            return _with_held(self.vault, asked[2])
        private = _remembered(_by_place(settings, by_document))
        with self._guard:
            self._asked = (settings, by_document, private)
        return _with_held(self.vault, private)


def _with_held(vault: Path, private: PrivatePaths) -> PrivatePaths:
    """`private`, and the notes held private by their own words until the index files them so
    (`index/flips.py`: tagged private a moment ago, their vectors still moving)."""
    held = held_private(vault)
    if held is None:
        return private
    return lambda path: private(path) or held(path)


def _by_place(settings: VaultSettings, by_document: frozenset[str]) -> PrivatePaths:
    def private(path: str) -> bool:
        return is_private_path(settings, path) or path in by_document

    return private


def _remembered(private: PrivatePaths) -> PrivatePaths:
    """`private`, each path's answer kept (a pattern match costs microseconds a path, and a
    search asks of a hundred candidates)."""
    known: dict[str, bool] = {}

    def remembered(path: str) -> bool:
        found = known.get(path)
        if found is None:
            found = known[path] = private(path)
        return found

    return remembered


_READERS: dict[tuple[Path, Path | None], SettingsNow] = {}
_READERS_GUARD = threading.Lock()


def settings_now(vault: Path, data: Path | None) -> SettingsNow:
    """The process's one reader of a vault's settings, with its index's `data` folder (which
    keeps the text ora.yaml last had when it could be used: without it, a process that just
    started reads a missing file as the defaults)."""
    with _READERS_GUARD:
        return _READERS.setdefault((vault, data), SettingsNow(vault, data))


def settings_now_of(config: Config) -> SettingsNow:
    """`settings_now` of an index's vault and data folder: what every request asks."""
    return settings_now(config.vault, config.data)


def hidden_now(private_now: PrivatePaths | None, private_mode: bool, path: str) -> bool:
    """Whether a request leaves `path` out as private by the settings now: outside private
    mode only (in it, such a result is flagged private instead)."""
    return not private_mode and private_now is not None and private_now(path)


class _Checked(Protocol):
    @property
    def private_now(self) -> PrivatePaths | None: ...


_Options = TypeVar("_Options", bound=_Checked)


def with_private_now(options: _Options, config: Config) -> _Options:
    """A request's `options` (a dataclass) with `private_now` from the settings now, unless the
    caller gave one; a worker thread's to call (it may read ora.yaml)."""
    if options.private_now is not None:
        return options
    return cast(_Options, replace(cast(Any, options),
                                  private_now=settings_now_of(config).private_paths()))
