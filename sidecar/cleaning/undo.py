"""Undo of the last triage resolution: the files back byte for byte, the pairs as they were.

Every resolution (or news batch approval) writes one journal entry: the pairs as they were, and
for each file it touched the bytes before and the hash after (or where `.trash/` holds it; or,
neither, a note the client deletes itself through Obsidian's trash). A file edited twice by one
batch keeps its first bytes and its last hash. `undo_last` checks every file first — each must
still hash as the resolution left it (a trashed note must still be in the trash, and its old place
free) — and refuses with Conflict, writing nothing, if any changed since; otherwise it writes them
back through `sidecar.vault.write` and `sidecar.vault.trash` and drops the entry, so a second
undo undoes the resolution before (the newest `UNDO_DEPTH` are kept).

A note left for the client to delete is recreated from the journalled bytes when it is gone,
never over a file. When a note is at its path, whatever it holds, the client never trashed it
(it changed before the plugin's trash step, which keeps an edited note, or the answer never
reached the plugin): the undo reopens the pair and writes nothing, the note being the user's.
The journal holds no file identity to tell that apart from a new note made in its place after
a real trash, so only a trash Ora can see tells it: the note's bytes in the vault's `.trash/`
(Obsidian's "Deleted files: .trash folder") mean the client did trash it, and the note at its
path now is another: refused as before (Conflict), for the user to move one of the two away.

Outside private mode a resolution that involves a private note (private then, or now: tagged,
or its folder made private, since) is passed over as if it were not there, as an extraction's
undo passes over one: the undo takes the latest other resolution, or answers that nothing is
recorded, word for word the answer when there is none at all. So it never changes a private
note, nor tells that one exists (docs/privacy.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from sidecar.cleaning.store import Pair, Queue, UndoEntry, UndoFile
from sidecar.errors import Conflict, NotFound, OraError
from sidecar.retrieval.private_now import settings_now_of
from sidecar.settings import Config
from sidecar.vault.scan import read_regular, vault_path
from sidecar.vault.trash import restore_bytes, restore_from_trash
from sidecar.vault.write import content_hash, create_file

OBSIDIAN_TRASH = ".trash"  # Obsidian's local trash: one folder at the vault's top


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


def _regular_hash(path: Path) -> str | None:
    try:
        return content_hash(read_regular(path))
    except OSError:  # a folder, a pipe, gone meanwhile
        return None


def _in_local_trash(config: Config, f: UndoFile) -> bool:
    """Whether the vault's `.trash/` holds `f`'s bytes under its name (Obsidian's local trash
    keeps a note's file name, `Name 1.md` when `Name.md` is taken): the client trashed it."""
    note = PurePosixPath(f.path)
    try:
        trashed = [p for p in vault_path(config.vault, OBSIDIAN_TRASH).iterdir()
                   if p.name.startswith(note.stem) and p.name.endswith(note.suffix)]
    except (OSError, OraError):  # no local trash: nothing tells that the client trashed it
        return False
    before = content_hash(f.before)
    return any(_regular_hash(p) == before for p in trashed)


def _check(config: Config, f: UndoFile) -> None:
    if _client_deleted(f):
        # a note at its path is the one the client never trashed (module docstring), unless
        # the client's trash shows it did, and this is a new note made in its place
        found = _hash_at(config, f.path)
        if found not in (None, content_hash(f.before)) and _in_local_trash(config, f):
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


def put_back(config: Config, queue: Queue, files: list[UndoFile]) -> list[str]:
    """Write each file back as it was before a resolution (newest change first), each only
    while it still holds what the resolution left (Conflict otherwise); the paths written."""
    written: list[str] = []
    for f in reversed(files):
        if _client_deleted(f):
            # else the client never trashed it: the note there, whatever it holds, is the user's
            if _hash_at(config, f.path) is not None:
                continue
            create_file(vault_path(config.vault, f.path), f.before, f.path)
        elif f.trash is None:
            assert f.after_hash is not None
            restore_bytes(config.vault, f.path, f.before, f.after_hash)
            queue.rehash(f.path, f.after_hash, content_hash(f.before))
        else:
            restore_from_trash(config.vault, f.trash, f.path, content_hash(f.before))
        written.append(f.path)
    return written


def undo_last(config: Config, queue: Queue, *, private: bool = False) -> Undone:
    """Undo the newest journalled resolution (outside private mode, the newest involving no
    private note): NotFound when there is none, Conflict when a file changed since."""
    entry = _last(config, queue, private)
    for f in entry.files:
        _check(config, f)
    written = put_back(config, queue, entry.files)
    for pair in entry.pairs:
        queue.restore_pair(pair)
    queue.drop_undo(entry.seq)
    restored = [queue.get(p.id, private=True) for p in entry.pairs]
    return Undone(restored, sorted(written))
