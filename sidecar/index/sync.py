"""Bring the stores in line with some files of the vault (the writer's half of the index).

For each file: unchanged (same mtime and size, or same content hash) → nothing; changed → read,
parse, chunk, and write its chunks. Vectors are reused whenever a stored chunk has the same
embedded text (hash) and model, so a metadata-only edit, a move between folders or a move into or
out of `private` embeds nothing; only new text is embedded.

Batches start small and double (`FIRST_BATCH` up to `BATCH_CHUNKS`/`BATCH_FILES`), so on a cold
index the first notes taken (the newest, in a reconcile) are searchable within seconds.

Embedding overlaps the rest: while one batch is embedded on a background thread, the next is
read, parsed and chunked and the one before is written, so the model never waits for the
stores or the disk (on two cores the two overlap; on more, the model's workers have them all).
Writes stay in order, one batch at a time, on the syncing thread.

Write order per batch of files: Chroma (upserts, then deletes), then BM25 (one transaction), then
the ledger (one transaction). A crash between steps leaves the ledger behind the stores, never
ahead: the file still looks changed and is redone, and `consistency.repair` removes chunks the
ledger does not own. Deleted files are handled after all writes, so a renamed file's vectors are
still there to be reused.

Two passes (`lexical`, a reconcile's and a watcher batch's way): every changed file is first
read, chunked and written to BM25 and the ledger with its metadata and privacy, so it is
findable by its words at once; its ledger row says `embedded = 0` and its chunks wait in the
ledger's `pending_chunks` (with what Chroma will need of them). A file whose every chunk text
already has a vector (a move, a metadata edit, a private flip) is written whole at once, as
before. Then `embed_pending` embeds the waiting chunks, newest notes first, writes them to
Chroma and the rows as embedded (Chroma first, ledger last, as everywhere). A crash in either
pass leaves the ledger behind the stores: a restart finds the same rows waiting and resumes;
vectors Chroma already holds are found by their text's hash, never embedded twice.

Memory is bounded by the batch, not the vault: files are planned one at a time and written
once a batch holds BATCH_CHUNKS chunks (or BATCH_FILES files), so at most two batches' chunks,
texts and vectors (one being embedded, one being planned) plus one note's (capped by
schema/limits.json) are held at once; `held_peak` counts them. Ledger rows are read a window of
paths at a time, not for the whole vault.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from sidecar.chunking.chunker import Chunk
from sidecar.chunking.limits import chunk_bounded
from sidecar.documents.formats import document_format, formats
from sidecar.documents.manifest import file_hash, ingested_hash_of
from sidecar.errors import UnreadableNote
from sidecar.heap import release_free_heap
from sidecar.index.bm25 import Bm25Store, SparseRow
from sidecar.index.chroma import ChromaStore, Metadata
from sidecar.index.clusters import centroid
from sidecar.index.documents import document_info, plan_document
from sidecar.index.ledger import FileRow, Ledger, PendingChunk
from sidecar.index.names import chunk_id, text_hash
from sidecar.index.records import (
    HEADING_SEPARATOR,
    NoteInfo,
    chunk_metadata,
    mtime_date,
    note_info,
)
from sidecar.models.embedder import Embedder
from sidecar.vault.note import Note, decode_note, indexed_view, parse_note
from sidecar.vault.scan import is_ignored, normalise_rel, read_regular, symlink_in
from sidecar.vault.vault_settings import (
    VaultSettings,
    default_vault_settings,
    is_excluded,
    note_language,
)
from sidecar.vault.write import content_hash

FloatArray = npt.NDArray[np.float32]

# Files are written in batches: big enough for efficient embedding and store calls, small enough
# that progress is saved often (a crash loses at most one batch of work).
BATCH_CHUNKS = 256
BATCH_FILES = 256
# Ledger rows of a whole-vault sync are read this many paths at a time.
LEDGER_WINDOW = 512
# The first batch of a sync is this small and each next one twice as big, up to the sizes above:
# on a cold index the newest notes (taken first) are searchable within seconds, not after 256.
FIRST_BATCH = 8
# The lexical pass embeds nothing and holds one batch (text and metadata, no vectors): batches
# this large make few BM25 commits (each commit costs ~0.1 s of tantivy's time: at 256 chunks a
# batch they were a third of a 4,000-note pass, bench/bench_findable.py).
LEXICAL_BATCH_CHUNKS = 2048
LEXICAL_BATCH_FILES = 1024
# Embedding runs in slices of this many texts (each slice's tokens are the embedder's input).
EMBED_SLICE = 32
# While a batch is being embedded, the syncing thread looks this often (seconds) for paths asked
# for meanwhile (`Index.expedite`: a private flip, an edit) and applies them ahead of the rest of
# a long write.
URGENT_POLL = 0.05

UrgentFn = Callable[[], set[str]]  # drains the paths to apply now

# How the ledger's `error` of a file starts: what became of the file (`ora index` shows it).
NOT_INDEXED = "not indexed"
BROKEN_FRONTMATTER = "indexed as private, by its body only, until its frontmatter is valid"
IN_PART = "indexed in part"


@dataclass(frozen=True)
class Progress:
    """One progress report: files done of total, chunks written and embedded so far."""

    # "scan": files done of files (a lexical pass reports every batch so); "embed": files, or in
    # the embedding pass (`embed_pending`) chunks with vectors of all chunks; "done".
    phase: str
    done: int
    total: int
    chunks: int
    embedded: int


ProgressFn = Callable[[Progress], None]


@dataclass
class SyncReport:
    """What one sync did."""

    embedded: int = 0
    removed: int = 0
    written: int = 0
    unchanged: set[str] = field(default_factory=set)  # content as the ledger has it, or gone
    decay_changed: bool = False


@dataclass(frozen=True)
class _PlannedChunk:
    id: str
    text: str
    embed_text: str
    hash: str
    meta: Metadata
    n_tokens: int  # what the embedder reads: slices of alike lengths pad little


@dataclass(frozen=True)
class _Unchanged:
    """A file whose content the ledger already has; `stamp` is its current (mtime_ns, size)."""

    stamp: tuple[int, int]


@dataclass
class _Planned:
    """A file to (re)write: its new ledger row (before vectors) and chunks."""

    row: FileRow
    chunks: list[_PlannedChunk]


@dataclass
class _Batch:
    """Files on their way to the stores: the vectors found for their chunks, the embedding of the
    others (running in the background), and where the log of urgently written paths stood when
    the first of them was planned (a plan older than an urgent write of its path is stale)."""

    plans: list[_Planned]
    vectors: dict[str, FloatArray]
    embedding: Future[dict[str, FloatArray]] | None
    since: int
    chunks: int = 0  # planned chunks, counted by `held_peak` until written
    lexical: frozenset[str] = frozenset()  # paths written to BM25 now, embedded later


class Syncer:
    """Writes changed files into Chroma, BM25 and the ledger of one namespace."""

    def __init__(
        self,
        vault: Path,
        namespace: str,
        *,
        ledger: Ledger,
        bm25: Bm25Store,
        chroma: ChromaStore,
        embedder: Embedder,
        chunk_tokens: int,
        max_file_bytes: int,
        settings: VaultSettings | None = None,
        urgent: UrgentFn | None = None,
        after_urgent: Callable[[SyncReport], None] | None = None,
    ) -> None:
        self._urgent, self._after_urgent = urgent, after_urgent
        self._nested = False  # inside an urgent sync: no nesting further
        # Paths asked for urgently (written by an urgent sync or left to their callers), in
        # order, this top-level sync: a plan of one made before it is stale.
        self._handled: list[str] = []
        self._refreshed = 0  # how many of `_handled` the top-level sync's `known` has re-read
        self._embedding: ThreadPoolExecutor | None = None  # during a top-level sync
        self._lexical = False  # during a top-level sync's lexical pass
        self._stop = threading.Event()  # set when that sync fails: its embedding is dropped
        self.vault = vault
        self.ns = namespace
        self.ledger = ledger
        self.bm25 = bm25
        self.chroma = chroma
        self.embedder = embedder
        self.model = embedder.model_id
        self.chunk_tokens = chunk_tokens
        self.max_file_bytes = max_file_bytes
        # The vault's ora.yaml: effective types and exclusions (the index refreshes it).
        self.settings = settings or default_vault_settings()
        # The most chunks planned but not yet written at once, over every sync of this syncer.
        self.held_peak = 0

    # ---- planning ------------------------------------------------------------------------------

    def _plan(self, rel: str, old: FileRow | None, quick: bool) -> _Planned | _Unchanged | None:
        """A plan for a changed file, _Unchanged for unchanged content, None if it is gone."""
        path = self.vault / rel
        if symlink_in(self.vault, rel) is not None:  # a linked note or folder: not in the vault
            return None
        try:
            st = path.stat()
        except OSError:
            return None
        if not path.is_file():
            return None
        same_model = old is not None and old.model == self.model and old.hash != ""
        stamp = (st.st_mtime_ns, st.st_size)
        fmt = document_format(rel)
        if fmt is not None:
            return self._plan_document(rel, fmt, old, quick, same_model, stamp)
        if quick and same_model and old is not None and (old.mtime_ns, old.size) == stamp:
            return _Unchanged(stamp)
        if st.st_size > self.max_file_bytes:
            message = f"{rel} is {st.st_size} bytes, over the {self.max_file_bytes}-byte limit"
            return self._error(rel, stamp, f"size:{st.st_size}:{st.st_mtime_ns}", message)
        try:
            data = read_regular(path)
        except OSError:
            return None
        digest = content_hash(data)
        if same_model and old is not None and old.hash == digest:
            # Same content; only a note dated by its mtime needs its date (metadata) redone.
            dated_by_mtime = old.decay_date == mtime_date(old.mtime_ns)
            if old.mtime_ns == st.st_mtime_ns or not dated_by_mtime:
                return _Unchanged(stamp)
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
        cluster = (old.cluster if old is not None else None) if info.decays else None
        cluster = info.declared_cluster or cluster
        chunks = self._chunks(self._chunk_note(note, info), info, digest, cluster)
        row = FileRow(
            path=rel, hash=digest, mtime_ns=st.st_mtime_ns, size=st.st_size, model=self.model,
            type=info.type, tags=info.tags, title=info.title, private=info.private,
            chunk_ids=tuple(c.id for c in chunks), declared_cluster=info.declared_cluster,
            cluster=cluster, decays=info.decays and info.retrievable, decay_date=info.date,
            centroid=None, error=error, conversation=info.conversation,
        )  # fmt: skip
        return _Planned(row, chunks)

    def _plan_document(
        self, rel: str, fmt: str, old: FileRow | None, quick: bool, same_model: bool,
        stamp: tuple[int, int],
    ) -> _Planned | _Unchanged | None:
        """A document's plan (sidecar/documents): extracted in a worker only when its content
        changed. One whose `ora ingest` notes match it is kept as a row without chunks: its
        notes are what search finds."""
        ingested_hash = ingested_hash_of(self.vault, rel)
        info = document_info(rel, stamp[0], self.settings)
        # A row without chunks or error is a document replaced by its notes, or one typed by a
        # folder rule as a type search never returns; an indexed one has chunks or an error.
        bare = old is not None and not old.chunk_ids and old.error is None
        if quick and same_model and old is not None and (old.mtime_ns, old.size) == stamp \
                and bare == (ingested_hash == old.hash or not info.retrievable):
            return _Unchanged(stamp)
        limit = formats().limits.max_bytes
        if stamp[1] > limit:
            message = f"{rel} is {stamp[1]} bytes, over the {limit}-byte limit for documents"
            return self._error(rel, stamp, f"size:{stamp[1]}:{stamp[0]}", message)
        try:
            digest = file_hash(self.vault / rel)
        except OSError:
            return None
        ingested = ingested_hash == digest
        if same_model and old is not None and old.hash == digest \
                and bare == (ingested or not info.retrievable):
            return _Unchanged(stamp)
        if ingested or not info.retrievable:
            return _Planned(self._row(rel, digest, stamp, info, (), None, None), [])
        plan = plan_document(self.vault, rel, fmt, stamp[0], self.settings,
                             self.embedder.tokenizer, self.chunk_tokens)
        if plan.error is not None:
            return self._error(rel, stamp, digest, plan.error)
        cluster = (old.cluster if old is not None else None) if plan.info.decays else None
        chunks = self._chunks(plan.chunks, plan.info, digest, cluster)
        error = None if plan.cut is None else f"{IN_PART}: {plan.cut}"
        row = self._row(rel, digest, stamp, plan.info, tuple(c.id for c in chunks), cluster, error)
        return _Planned(row, chunks)

    def _row(
        self, rel: str, digest: str, stamp: tuple[int, int], info: NoteInfo,
        chunk_ids: tuple[str, ...], cluster: str | None, error: str | None,
    ) -> FileRow:
        return FileRow(
            path=rel, hash=digest, mtime_ns=stamp[0], size=stamp[1], model=self.model,
            type=info.type, tags=info.tags, title=info.title, private=info.private,
            chunk_ids=chunk_ids, declared_cluster=None, cluster=cluster,
            decays=info.decays and info.retrievable, decay_date=info.date, centroid=None,
            error=error,
        )  # fmt: skip

    def _error(self, rel: str, stamp: tuple[int, int], digest: str, message: str) -> _Planned:
        """A file that cannot be read as a note, kept in the ledger as an error, with no chunks."""
        row = FileRow(
            path=rel, hash=digest, mtime_ns=stamp[0], size=stamp[1], model=self.model, type=None,
            tags=(), title=Path(rel).stem, private=False, chunk_ids=(), declared_cluster=None,
            cluster=None, decays=False, decay_date="", centroid=None,
            error=f"{NOT_INDEXED}: {message}",
        )  # fmt: skip
        return _Planned(row, [])

    def _chunk_note(self, note: Note, info: NoteInfo) -> list[Chunk]:
        """The chunks of a retrievable note; other types are tracked but never chunked."""
        if not info.retrievable:
            return []
        return chunk_bounded(note, self.embedder.tokenizer, self.chunk_tokens).chunks

    def _chunks(
        self, chunks: list[Chunk], info: NoteInfo, digest: str, cluster: str | None
    ) -> list[_PlannedChunk]:
        out = []
        for c in chunks:
            hashed = text_hash(c.embed_text)
            meta = chunk_metadata(
                info, heading_path=tuple(c.heading_path), line_start=c.line_start,
                line_end=c.line_end, index=c.index, note_hash=digest, chunk_hash=hashed,
                model=self.model, cluster=cluster, block_ids=c.block_ids, page=c.page,
            )  # fmt: skip
            cid = chunk_id(info.path, c.index)
            out.append(_PlannedChunk(cid, c.text, c.embed_text, hashed, meta, c.n_tokens))
        return out

    def _age(self, rel: str) -> int:
        """Sort key: newest modification first; files that cannot be read last."""
        try:
            return -(self.vault / rel).stat().st_mtime_ns
        except OSError:
            return 0

    # ---- writing -------------------------------------------------------------------------------

    def sync(
        self,
        rels: Iterable[str],
        *,
        quick: bool,
        progress: ProgressFn | None = None,
        recent_first: bool = False,
        lexical: bool = False,
    ) -> SyncReport:
        """Bring `rels` (vault-relative paths, present or not) in line with the vault.

        `quick` trusts an unchanged (mtime, size) without reading the file. `progress` is called
        only between batches, so an exception it raises stops the sync with every write either
        committed or not begun (the next sync resumes). `recent_first` takes files in order of
        modification, newest first (else by path). `lexical` writes files needing new vectors
        to BM25 and the ledger only, for `embed_pending` to finish.
        """
        wanted = sorted({normalise_rel(r) for r in rels})
        if recent_first:
            wanted.sort(key=self._age)
        if self._nested:  # an urgent sync: small, and inside a top-level one's embedding wait
            return self._sync(wanted, quick, progress)
        self._handled, self._refreshed = [], 0
        self._stop = threading.Event()
        self._lexical = lexical
        with ThreadPoolExecutor(1, thread_name_prefix="ora-embed") as self._embedding:
            try:
                return self._sync(wanted, quick, progress)
            except BaseException:
                self._stop.set()  # a failed or interrupted sync: the pending batch stops embedding
                raise
            finally:
                self._embedding = None
                self._lexical = False

    def _sync(self, wanted: list[str], quick: bool, progress: ProgressFn | None) -> SyncReport:
        known: dict[str, FileRow] = {}  # the ledger's rows of the current window and batches
        report = SyncReport()
        batch: list[_Planned] = []
        batch_chunks = 0
        since = 0
        pending: _Batch | None = None  # the batch being embedded, written once the next is planned
        limit = FIRST_BATCH
        stamps: list[tuple[str, int, int]] = []
        gone: list[str] = []

        def tell(phase: str, done: int) -> None:
            if progress is not None:
                progress(Progress(phase, done, len(wanted), report.written, report.embedded))

        for done, rel in enumerate(wanted, 1):
            if (done - 1) % LEDGER_WINDOW == 0:
                keep = {p.row.path for p in batch} | (
                    {p.row.path for p in pending.plans} if pending is not None else set())
                known = {p: r for p, r in known.items() if p in keep}
                known.update(self.ledger.rows(self.ns, wanted[done - 1 : done - 1 + LEDGER_WINDOW]))
            old = known.get(rel)
            skip = (is_ignored(rel) and document_format(rel) is None) or is_excluded(
                self.settings, rel)
            plan = None if skip else self._plan(rel, old, quick)
            if plan is None:
                if old is not None:
                    gone.append(rel)
                else:
                    report.unchanged.add(rel)
            elif isinstance(plan, _Unchanged):
                report.unchanged.add(rel)
                if old is not None and (old.mtime_ns, old.size) != plan.stamp:
                    stamps.append((rel, *plan.stamp))
            else:
                if not batch:
                    since = len(self._handled)
                batch.append(plan)
                batch_chunks += len(plan.chunks)
                held = batch_chunks + (pending.chunks if pending is not None else 0)
                self.held_peak = max(self.held_peak, held)
                most = ((LEXICAL_BATCH_CHUNKS, LEXICAL_BATCH_FILES) if self._lexical
                        else (BATCH_CHUNKS, BATCH_FILES))
                full = min(limit, most[0]), min(limit, most[1])
                if batch_chunks >= full[0] or len(batch) >= full[1]:
                    pending = self._advance(pending, self._start(batch, since), known, report)
                    batch, batch_chunks, limit = [], 0, limit * 2
                    tell("scan" if self._lexical else "embed", done)
            if done % 500 == 0:
                tell("scan", done)
        if batch:
            pending = self._advance(pending, self._start(batch, since), known, report)
        if pending is not None:
            self._finish(pending, known, report)
        if stamps:
            self.ledger.touch(self.ns, stamps)
        for start in range(0, len(gone), LEDGER_WINDOW):  # an urgent sync may have removed some
            found = self.ledger.rows(self.ns, gone[start : start + LEDGER_WINDOW])
            self._remove(list(found.values()), report)
        tell("done", len(wanted))
        return report

    def _expedite(self, report: SyncReport) -> None:
        """Apply now the paths asked for meanwhile that embed nothing (a private flip, a
        metadata edit, a deletion), ahead of the rest of this write; the others are left to
        their callers' own apply. Their plans already in a batch are stale; `_finish` drops
        them (see `_handled`). In a lexical write nothing is embedded here: every path asked
        for is applied (by its words), its embedding left to `embed_pending`."""
        if self._nested or self._urgent is None:
            return
        asked = self._urgent()
        # A plan already made of any path asked for is older than its file: one applied here is
        # written meanwhile, one that needs embedding (made private and edited) is left to its
        # caller's apply, and neither may be written from the old plan (say, still public).
        overtaken = sorted(asked)
        paths = asked if self._lexical else {p for p in asked if not self._needs_embedding(p)}
        if not paths:
            self._handled.extend(overtaken)
            return
        self._nested = True
        try:
            done = self.sync(paths, quick=False)
        finally:
            self._nested = False
        self._handled.extend(overtaken)
        report.embedded += done.embedded
        report.removed += done.removed
        report.written += done.written
        report.decay_changed = report.decay_changed or done.decay_changed
        if self._after_urgent is not None:
            self._after_urgent(done)

    def _needs_embedding(self, rel: str) -> bool:
        plan = self._plan(rel, self.ledger.rows(self.ns, [rel]).get(rel), quick=False)
        if not isinstance(plan, _Planned) or not plan.chunks:
            return False
        hashes = sorted({c.hash for c in plan.chunks})
        return len(self.chroma.vectors_by_hash(self.ns, hashes, self.model)) < len(hashes)

    @property
    def _pipelined(self) -> bool:
        """Embedding runs on its own thread (a top-level sync; an urgent one, or a lexical one,
        which embeds nothing, writes at once)."""
        return self._embedding is not None and not self._nested and not self._lexical

    def _advance(
        self, pending: _Batch | None, batch: _Batch, known: dict[str, FileRow], report: SyncReport
    ) -> _Batch | None:
        """`batch` is planned: write the one before it (its embedding done or waited for) while
        `batch` is embedded; return what is now pending. An urgent sync writes at once."""
        if not self._pipelined:
            self._finish(batch, known, report)
            return None
        if pending is not None:
            self._finish(pending, known, report)
        return batch

    def _start(self, plans: list[_Planned], since: int) -> _Batch:
        """Find the batch's vectors in the stores and start embedding the rest."""
        chunks = [c for p in plans for c in p.chunks]
        hashes = [c.hash for c in chunks]
        found = self.chroma.vectors_by_hash(self.ns, hashes, self.model) if hashes else {}
        if self._lexical:
            lexical = frozenset(p.row.path for p in plans
                                if any(c.hash not in found for c in p.chunks))
            return _Batch(plans, found, None, since, len(chunks), lexical)
        todo: dict[str, str] = {}
        # Shortest first, so each slice's texts are of a length and pad little: in file order,
        # slices of mixed lengths took ~7 % more model time (bench_index_speed's 1,106 texts).
        for c in sorted(chunks, key=lambda c: c.n_tokens):
            if c.hash not in found:
                todo.setdefault(c.hash, c.embed_text)
        if not todo:
            return _Batch(plans, found, None, since, len(chunks))
        pool = self._embedding if self._pipelined else None
        if pool is None:
            done: Future[dict[str, FloatArray]] = Future()
            done.set_result(self._embed(todo))
            return _Batch(plans, found, done, since, len(chunks))
        return _Batch(plans, found, pool.submit(self._embed, todo, self._stop), since,
                      len(chunks))

    def _embed(
        self, todo: dict[str, str], stop: threading.Event | None = None
    ) -> dict[str, FloatArray]:
        """Vectors by chunk hash of these texts (on the embedding thread, touching no store);
        `stop` ends it at the next slice (an interrupted sync does not wait for a whole batch)."""
        keys = list(todo)
        out: dict[str, FloatArray] = {}
        for start in range(0, len(keys), EMBED_SLICE):
            if stop is not None and stop.is_set():
                break
            part = keys[start : start + EMBED_SLICE]
            out.update(zip(part, self.embedder.embed([todo[k] for k in part]), strict=True))
        return out

    def _vectors(self, vectors: dict[str, FloatArray],
                 embedding: Future[dict[str, FloatArray]] | None,
                 report: SyncReport) -> dict[str, FloatArray]:
        """`vectors` with the batch's embedding's added once it is done, applying urgent paths
        while it runs."""
        self._expedite(report)
        if embedding is not None:
            while True:
                try:
                    embedded = embedding.result(timeout=URGENT_POLL)
                    break
                except FutureTimeout:
                    self._expedite(report)
            vectors.update(embedded)
            report.embedded += len(embedded)
        return vectors

    def _finish(self, batch: _Batch, known: dict[str, FileRow], report: SyncReport) -> None:
        """Wait for the batch's vectors, applying urgent paths meanwhile, and write it."""
        vectors = self._vectors(batch.vectors, batch.embedding, report)
        plans = batch.plans
        if not self._nested:
            overtaken = set(self._handled[batch.since :])  # asked for urgently meanwhile
            plans = [p for p in plans if p.row.path not in overtaken]
            fresh = sorted(set(self._handled[self._refreshed :]))
            self._refreshed = len(self._handled)
            for path in fresh:
                known.pop(path, None)
            known.update(self.ledger.rows(self.ns, fresh))
        deletes: dict[bool, list[str]] = {False: [], True: []}
        upserts: dict[bool, list[_PlannedChunk]] = {False: [], True: []}
        lexical: dict[bool, list[_PlannedChunk]] = {False: [], True: []}
        rows: list[FileRow] = []
        pending: list[PendingChunk] = []
        for plan in plans:
            row = plan.row
            old = known.get(row.path)
            new_ids = set(row.chunk_ids)
            if old is not None:
                stale = [i for i in old.chunk_ids if old.private != row.private or i not in new_ids]
                deletes[old.private].extend(stale)
                report.removed += len(stale)
            if row.path in batch.lexical:
                # Findable by its words now; Chroma keeps what it holds of the note's kept chunk
                # ids (their vectors are reused by hash) until the embedding pass rewrites them.
                lexical[row.private].extend(plan.chunks)
                pending.extend(_pending(c, row) for c in plan.chunks)
                rows.append(replace(row, embedded=False))
                continue
            upserts[row.private].extend(plan.chunks)
            if row.decays and plan.chunks:
                row = _with_centroid(row, np.stack([vectors[c.hash] for c in plan.chunks]))
            if row.decays or (old is not None and old.decays):
                report.decay_changed = True
            rows.append(row)
        for private, chunks in upserts.items():
            if chunks:
                self.chroma.upsert(
                    self.ns, private, [c.id for c in chunks],
                    np.stack([vectors[c.hash] for c in chunks]),
                    [c.text for c in chunks], [c.meta for c in chunks],
                )  # fmt: skip
        for private, ids in deletes.items():
            if ids:
                self.chroma.delete(self.ns, private, ids)
        self.bm25.replace(
            self.ns,
            deletes={p: ids for p, ids in deletes.items() if ids},
            inserts={p: [_sparse(c, self.settings) for c in [*cs, *lexical[p]]]
                     for p, cs in upserts.items() if cs or lexical[p]},
        )
        self.ledger.put(self.ns, rows, pending)
        report.written += sum(len(p.chunks) for p in plans)
        for row in rows:
            known[row.path] = row
        release_free_heap()  # the batch's temporaries are freed: keep the heap from growing

    def _remove(self, rows: list[FileRow], report: SyncReport) -> None:
        by_store: dict[bool, list[str]] = {False: [], True: []}
        for row in rows:
            by_store[row.private].extend(row.chunk_ids)
            report.decay_changed = report.decay_changed or row.decays
        for private, ids in by_store.items():
            if ids:
                self.chroma.delete(self.ns, private, ids)
        self.bm25.replace(self.ns, deletes={p: i for p, i in by_store.items() if i}, inserts={})
        self.ledger.delete(self.ns, [r.path for r in rows])
        report.removed += sum(len(ids) for ids in by_store.values())


    # ---- the embedding pass ----------------------------------------------------------------

    def embed_pending(
        self, progress: ProgressFn | None = None, paths: Iterable[str] | None = None
    ) -> SyncReport:
        """Embed the chunks the lexical pass left waiting (of `paths` only, when given), newest
        notes first, into Chroma, and mark their rows embedded. Pipelined as `sync` is: one
        batch embeds while the next is read. Paths asked for meanwhile (`Index.expedite`) are
        applied by their words at once and embedded after. `progress` reports chunks embedded
        of all chunks, between batches (an exception it raises stops the pass; the next
        resumes)."""
        report = SyncReport()
        only = None if paths is None else {normalise_rel(p) for p in paths}
        self._handled, self._refreshed = [], 0
        self._stop = threading.Event()
        self._lexical = True
        embedded, total = self.ledger.embedding_counts(self.ns)

        def tell(phase: str) -> None:
            if progress is not None:
                done = min(embedded + report.written, total)
                progress(Progress(phase, done, total, report.written, report.embedded))

        with ThreadPoolExecutor(1, thread_name_prefix="ora-embed") as self._embedding:
            try:
                while order := [p for p in self.ledger.pending_paths(self.ns)
                                if only is None or p in only]:
                    running: _Waiting | None = None
                    for group in self._waiting(order):
                        started = self._start_waiting(group)
                        held = len(started.chunks) + (len(running.chunks) if running else 0)
                        self.held_peak = max(self.held_peak, held)
                        if running is not None:
                            self._finish_waiting(running, report)
                            tell("embed")
                        running = started
                    if running is not None:
                        self._finish_waiting(running, report)
                        tell("embed")
                    if only is not None:
                        only -= set(order)  # asked for meanwhile: in the next round
                        only |= set(self._handled)
                        self._handled = []
                    if only is not None and not only:
                        break
            except BaseException:
                self._stop.set()
                raise
            finally:
                self._embedding = None
                self._lexical = False
        tell("done")
        return report

    def _waiting(self, order: list[str]) -> Iterator[tuple[dict[str, FileRow], list[PendingChunk]]]:
        """The waiting rows and chunks of `order`, in batches of about BATCH_CHUNKS chunks (full
        from the first: every note is findable by its words already, and small batches embed
        less per CPU-second)."""
        rows: dict[str, FileRow] = {}
        chunks: list[PendingChunk] = []
        for start in range(0, len(order), LEDGER_WINDOW):
            window = order[start : start + LEDGER_WINDOW]
            found = self.ledger.rows(self.ns, window)
            by_path: dict[str, list[PendingChunk]] = {}
            for c in self.ledger.pending_chunks(self.ns, window):
                by_path.setdefault(c.path, []).append(c)
            for path in window:
                row = found.get(path)
                if row is None or row.embedded:
                    continue
                rows[path] = row
                chunks += by_path.get(path, [])
                if len(chunks) >= BATCH_CHUNKS or len(rows) >= BATCH_FILES:
                    yield rows, chunks
                    rows, chunks = {}, []
        if rows:
            yield rows, chunks

    def _start_waiting(
        self, group: tuple[dict[str, FileRow], list[PendingChunk]]
    ) -> _Waiting:
        rows, chunks = group
        hashes = sorted({c.hash for c in chunks})
        found = self.chroma.vectors_by_hash(self.ns, hashes, self.model) if hashes else {}
        todo: dict[str, str] = {}
        for c in sorted(chunks, key=lambda c: c.n_tokens):  # alike lengths pad little
            if c.hash not in found:
                todo.setdefault(c.hash, c.embed_text)
        pool = self._embedding
        assert pool is not None
        future = pool.submit(self._embed, todo, self._stop) if todo else None
        return _Waiting(rows, chunks, found, future)

    def _finish_waiting(self, waiting: _Waiting, report: SyncReport) -> None:
        """Wait for the vectors (applying urgent paths meanwhile), then write the rows that are
        still as they were read: Chroma, then the ledger."""
        vectors = self._vectors(waiting.vectors, waiting.embedding, report)
        now = self.ledger.rows(self.ns, list(waiting.rows))
        # A row rewritten meanwhile (an urgent path, applied by its words) waits anew; one only
        # re-clustered is written as it is now.
        kept = {p for p, row in waiting.rows.items() if _same_chunks(now.get(p), row)}
        fresh = self.ledger.pending_chunks(self.ns, sorted(kept))  # their metadata as it is now
        kept -= {c.path for c in fresh if c.hash not in vectors}
        chunks = [c for c in fresh if c.path in kept]
        for private in (False, True):
            mine = [c for c in chunks if c.private == private]
            if mine:
                self.chroma.upsert(self.ns, private, [c.id for c in mine],
                                   np.stack([vectors[c.hash] for c in mine]),
                                   [c.text for c in mine], [c.meta for c in mine])
        rows = []
        for path in sorted(kept):
            row = replace(now[path], embedded=True)
            of_note = [vectors[c.hash] for c in chunks if c.path == path]
            if row.decays and of_note:
                row = _with_centroid(row, np.stack(of_note))
                report.decay_changed = True
            rows.append(row)
        self.ledger.put(self.ns, rows)
        report.written += len(chunks)
        release_free_heap()


@dataclass
class _Waiting:
    """A batch of the embedding pass: the rows as read, their chunks, the vectors found, and
    the embedding of the others."""

    rows: dict[str, FileRow]
    chunks: list[PendingChunk]
    vectors: dict[str, FloatArray]
    embedding: Future[dict[str, FloatArray]] | None


def _same_chunks(now: FileRow | None, then: FileRow) -> bool:
    """`now` is still waiting with the chunks it had `then`."""
    return (now is not None and not now.embedded and now.hash == then.hash
            and now.private == then.private and now.chunk_ids == then.chunk_ids)


def _pending(c: _PlannedChunk, row: FileRow) -> PendingChunk:
    return PendingChunk(c.id, row.private, row.path, c.hash, c.n_tokens, c.text, c.embed_text,
                        dict(c.meta))


def _sparse(c: _PlannedChunk, settings: VaultSettings) -> SparseRow:
    meta = c.meta
    return SparseRow(
        id=c.id,
        path=str(meta["path"]),
        archived=bool(meta["archived"]),
        text=c.text,
        title=" ".join([str(meta["title"]), *(meta.get("aliases") or ())]),
        heading=str(meta["heading_path"]).replace(HEADING_SEPARATOR, " "),
        about=str(meta.get("description") or ""),
        language=note_language(settings, str(meta["path"])) or "",
    )


def _with_centroid(row: FileRow, vectors: FloatArray) -> FileRow:
    return replace(row, centroid=centroid(vectors))
