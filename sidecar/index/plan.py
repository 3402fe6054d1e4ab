"""How one file of the vault is to be written: read, parsed and chunked, with its new ledger row
(the syncer's first half, touching no store).

A file whose content the ledger already has is `Unchanged` (the same stamp, its mtime, size, ctime
and inode, when `quick`; or the same content hash, its new stamp then recorded); a changed one is
`Planned`: its row and its chunks, each with the text BM25 indexes, the text the model embeds and
Chroma's metadata. A note that cannot be read as one (too
big, not text, or its permissions refuse it to the sidecar) or a document that cannot be extracted
is planned as an error row without chunks, so `ora index` can say why.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path

from sidecar.chunking.chunker import Chunk
from sidecar.chunking.limits import chunk_bounded
from sidecar.documents.formats import document_format, formats
from sidecar.documents.manifest import file_hash, ingested_hash_of, moved_entry, note_documents
from sidecar.documents.places import DocumentPrivacy
from sidecar.errors import UnreadableNote
from sidecar.index.bm25_table import SparseRow
from sidecar.index.chroma import Metadata
from sidecar.index.documents import document_info, plan_document
from sidecar.index.ledger import FileRow, PendingChunk, Stamp, stamp_of
from sidecar.index.names import chunk_id, text_hash
from sidecar.index.records import (
    HEADING_SEPARATOR,
    NoteInfo,
    chunk_metadata,
    gives_anchors,
    mtime_date,
    note_info,
)
from sidecar.models.embedder import Embedder
from sidecar.vault.note import Note, decode_note, indexed_view, parse_note
from sidecar.vault.scan import read_regular, symlink_in
from sidecar.vault.vault_settings import VaultSettings, note_language
from sidecar.vault.write import content_hash

# How the ledger's `error` of a file starts: what became of the file (`ora index` shows it).
NOT_INDEXED = "not indexed"
BROKEN_FRONTMATTER = "indexed as private, by its body only, until its frontmatter is valid"
IN_PART = "indexed in part"
# How the ledger's `hash` of a file the sidecar may not read starts (no content was hashed).
DENIED = "denied:"


@dataclass(frozen=True)
class PlannedChunk:
    """One chunk to write: its id, texts, hash of the embedded text and Chroma metadata."""

    id: str
    text: str
    embed_text: str
    hash: str
    meta: Metadata
    n_tokens: int  # what the embedder reads: slices of alike lengths pad little


@dataclass(frozen=True)
class Unchanged:
    """A file whose content the ledger already has; `stamp` is its current (mtime_ns, size,
    ctime_ns, inode)."""

    stamp: Stamp


@dataclass
class Planned:
    """A file to (re)write: its new ledger row (before vectors) and chunks."""

    row: FileRow
    chunks: list[PlannedChunk]


class Planner:
    """Plans files of `vault` for the index of `embedder`'s model."""

    def __init__(self, vault: Path, embedder: Embedder, chunk_tokens: int, max_file_bytes: int,
                 settings: VaultSettings) -> None:
        self.vault = vault
        self.embedder = embedder
        self.model = embedder.model_id
        self.chunk_tokens = chunk_tokens
        self.max_file_bytes = max_file_bytes
        # The vault's ora.yaml: effective types and exclusions (the index refreshes it).
        self.settings = settings
        # Page notes private by where their document lies now, moved there too. Held a second
        # while a document is missing (finding it walks the vault): a pass plans many notes,
        # and every answer outside private mode asks afresh (`retrieval/private_now.py`).
        self._documents = DocumentPrivacy(vault, hold_s=1.0)

    def _by_document(self, rel: str) -> bool:
        """Whether `rel` is a note `ora ingest` made from a document private where it lies now
        (moved into a private folder since, say), whatever its `source_path` says."""
        return rel in note_documents(self.vault) and rel in self._documents.private_notes(
            self.settings)

    def _turned_private(self, rel: str, old: FileRow) -> bool:
        """A note filed public whose document lies private now: planned again, never kept."""
        return not old.private and self._by_document(rel)

    def plan(self, rel: str, old: FileRow | None, quick: bool) -> Planned | Unchanged | None:
        """A plan for a changed file, Unchanged for unchanged content, None if it is gone."""
        path = self.vault / rel
        if symlink_in(self.vault, rel) is not None:  # a linked note or folder: not in the vault
            return None
        try:
            st = path.stat()
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):  # the stat taken: no second one per note
            return None
        # A row planned while the file could not be read says nothing of its content: chmod
        # changes neither its mtime nor its size, so a quick pass must not trust it once readable.
        same_model = (old is not None and old.model == self.model and old.hash != ""
                      and not old.hash.startswith(DENIED))
        # The ctime and inode too: an edit whose mtime was put back (`cp -p`, `rsync -a`,
        # `touch -r`) changes them, and a quick pass must read that file again.
        stamp = stamp_of(st)
        if not os.access(path, os.R_OK):  # checked without opening: a quick pass reads nothing
            return self._denied(rel, stamp, old, quick)
        fmt = document_format(rel)
        if fmt is not None:
            return self._plan_document(rel, fmt, old, quick, same_model, stamp)
        if quick and same_model and old is not None and old.stamp == stamp \
                and not self._turned_private(rel, old):
            return Unchanged(stamp)
        if st.st_size > self.max_file_bytes:
            message = f"{rel} is {st.st_size} bytes, over the {self.max_file_bytes}-byte limit"
            return self._error(rel, stamp, f"size:{st.st_size}:{st.st_mtime_ns}", message)
        try:
            data = read_regular(path)
        except PermissionError:
            return self._denied(rel, stamp, old, quick)
        except OSError:
            return None
        digest = content_hash(data)
        if same_model and old is not None and old.hash == digest \
                and not self._turned_private(rel, old):
            # Same content; only a note dated by its mtime needs its date (metadata) redone.
            dated_by_mtime = old.decay_date == mtime_date(old.mtime_ns)
            if old.mtime_ns == st.st_mtime_ns or not dated_by_mtime:
                return Unchanged(stamp)
        try:
            note = parse_note(decode_note(data, rel, self.max_file_bytes), rel)
        except UnreadableNote as err:
            return self._error(rel, stamp, digest, err.message)
        error = None
        if note.yaml_error is not None:
            # Indexed by its body alone, as a note without frontmatter, and private until the
            # frontmatter parses (`Note.is_private` fails closed: it may say `private`).
            message, line = note.yaml_error
            error = f"{BROKEN_FRONTMATTER}: line {line}: {message}"
            note = indexed_view(note)
        info = note_info(note, st.st_mtime_ns, self.settings)
        if not info.private and self._by_document(rel):
            info = replace(info, private=True)
        cluster = (old.cluster if old is not None else None) if info.decays else None
        cluster = info.declared_cluster or cluster
        chunks = self._chunks(self._chunk_note(note, info), info, digest, cluster)
        row = FileRow(
            path=rel, hash=digest, mtime_ns=st.st_mtime_ns, size=st.st_size,
            ctime_ns=st.st_ctime_ns, inode=stamp_of(st)[3], model=self.model, type=info.type,
            tags=info.tags, title=info.title, private=info.private,
            chunk_ids=tuple(c.id for c in chunks), declared_cluster=info.declared_cluster,
            cluster=cluster, decays=info.decays and info.retrievable, decay_date=info.date,
            centroid=None, error=error, conversation=info.conversation,
        )  # fmt: skip
        return Planned(row, chunks)

    def linking_body(self, rel: str) -> str | None:
        """The body of the note at `rel` when `plan` would write it as chunks that give
        incoming-link text (`records.gives_anchors`) and it holds a link; else None (a document,
        a file over the size limit or unreadable, a private or archived note...). Read ahead of
        a cold pass (`Bm25Store.gather_anchors`): a note planned otherwise later is put right."""
        path = self.vault / rel
        if document_format(rel) is not None or symlink_in(self.vault, rel) is not None:
            return None
        try:
            if not path.is_file() or path.stat().st_size > self.max_file_bytes:
                return None
            data = read_regular(path)
        except OSError:
            return None
        if b"[[" not in data and b"](" not in data:
            return None
        try:
            note = parse_note(decode_note(data, rel, self.max_file_bytes), rel)
        except UnreadableNote:
            return None
        if (note.yaml_error is not None or not gives_anchors(note, self.settings)
                or self._by_document(rel)):
            return None  # (a note whose frontmatter does not parse is private)
        return note.body

    def _plan_document(
        self, rel: str, fmt: str, old: FileRow | None, quick: bool, same_model: bool,
        stamp: Stamp,
    ) -> Planned | Unchanged | None:
        """A document's plan (sidecar/documents): extracted in a worker only when its content
        changed. One whose `ora ingest` notes match it is kept as a row without chunks: its
        notes are what search finds."""
        ingested_hash = ingested_hash_of(self.vault, rel)
        info = document_info(rel, stamp[0], self.settings)
        # A row without chunks or error is a document replaced by its notes, or one typed by a
        # folder rule as a type search never returns; an indexed one has chunks or an error.
        bare = old is not None and not old.chunk_ids and old.error is None
        if quick and same_model and old is not None and old.stamp == stamp \
                and bare == (ingested_hash == old.hash or not info.retrievable):
            return Unchanged(stamp)
        limit = formats().limits.max_bytes
        if stamp[1] > limit:
            message = f"{rel} is {stamp[1]} bytes, over the {limit}-byte limit for documents"
            return self._error(rel, stamp, f"size:{stamp[1]}:{stamp[0]}", message)
        try:
            digest = file_hash(self.vault / rel)
        except PermissionError:
            return self._denied(rel, stamp, old, quick)
        except OSError:
            return None
        ingested = ingested_hash == digest or moved_entry(self.vault, rel, digest) is not None
        if same_model and old is not None and old.hash == digest \
                and bare == (ingested or not info.retrievable):
            return Unchanged(stamp)
        if ingested or not info.retrievable:
            return Planned(self._row(rel, digest, stamp, info, (), None, None), [])
        plan = plan_document(self.vault, rel, fmt, stamp[0], self.settings,
                             self.embedder.tokenizer, self.chunk_tokens)
        if plan.error is not None:
            return self._error(rel, stamp, digest, plan.error)
        cluster = (old.cluster if old is not None else None) if plan.info.decays else None
        chunks = self._chunks(plan.chunks, plan.info, digest, cluster)
        error = None if plan.cut is None else f"{IN_PART}: {plan.cut}"
        row = self._row(rel, digest, stamp, plan.info, tuple(c.id for c in chunks), cluster, error)
        return Planned(row, chunks)

    def _row(
        self, rel: str, digest: str, stamp: Stamp, info: NoteInfo,
        chunk_ids: tuple[str, ...], cluster: str | None, error: str | None,
    ) -> FileRow:
        return FileRow(
            path=rel, hash=digest, mtime_ns=stamp[0], size=stamp[1], ctime_ns=stamp[2],
            inode=stamp[3], model=self.model, type=info.type, tags=info.tags, title=info.title,
            private=info.private, chunk_ids=chunk_ids, declared_cluster=None, cluster=cluster,
            decays=info.decays and info.retrievable, decay_date=info.date, centroid=None,
            error=error,
        )  # fmt: skip

    def _error(self, rel: str, stamp: Stamp, digest: str, message: str) -> Planned:
        """A file that cannot be read as a note, kept in the ledger as an error, with no chunks."""
        row = FileRow(
            path=rel, hash=digest, mtime_ns=stamp[0], size=stamp[1], ctime_ns=stamp[2],
            inode=stamp[3], model=self.model, type=None,
            tags=(), title=Path(rel).stem, private=False, chunk_ids=(), declared_cluster=None,
            cluster=None, decays=False, decay_date="", centroid=None,
            error=f"{NOT_INDEXED}: {message}",
        )  # fmt: skip
        return Planned(row, [])

    def _denied(self, rel: str, stamp: Stamp, old: FileRow | None,
                quick: bool) -> Planned | Unchanged:
        """A file the sidecar may not read (mode 000, say): an error, not a file gone, and
        whatever was indexed of it before is dropped (as for a note that became binary): its
        text is no longer known to be current, and a note made unreadable is often one its owner
        wants hidden."""
        if (quick and old is not None and old.hash.startswith(DENIED)
                and old.model == self.model and old.stamp == stamp):
            return Unchanged(stamp)
        message = (f"{rel} cannot be read: permission denied (let Ora read it, or exclude it "
                   "in ora.yaml)")
        return self._error(rel, stamp, f"{DENIED}{stamp[1]}:{stamp[0]}", message)

    def _chunk_note(self, note: Note, info: NoteInfo) -> list[Chunk]:
        """The chunks of a retrievable note; other types are tracked but never chunked."""
        if not info.retrievable:
            return []
        return chunk_bounded(note, self.embedder.tokenizer, self.chunk_tokens).chunks

    def _chunks(
        self, chunks: list[Chunk], info: NoteInfo, digest: str, cluster: str | None
    ) -> list[PlannedChunk]:
        out = []
        for c in chunks:
            hashed = text_hash(c.embed_text)
            meta = chunk_metadata(
                info, heading_path=tuple(c.heading_path), line_start=c.line_start,
                line_end=c.line_end, index=c.index, note_hash=digest, chunk_hash=hashed,
                model=self.model, cluster=cluster, block_ids=c.block_ids, page=c.page,
            )  # fmt: skip
            cid = chunk_id(info.path, c.index)
            out.append(PlannedChunk(cid, c.text, c.embed_text, hashed, meta, c.n_tokens))
        return out


def pending_chunk(c: PlannedChunk, row: FileRow) -> PendingChunk:
    return PendingChunk(c.id, row.private, row.path, c.hash, c.n_tokens, c.text, c.embed_text,
                        dict(c.meta))


def sparse_row(c: PlannedChunk, settings: VaultSettings) -> SparseRow:
    meta = c.meta
    return SparseRow(
        id=c.id,
        path=str(meta["path"]),
        archived=bool(meta["archived"]),
        text=c.text,
        title=" ".join([str(meta["title"]), *(meta.get("aliases") or ())]),
        heading=str(meta["heading_path"]).replace(HEADING_SEPARATOR, " "),
        # its tags as words too: one set in the frontmatter is in no text (`#vegan` inline is)
        about=" ".join([str(meta.get("description") or ""),
                        *(str(t).replace("/", " ") for t in meta.get("tags") or ())]).strip(),
        language=note_language(settings, str(meta["path"])) or "",
        aliases=tuple(str(a) for a in meta.get("aliases") or ()),
    )
