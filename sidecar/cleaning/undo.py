"""Undo of the last triage resolution: the files back byte for byte, the pairs as they were.

Every resolution (or news batch approval) writes one journal entry: the pairs as they were, and
for each file it touched the bytes before and the hash after (or where `.trash/` holds it; or,
neither, a note the client deletes itself through Obsidian's trash). A file edited twice by one
batch keeps its first bytes and its last hash. `undo_last` checks every file first — each must
still hash as the resolution left it (a trashed note must still be in the trash, and its old place
free; a note the client deleted must be gone, or still as it was when the client did not get to
it) — and refuses with Conflict, writing nothing, if any changed since; otherwise it writes them
back through `sidecar.vault.write` (a client-deleted note recreated from the journalled bytes,
never over a file) and drops the entry, so a second undo undoes the resolution before (the
newest `UNDO_DEPTH` are kept).

Outside private mode a resolution that involves a private note (private then, or now: tagged,
or its folder made private, since) is passed over as if it were not there, as an extraction's
undo passes over one: the undo takes the latest other resolution, or answers that nothing is
recorded, word for word the answer when there is none at all. So it never changes a private
note, nor tells that one exists (docs/privacy.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sidecar.cleaning.store import Pair, Queue, UndoEntry, UndoFile
from sidecar.errors import Conflict, NotFound
from sidecar.retrieval.private_now import settings_now_of
from sidecar.settings import Config
from sidecar.vault.scan import vault_path
from sidecar.vault.write import content_hash, create_file, restore_bytes, restore_from_trash


@dataclass
class Journal:
    """What one resolution changed, collected as it goes."""

    pairs: list[Pair] = field(default_factory=list)
    files: dict[str, UndoFile] = field(default_factory=dict)

    def touched(self, path: str, before: bytes, after_hash: str | None,
                trash: str | None = None) -> None:
        first = self.files.get(path)
        self.files[path] = UndoFile(path, first.before if first else before, after_hash, trash)

    def merge(self, other: Journal) -> None:
        """Take in the files another journal holds (a batch gathers its resolutions')."""
        for f in other.files.values():
            self.touched(f.path, f.before, f.after_hash, f.trash)

    def save(self, queue: Queue) -> None:
        if self.pairs or self.files:
            queue.save_undo(self.pairs, list(self.files.values()))


@dataclass(frozen=True)
class Undone:
    pairs: list[Pair]  # as they are again
    changed: list[str]  # vault paths written back

    def as_json(self) -> dict[str, Any]:
        return {"pairs": [p.as_json() for p in self.pairs], "changed": self.changed}


def _hash_at(config: Config, rel: str) -> str | None:
    try:
        return content_hash(vault_path(config.vault, rel).read_bytes())
    except FileNotFoundError:
        return None


def _client_deleted(f: UndoFile) -> bool:
    """A note the client was left to delete (`resolve(..., client_trash=True)`)."""
    return f.trash is None and f.after_hash is None


def _check(config: Config, f: UndoFile) -> None:
    if _client_deleted(f):
        if _hash_at(config, f.path) not in (None, content_hash(f.before)):
            raise Conflict(f"{f.path} exists again since that resolution; nothing was undone")
        return
    if f.trash is None:
        if _hash_at(config, f.path) != f.after_hash:
            raise Conflict(f"{f.path} changed since that resolution; nothing was undone")
        return
    if _hash_at(config, f.path) is not None:
        raise Conflict(f"{f.path} exists again since that resolution; nothing was undone")
    if _hash_at(config, f.trash) != content_hash(f.before):
        raise Conflict(f"{f.path} is no longer in {f.trash} as it was; nothing was undone")


def _involves_private(config: Config, queue: Queue, entry: UndoEntry) -> bool:
    """Whether a resolution involves a note private then or now: a pair flagged private, one
    the queue hides now (a note tagged private since), or a note or file of it that the
    vault's settings make private now (its folder made private since)."""
    by_place = settings_now_of(config).private_paths()
    paths = {f.path for f in entry.files} | {s.path for p in entry.pairs for s in (p.a, p.b)}
    return (any(p.private for p in entry.pairs) or queue.hides(p.id for p in entry.pairs)
            or any(by_place(path) for path in paths))


def _last(config: Config, queue: Queue, private: bool) -> UndoEntry:
    """The newest resolution this mode may undo: outside private mode, the newest that
    involves no private note (see the module docstring)."""
    for entry in queue.undo_entries():
        if private or not _involves_private(config, queue, entry):
            return entry
    raise NotFound("nothing to undo: no resolution is recorded")


def put_back(config: Config, queue: Queue, files: list[UndoFile]) -> None:
    """Write each file back as it was before a resolution (newest change first), each only
    while it still holds what the resolution left (Conflict otherwise)."""
    for f in reversed(files):
        if _client_deleted(f):
            if _hash_at(config, f.path) is None:  # else the client never got to delete it
                create_file(vault_path(config.vault, f.path), f.before, f.path)
        elif f.trash is None:
            assert f.after_hash is not None
            restore_bytes(config.vault, f.path, f.before, f.after_hash)
            queue.rehash(f.path, f.after_hash, content_hash(f.before))
        else:
            restore_from_trash(config.vault, f.trash, f.path, content_hash(f.before))


def undo_last(config: Config, queue: Queue, *, private: bool = False) -> Undone:
    """Undo the newest journalled resolution (outside private mode, the newest involving no
    private note): NotFound when there is none, Conflict when a file changed since."""
    entry = _last(config, queue, private)
    for f in entry.files:
        _check(config, f)
    put_back(config, queue, entry.files)
    for pair in entry.pairs:
        queue.restore_pair(pair)
    queue.drop_undo(entry.seq)
    restored = [queue.get(p.id, private=True) for p in entry.pairs]
    return Undone(restored, sorted(f.path for f in entry.files))
