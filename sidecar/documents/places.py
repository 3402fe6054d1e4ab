"""Which notes `ora ingest` made are private by where their document lies now.

A page note is private when its document is (`documents.md`), and a document moved or renamed
since its ingest (the same bytes at a new path, none at the old: `manifest.moved_entry`, as the
index recognises the move) lies at its new path, not at the one its notes' `source_path` and the
manifest name. So a document moved into a private folder makes its notes private at once, as
one made private where it lies does. The index files them so when it plans them (`index/plan.py`)
and every answer outside private mode asks the same (`retrieval/private_now.py`).

Where a document went is found by hashing the documents the settings make private now (the only
places that can make its notes private), each hashed once while its size and times hold. That
walk is needed only while some ingested document is missing from its path; otherwise the answer
holds until the manifest, the settings or one of those documents changes.
"""

from __future__ import annotations

import itertools
import threading
import time
from pathlib import Path
from typing import Any

from sidecar.documents.formats import iter_document_paths
from sidecar.documents.manifest import file_hash, manifest_path, moved_entry, read_manifest
from sidecar.vault.scan import FileStamp, file_stamp
from sidecar.vault.vault_settings import VaultSettings, is_private_path

_hashes: dict[Path, tuple[FileStamp, str]] = {}
_hashes_guard = threading.Lock()
_moves = itertools.count(1)
_moves_seen = 0  # the last count taken when a document was seen changed (`documents_seen`)


def documents_seen() -> None:
    """A document was created, moved or changed (the watcher's event, an editor's): a document
    missing from its path may have been moved, so where it lies is looked for again."""
    global _moves_seen
    _moves_seen = next(_moves)


def _hash(path: Path) -> str | None:
    """The document's sha256, hashed again only when its size, times or inode changed."""
    stamp = file_stamp(path)
    if stamp is None:
        return None
    with _hashes_guard:
        known = _hashes.get(path)
    if known is not None and known[0] == stamp:
        return known[1]
    try:
        digest = file_hash(path)
    except OSError:
        return None
    with _hashes_guard:
        _hashes[path] = (stamp, digest)
    return digest


def _entries(manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {doc: entry for doc, entry in manifest.items()
            if isinstance(entry, dict) and isinstance(entry.get("notes"), dict)}


def _moved_private(root: Path, settings: VaultSettings) -> set[str]:
    """The manifest documents that now lie, moved, where the settings make them private."""
    found = set()
    for rel in iter_document_paths(root):
        if is_private_path(settings, rel) and (digest := _hash(root / rel)) is not None \
                and (moved := moved_entry(root, rel, digest)) is not None:
            found.add(moved[0])
    return found


def private_by_document(vault: str | Path, settings: VaultSettings) -> frozenset[str]:
    """The notes the manifest lists whose document is private where it lies: at the path its
    entry names (there or not: a private document deleted keeps its notes private, as their
    `source_path` does), or, moved since, at the path the same bytes lie at now."""
    root = Path(vault)
    entries = _entries(read_manifest(root))
    private = {doc for doc in entries if is_private_path(settings, doc)}
    if settings.private and any(not (root / doc).exists() for doc in entries.keys() - private):
        private |= _moved_private(root, settings)
    return frozenset(note for doc in private for note in entries[doc]["notes"])


class DocumentPrivacy:
    """`private_by_document` of one vault, worked out again only when the settings, the
    manifest or where its documents lie changed; while a document is missing from its path
    (moved: where to is found by a walk), when a document was seen changed since, and after
    `hold_s` seconds (None: never by time alone)."""

    def __init__(self, vault: str | Path, hold_s: float | None = None) -> None:
        self.vault, self.hold_s = Path(vault), hold_s
        self._known: tuple[Any, float | None, frozenset[str]] | None = None
        self._guard = threading.Lock()

    def _key(self, settings: VaultSettings) -> tuple[Any, bool]:
        """What the answer depends on, and whether it is settled (no document missing). With a
        document missing (deleted, most often, after its ingest), where it went is looked for
        again once a document was seen changed since (`documents_seen`) or `hold_s` passed:
        not at every ask, which walked the vault each time (362 ms on 20,000 notes)."""
        manifest = file_stamp(manifest_path(self.vault))  # before reading it: a later write shows
        places = tuple((doc, file_stamp(self.vault / doc))
                       for doc in sorted(_entries(read_manifest(self.vault))))
        settled = all(stamp is not None for _doc, stamp in places)
        return (settings, manifest, places, None if settled else _moves_seen), settled

    def private_notes(self, settings: VaultSettings) -> frozenset[str]:
        key, settled = self._key(settings)
        now = time.monotonic()
        with self._guard:
            known = self._known
        if known is not None and known[0] == key and (known[1] is None or now < known[1]):
            return known[2]
        notes = private_by_document(self.vault, settings)
        with self._guard:
            self._known = (key, None if settled or self.hold_s is None else now + self.hold_s,
                           notes)
        return notes
