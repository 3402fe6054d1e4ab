"""Which documents `ora ingest` has turned into notes: `VAULT/.ora-journal/ingested.json`.

It maps a document's vault path to the sha256 of the bytes its notes were made from, and the
notes' paths and hashes. The index reads it: a document whose notes match its bytes is not
indexed itself (its notes are, so the same text is not found twice). It lives in the vault
beside the journals, not in the index folder, because it is a fact about the vault: deleting
the index and indexing again must give the same answers.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sidecar.vault.journal import journal_folder
from sidecar.vault.write import atomic_write, content_hash

MANIFEST = "ingested.json"
_READ = 1 << 20

_cache: dict[Path, tuple[tuple[int, int], dict[str, Any]]] = {}
_notes: dict[Path, tuple[dict[str, Any], dict[str, str]]] = {}  # note_documents of a read


def file_hash(path: Path) -> str:
    """sha256 hex of a document's bytes (as `content_hash`), read a megabyte at a time: what the
    manifest and the index key a document by."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_READ):
            digest.update(block)
    return digest.hexdigest()


def manifest_path(vault: str | Path) -> Path:
    return journal_folder(vault) / MANIFEST


def read_manifest(vault: str | Path) -> dict[str, Any]:
    """{document path: {"sha256", "notes": {note path: note sha256}}}; {} when none (or
    unreadable: the documents are then indexed themselves, which loses nothing)."""
    path = manifest_path(vault)
    try:
        st = path.stat()
    except OSError:
        return {}
    stamp = (st.st_mtime_ns, st.st_size)
    cached = _cache.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        doc = {}
    found = doc.get("documents") if isinstance(doc, dict) else None
    documents = found if isinstance(found, dict) else {}
    _cache[path] = (stamp, documents)
    return documents


def ingested_hash_of(vault: str | Path, rel: str) -> str | None:
    """The sha256 of the document at `rel` when its notes were written and some of them are
    still in the vault, else None. A document whose notes were all deleted is searched by
    itself again, not lost from search."""
    entry = read_manifest(vault).get(rel)
    digest = entry.get("sha256") if isinstance(entry, dict) else None
    notes = entry.get("notes") if isinstance(entry, dict) else None
    if not isinstance(digest, str) or not isinstance(notes, dict):
        return None
    return digest if any((Path(vault) / note).is_file() for note in notes) else None


def note_documents(vault: str | Path) -> dict[str, str]:
    """Every note the manifest lists, with the document it was made from (worked out once for
    each read of the manifest: the index asks it of every note it plans)."""
    documents = read_manifest(vault)
    known = _notes.get(manifest_path(vault))
    if known is not None and known[0] is documents:  # the same read, held here and in _cache
        return known[1]
    notes = {note: doc for doc, entry in documents.items() if isinstance(entry, dict)
             and isinstance(entry.get("notes"), dict) for note in entry["notes"]}
    _notes[manifest_path(vault)] = (documents, notes)
    return notes


def moved_entry(vault: str | Path, rel: str, digest: str) -> tuple[str, dict[str, Any]] | None:
    """The ingest of a document that now lies at `rel` under another name: an entry of the
    same bytes (`digest`) whose document is no longer at its path and some of whose notes are
    still there; (its old path, the entry). A document moved or renamed keeps its notes."""
    root = Path(vault)
    for old, entry in read_manifest(vault).items():
        if old == rel or not isinstance(entry, dict) or entry.get("sha256") != digest:
            continue
        notes = entry.get("notes")
        if (not (root / old).exists() and isinstance(notes, dict)
                and any((root / note).is_file() for note in notes)):
            return old, entry
    return None


def note_rewritten(vault: str | Path, rel: str, before: str, after: str) -> None:
    """Ora itself changed a note ingest wrote, from the bytes hashed `before` to `after` (the
    `extracted` record an extraction adds, or its undo): the manifest follows, so ingest still
    counts the note as its own and an unchanged document stays unchanged. Nothing for any other
    note."""
    documents = read_manifest(vault)
    found = [doc for doc, entry in documents.items()
             if isinstance(entry, dict) and isinstance(entry.get("notes"), dict)
             and entry["notes"].get(rel) == before]
    if not found:
        return
    updated = dict(documents)  # the cached copy stays as read
    for doc in found:
        updated[doc] = {**documents[doc], "notes": {**documents[doc]["notes"], rel: after}}
    write_manifest(vault, updated)


class ManifestWatch:
    """Which documents to plan again, for a writer that watches the vault (`index/watcher.py`):
    those whose entry changed since the last look, so a document `ora ingest` run elsewhere
    replaced by its notes leaves search at once, and one whose ingest was undone comes back;
    and those whose notes were deleted, so a document whose notes are all gone is searched by
    itself again. With them, the bytes their entries name: a document moved since its ingest
    lies elsewhere with those bytes (undone, it is searched again at its new path), found by
    the watcher in the index. `paths` are what to watch: the manifest and its folder (a file
    written into a folder just made can land before a watch on that folder exists)."""

    def __init__(self, vault: str | Path) -> None:
        self.vault = vault
        self.paths = self.watched(vault)
        self._seen = dict(read_manifest(vault))

    @staticmethod
    def watched(vault: str | Path) -> frozenset[Path]:
        file = manifest_path(vault)
        return frozenset({file, file.parent})

    def affected(self, paths: Iterable[str], look: bool) -> tuple[set[str], set[str]]:
        """(documents, sha256s) for an event batch's `paths`: the documents whose entry lists
        one of them as a note, and, when `look` (the manifest's own event), those whose entry
        changed since the last look."""
        now = dict(read_manifest(self.vault))
        entries: list[tuple[str, Any]] = []
        if look:
            changed = {doc for doc in self._seen.keys() | now.keys()
                       if self._seen.get(doc) != now.get(doc)}
            entries += [(doc, entry) for doc in changed
                        for entry in (self._seen.get(doc), now.get(doc))]
            self._seen = now
        made = note_documents(self.vault)
        entries += [(made[p], now.get(made[p])) for p in paths if p in made]
        digests = {entry["sha256"] for _doc, entry in entries
                   if isinstance(entry, dict) and isinstance(entry.get("sha256"), str)}
        return {doc for doc, _entry in entries}, digests


def write_manifest(vault: str | Path, documents: dict[str, Any]) -> None:
    """Replace the manifest (through the compare-and-swap writer when it exists)."""
    path = manifest_path(vault)
    data = (json.dumps({"version": 1, "documents": documents}, ensure_ascii=False, indent=1,
                       sort_keys=True) + "\n").encode("utf-8")
    if path.exists():
        atomic_write(path, data, content_hash(path.read_bytes()))
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "xb") as handle:
            handle.write(data)
