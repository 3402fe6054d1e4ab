"""Which notes the vault's settings make private now, not when the index last planned them.

A folder added to ora.yaml's `private` moves its notes into the private stores only when the
index plans every note again (the next reconcile: seconds on a large vault, more while it is busy
with something else), and the notes `ora ingest` made from a document there with them. Until
then their chunks are filed as public, and what asks only the index's `private` flag shows them
outside private mode. So every answer outside private mode also asks `private_paths()`: a path
the settings read now make private (`is_private_path`: under a `private` folder, or any path
when the settings cannot say which are private, so privacy fails closed), or a note made from a
document they cover now (the ingest manifest names it), as `note_private` will when the index
plans the note again. The contradiction list asks the same (`cleaning/live_privacy.py`).

This costs two stats for each request, of ora.yaml and of the ingest manifest: each is read
again only when its size, times or inode changed (an editor's save by rename is a new inode),
and what they say of each path is kept until then, per vault, for every request of the process.
A missing ora.yaml is read again at most once a `MISSING_RECHECK_S`: what its settings are
changes with time alone (those it last had, until it has been missing long enough to count as
deleted: `load_vault_settings`). A note's own tag is not read here: a note's own change is
indexed at once, where a settings change re-plans a whole folder.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from sidecar.documents.manifest import manifest_path, note_documents
from sidecar.vault.vault_settings import (
    VaultSettings,
    is_private_path,
    load_vault_settings,
    settings_path,
)

PrivatePaths = Callable[[str], bool]
_FileId = tuple[int, int, int, int] | None  # (size, mtime_ns, ctime_ns, inode); None: no file
MISSING_RECHECK_S = 1.0


def _file_id(path: Path) -> _FileId:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


class SettingsNow:
    """One vault's settings as ora.yaml holds them now, read again only when it changed."""

    def __init__(self, vault: Path, data: Path | None = None) -> None:
        self.vault, self.data = vault, data  # `data`: where a last good ora.yaml is kept
        self._file, self._manifest = settings_path(vault), manifest_path(vault)
        self._known: tuple[_FileId, float, VaultSettings] | None = None  # and when read
        # the answers given with those settings and that manifest
        self._asked: tuple[VaultSettings, _FileId, PrivatePaths] | None = None
        self._guard = threading.Lock()

    def settings(self) -> VaultSettings:
        file, now = _file_id(self._file), time.monotonic()
        with self._guard:
            known = self._known
        if known is not None and known[0] == file and (
                file is not None or now - known[1] < MISSING_RECHECK_S):
            return known[2]
        settings = load_vault_settings(self.vault, self.data)
        with self._guard:
            self._known = (file, now, settings)
        return settings

    def private_paths(self) -> PrivatePaths:
        """Whether the settings now make the note or document at a vault path private: under
        a `private` folder, or made by `ora ingest` from a document that is."""
        settings, manifest = self.settings(), _file_id(self._manifest)
        with self._guard:
            asked = self._asked
        if asked is not None and asked[0] is settings and asked[1] == manifest:
            return asked[2]
        private = _remembered(_by_place(self.vault, settings))
        with self._guard:
            self._asked = (settings, manifest, private)
        return private


def _by_place(vault: Path, settings: VaultSettings) -> PrivatePaths:
    made_from = note_documents(vault)

    def private(path: str) -> bool:
        return is_private_path(settings, path) or (
            (document := made_from.get(path)) is not None and is_private_path(settings, document))

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


def settings_now(vault: Path, data: Path | None = None) -> SettingsNow:
    """The process's one reader of a vault's settings (with its index's `data` folder, which
    keeps the text ora.yaml last had when it could be used)."""
    with _READERS_GUARD:
        return _READERS.setdefault((vault, data), SettingsNow(vault, data))
