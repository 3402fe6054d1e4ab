"""The embedding half of the index: vectors for the chunks the words pass left waiting.

`EmbeddingPass` is the part of `sync.Syncer` that embeds: `embed_pending` embeds the chunks the
lexical pass wrote to BM25 and the ledger only (the ledger's `pending_chunks`), newest notes first,
writes them to Chroma and marks their rows embedded (Chroma first, the ledger last, as every write
of the index). One batch is embedded on a background thread while the next is read; paths asked
for meanwhile (`Index.expedite`) are applied by their words at once (`Syncer._expedite`) and
embedded after. A crash leaves the ledger behind Chroma: a restart finds the same rows waiting and
resumes; vectors Chroma already holds are found by their text's hash, never embedded twice.

`Index.request_stop` (the server's shutdown) sets `halt`: the embedding stops at its next slice
of EMBED_SLICE texts and the syncing thread stops waiting for it (`WriteStopped`), so a shutdown
waits for one slice, not a whole batch. The batch being embedded is dropped unwritten: its rows
stay waiting in the ledger, and the next start embeds them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, replace

import numpy as np

from sidecar.errors import OraError
from sidecar.heap import release_free_heap
from sidecar.index.chroma import ChromaStore
from sidecar.index.clusters import centroid
from sidecar.index.ledger import FileRow, Ledger, PendingChunk
from sidecar.index.sync_report import Progress, ProgressFn, SyncReport
from sidecar.models.embedder import Embedder, FloatArray
from sidecar.vault.scan import normalise_rel

# Files are written in batches: big enough for efficient embedding and store calls, small enough
# that progress is saved often (a crash loses at most one batch of work).
BATCH_CHUNKS = 256
BATCH_FILES = 256
# Ledger rows of a whole-vault sync are read this many paths at a time.
LEDGER_WINDOW = 512
# Embedding runs in slices of this many texts (each slice's tokens are the embedder's input).
EMBED_SLICE = 32
# While a batch is being embedded, the syncing thread looks this often (seconds) for paths asked
# for meanwhile (`Index.expedite`: a private flip, an edit) and applies them ahead of the rest of
# a long write.
URGENT_POLL = 0.05


class WriteStopped(OraError):
    """A write stopped because the index is closing (`Index.request_stop`: the server shuts
    down). What it had not written stays as it was, waiting: the next write completes it."""

    code = "shutting_down"
    status = 503

    def __init__(self) -> None:
        super().__init__("the index is closing (the server is shutting down); the next start "
                         "finishes this write")


class EmbeddingPass:
    """Embedding for a `Syncer`: its stores and the state of its running sync."""

    ns: str
    ledger: Ledger
    chroma: ChromaStore
    embedder: Embedder
    model: str
    held_peak: int
    _handled: list[str]
    _refreshed: int
    _embedding: ThreadPoolExecutor | None
    _lexical: bool
    _stop: threading.Event
    # Set once by `Index.request_stop` (any thread): every write of this syncer stops at its next
    # slice or file, and waits for no running embedding.
    halt: threading.Event

    def _expedite(self, report: SyncReport) -> None:
        """Apply the paths asked for meanwhile (`Syncer._expedite`)."""
        raise NotImplementedError

    def check_halt(self) -> None:
        """Raise `WriteStopped` once the index is asked to stop (a shutdown)."""
        if self.halt.is_set():
            raise WriteStopped

    def _embed(
        self, todo: dict[str, str], stop: threading.Event | None = None
    ) -> dict[str, FloatArray]:
        """Vectors by chunk hash of these texts (on the embedding thread, touching no store);
        `stop` ends it at the next slice (an interrupted sync does not wait for a whole batch),
        and so does `halt`, raising: a shutdown drops the batch, never writes part of it."""
        keys = list(todo)
        out: dict[str, FloatArray] = {}
        for start in range(0, len(keys), EMBED_SLICE):
            self.check_halt()
            if stop is not None and stop.is_set():
                break
            part = keys[start : start + EMBED_SLICE]
            out.update(zip(part, self.embedder.embed([todo[k] for k in part]), strict=True))
        return out

    def _vectors(self, vectors: dict[str, FloatArray],
                 embedding: Future[dict[str, FloatArray]] | None,
                 report: SyncReport) -> dict[str, FloatArray]:
        """`vectors` with the batch's embedding's added once it is done, applying urgent paths
        while it runs. A halt (`Index.request_stop`) ends the wait: `WriteStopped`, the batch
        unwritten (the embedding stops at its next slice)."""
        self.check_halt()
        self._expedite(report)
        if embedding is not None:
            while True:
                try:
                    embedded = embedding.result(timeout=URGENT_POLL)
                    break
                except FutureTimeout:
                    self.check_halt()
                    self._expedite(report)
            vectors.update(embedded)
            report.embedded += len(embedded)
        return vectors

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
                progress(Progress(phase, done, total, report.written, report.embedded,
                                  unit="chunks"))

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
        less per CPU-second), each of private notes only or of public notes only.

        The embedder's vectors depend a little on the other texts of its call (the int8
        models quantise their activations per call), so a private note's text in a public
        note's call would shift the public note's vector, a side channel in public scores. The
        public batches are therefore formed as if no private note existed: the same public
        notes, in the same order, cut at the same places."""
        rows: dict[bool, dict[str, FileRow]] = {False: {}, True: {}}
        chunks: dict[bool, list[PendingChunk]] = {False: [], True: []}
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
                side = row.private
                rows[side][path] = row
                chunks[side] += by_path.get(path, [])
                if len(chunks[side]) >= BATCH_CHUNKS or len(rows[side]) >= BATCH_FILES:
                    yield rows[side], chunks[side]
                    rows[side], chunks[side] = {}, []
        for side in (False, True):
            if rows[side]:
                yield rows[side], chunks[side]

    def _start_waiting(
        self, group: tuple[dict[str, FileRow], list[PendingChunk]]
    ) -> _Waiting:
        rows, chunks = group
        hashes = sorted({c.hash for c in chunks})
        private = any(row.private for row in rows.values())  # the batch's side
        found = self.chroma.vectors_by_hash(
            self.ns, hashes, self.model, private=private) if hashes else {}
        todo: dict[str, str] = {}
        # A batch is of one side (`_waiting`): a private text never shares a call with a public.
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
            if of_note:  # every note's: clusters read a decaying note's, search any's
                row = with_centroid(row, np.stack(of_note))
                report.decay_changed |= row.decays
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



def with_centroid(row: FileRow, vectors: FloatArray) -> FileRow:
    return replace(row, centroid=centroid(vectors))
