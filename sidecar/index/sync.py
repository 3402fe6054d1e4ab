"""Bring the stores in line with some files of the vault (the writer's half of the index).

For each file: unchanged (same mtime, size, ctime and inode, or same content hash) → nothing;
changed → read, parse, chunk, and write its chunks. Vectors are reused whenever a stored chunk
has the same embedded text (hash) and model, so a metadata-only edit, a move between folders or a
move into `private` embeds nothing; only new text is embedded. A public chunk takes vectors from
the public store only, and is embedded in no call with a private text (`chroma.vectors_by_hash`,
`_sided`).

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
read, chunked (`plan.py`) and written to BM25 and the ledger with its metadata and privacy, so it
is findable by its words at once; its ledger row says `embedded = 0` and its chunks wait in the
ledger's `pending_chunks` (with what Chroma will need of them). A file whose every chunk text
already has a vector (a move, a metadata edit, a private flip) is written whole at once, as
before. Then `embed_pending` (`embed_pass.py`) embeds the waiting chunks, newest notes first.
A crash in either pass leaves the ledger behind the stores: a restart finds the same rows
waiting and resumes; vectors Chroma already holds are found by their text's hash, never
embedded twice.

A note named by links that a batch changes is indexed again with its incoming-link text once, at
the end of the sync (`Bm25Store.relink_owed`), not at each batch: the notes owing it are recorded
in `bm25.sqlite` with the batch's write, so a crash mid-pass leaves them for the next writer. A
cold sync (empty stores) first gathers the incoming-link text of the whole vault from its public
notes' files (`Planner.linking_body`, `Bm25Store.gather_anchors`), so it owes none at its end.

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
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from sidecar.documents.formats import document_format
from sidecar.heap import release_free_heap
from sidecar.index import embed_pass
from sidecar.index.bm25 import Bm25Store
from sidecar.index.chroma import ChromaStore
from sidecar.index.embed_pass import EmbeddingPass, with_centroid
from sidecar.index.ledger import FileRow, Ledger, PendingChunk, Stamp
from sidecar.index.plan import (
    Planned,
    PlannedChunk,
    Planner,
    Unchanged,
    pending_chunk,
    sparse_row,
)
from sidecar.index.sync_report import Progress, ProgressFn, SyncReport
from sidecar.models.embedder import Embedder, FloatArray
from sidecar.vault.scan import is_ignored, normalise_rel
from sidecar.vault.vault_settings import VaultSettings, default_vault_settings, is_excluded

# The first batch of a sync is this small and each next one twice as big, up to `embed_pass`'s
# BATCH_CHUNKS and BATCH_FILES: on a cold index the newest notes are searchable within seconds.
FIRST_BATCH = 8
# The lexical pass embeds nothing and holds one batch (text and metadata, no vectors): batches
# this large make few BM25 commits (each commit costs ~0.1 s of tantivy's time: at 256 chunks a
# batch they were a third of a 4,000-note pass, bench/bench_findable.py).
LEXICAL_BATCH_CHUNKS = 2048
LEXICAL_BATCH_FILES = 1024

UrgentFn = Callable[[], set[str]]  # drains the paths to apply now


def _sided(private: bool, chunk_hash: str) -> str:
    """A vector's key in a batch: its text's hash on its side (one text, one vector per side)."""
    return f"{int(private)}:{chunk_hash}"


@dataclass
class _Batch:
    """Files on their way to the stores: the vectors found for their chunks, the embedding of the
    others (running in the background), and where the log of urgently written paths stood when
    the first of them was planned (a plan older than an urgent write of its path is stale)."""

    plans: list[Planned]
    vectors: dict[str, FloatArray]
    embedding: Future[dict[str, FloatArray]] | None
    since: int
    chunks: int = 0  # planned chunks, counted by `held_peak` until written
    lexical: frozenset[str] = frozenset()  # paths written to BM25 now, embedded later


class Syncer(EmbeddingPass):
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
        self.halt = threading.Event()  # the index is closing: every write stops (`embed_pass`)
        self.vault = vault
        self.ns = namespace
        self.ledger = ledger
        self.bm25 = bm25
        self.chroma = chroma
        self.embedder = embedder
        self.model = embedder.model_id
        self.planner = Planner(vault, embedder, chunk_tokens, max_file_bytes,
                               settings or default_vault_settings())
        # The most chunks planned but not yet written at once, over every sync of this syncer.
        self.held_peak = 0


    @property
    def settings(self) -> VaultSettings:
        """The vault's ora.yaml: effective types and exclusions (the index refreshes it)."""
        return self.planner.settings

    @settings.setter
    def settings(self, settings: VaultSettings) -> None:
        self.planner.settings = settings

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

        `quick` trusts an unchanged stamp (mtime, size, ctime, inode) without reading the file.
        `progress` is called only between batches, so an exception it raises stops the sync with
        every write either committed or not begun (the next sync resumes). `recent_first` takes
        files in order of modification, newest first (else by path). `lexical` writes files
        needing new vectors to BM25 and the ledger only, for `embed_pending` to finish.
        """
        wanted = sorted({normalise_rel(r) for r in rels})
        if recent_first:
            wanted.sort(key=self._age)
        if self._nested:  # an urgent sync: small, and inside a top-level one's embedding wait
            return self._sync(wanted, quick, progress)
        # A cold pass: the whole vault's incoming-link text first, so no note's document is
        # written again for it at the end (a newest-first pass writes half the linked notes
        # before the notes linking to them).
        self.bm25.gather_anchors(self.ns, (
            (rel, body) for rel in self._until_halt(wanted)  # a halt rolls it back
            if not self._skipped(rel) and (body := self.planner.linking_body(rel)) is not None))
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
        batch: list[Planned] = []
        batch_chunks = 0
        since = 0
        pending: _Batch | None = None  # the batch being embedded, written once the next is planned
        limit = FIRST_BATCH
        stamps: list[tuple[str, Stamp]] = []
        gone: list[str] = []

        def tell(phase: str, done: int) -> None:
            if progress is not None:
                progress(Progress(phase, done, len(wanted), report.written, report.embedded))

        for done, rel in enumerate(wanted, 1):
            self.check_halt()  # the batch being planned and the one embedding are dropped
            if (done - 1) % embed_pass.LEDGER_WINDOW == 0:
                keep = {p.row.path for p in batch} | (
                    {p.row.path for p in pending.plans} if pending is not None else set())
                known = {p: r for p, r in known.items() if p in keep}
                window = wanted[done - 1 : done - 1 + embed_pass.LEDGER_WINDOW]
                known.update(self.ledger.rows(self.ns, window))
            old = known.get(rel)
            plan = None if self._skipped(rel) else self.planner.plan(rel, old, quick)
            if plan is None:
                if old is not None:
                    gone.append(rel)
                else:
                    report.unchanged.add(rel)
            elif isinstance(plan, Unchanged):
                report.unchanged.add(rel)
                if old is not None and old.stamp != plan.stamp:
                    stamps.append((rel, plan.stamp))
            else:
                if not batch:
                    since = len(self._handled)
                batch.append(plan)
                batch_chunks += len(plan.chunks)
                held = batch_chunks + (pending.chunks if pending is not None else 0)
                self.held_peak = max(self.held_peak, held)
                most = ((LEXICAL_BATCH_CHUNKS, LEXICAL_BATCH_FILES) if self._lexical
                        else (embed_pass.BATCH_CHUNKS, embed_pass.BATCH_FILES))
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
        step = embed_pass.LEDGER_WINDOW
        for start in range(0, len(gone), step):  # an urgent sync may have removed some
            found = self.ledger.rows(self.ns, gone[start : start + step])
            self._remove(list(found.values()), report)
        if self._defer:  # the notes whose incoming-link text changed, each once
            self.bm25.relink_owed(self.ns)
        tell("done", len(wanted))
        return report

    def _until_halt(self, rels: list[str]) -> Iterator[str]:
        """`rels`, raising `WriteStopped` before the next once the index is asked to stop."""
        for rel in rels:
            self.check_halt()
            yield rel

    def _skipped(self, rel: str) -> bool:
        """Whether the file at `rel` is not the index's (ignored, or excluded by ora.yaml)."""
        return (is_ignored(rel) and document_format(rel) is None) or is_excluded(
            self.settings, rel)

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
        plan = self.planner.plan(rel, self.ledger.rows(self.ns, [rel]).get(rel), quick=False)
        if not isinstance(plan, Planned) or not plan.chunks:
            return False
        hashes = sorted({c.hash for c in plan.chunks})
        found = self.chroma.vectors_by_hash(self.ns, hashes, self.model, private=plan.row.private)
        return len(found) < len(hashes)

    @property
    def _defer(self) -> bool:
        """A top-level sync indexes the notes whose incoming-link text its batches change once,
        at its end, not at each batch (a hub linked from every batch of a cold pass was indexed
        again at each); an urgent one, applied in the middle of another's pass, does so at once."""
        return not self._nested

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

    def _start(self, plans: list[Planned], since: int) -> _Batch:
        """Find the batch's vectors in the stores and start embedding the rest."""
        chunks = [(p.row.private, c) for p in plans for c in p.chunks]
        # Vectors by side and hash (`_sided`): a public chunk takes none found in the private
        # store, and is embedded in no call with a private text.
        found: dict[str, FloatArray] = {}
        for side in (False, True):
            hashes = sorted({c.hash for private, c in chunks if private == side})
            if hashes:
                found |= {_sided(side, h): v for h, v in self.chroma.vectors_by_hash(
                    self.ns, hashes, self.model, private=side).items()}
        if self._lexical:
            lexical = frozenset(p.row.path for p in plans if any(
                _sided(p.row.private, c.hash) not in found for c in p.chunks))
            return _Batch(plans, found, None, since, len(chunks), lexical)
        todo: dict[bool, dict[str, str]] = {False: {}, True: {}}
        # Shortest first, so each slice's texts are of a length and pad little: in file order,
        # slices of mixed lengths took ~7 % more model time (bench_index_speed's 1,106 texts).
        for private, c in sorted(chunks, key=lambda pc: pc[1].n_tokens):
            if _sided(private, c.hash) not in found:
                todo[private].setdefault(_sided(private, c.hash), c.embed_text)
        if not todo[False] and not todo[True]:
            return _Batch(plans, found, None, since, len(chunks))
        pool = self._embedding if self._pipelined else None
        if pool is None:
            done: Future[dict[str, FloatArray]] = Future()
            done.set_result(self._embed_sides(todo))
            return _Batch(plans, found, done, since, len(chunks))
        return _Batch(plans, found, pool.submit(self._embed_sides, todo, self._stop), since,
                      len(chunks))

    def _embed_sides(self, todo: dict[bool, dict[str, str]],
                     stop: threading.Event | None = None) -> dict[str, FloatArray]:
        """`_embed` of each side's texts apart: a call never mixes public and private texts."""
        return {k: v for side in (False, True) if todo[side]
                for k, v in self._embed(todo[side], stop).items()}

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
        known_here: set[str] = set()  # chunk ids the store the plan writes to may hold already
        upserts: dict[bool, list[PlannedChunk]] = {False: [], True: []}
        lexical: dict[bool, list[PlannedChunk]] = {False: [], True: []}
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
                if old.private == row.private:
                    known_here.update(old.chunk_ids)
            if row.path in batch.lexical:
                # Findable by its words now; Chroma keeps what it holds of the note's kept chunk
                # ids (their vectors are reused by hash) until the embedding pass rewrites them.
                lexical[row.private].extend(plan.chunks)
                pending.extend(pending_chunk(c, row) for c in plan.chunks)
                # Its mean vector too, for search and clusters: an edit seldom moves it far.
                rows.append(replace(row, embedded=False,
                                    centroid=None if old is None else old.centroid))
                continue
            upserts[row.private].extend(plan.chunks)
            if plan.chunks:  # every note's: clusters read a decaying note's, search any's
                row = with_centroid(row, np.stack(
                    [vectors[_sided(row.private, c.hash)] for c in plan.chunks]))
            if row.decays or (old is not None and old.decays):
                report.decay_changed = True
            rows.append(row)
        for private, chunks in upserts.items():
            chunks = self._unwritten(private, chunks, known_here)
            if chunks:
                self.chroma.upsert(
                    self.ns, private, [c.id for c in chunks],
                    np.stack([vectors[_sided(private, c.hash)] for c in chunks]),
                    [c.text for c in chunks], [c.meta for c in chunks],
                )  # fmt: skip
        for private, ids in deletes.items():
            if ids:
                self.chroma.delete(self.ns, private, ids)
        self.bm25.replace(
            self.ns,
            deletes={p: ids for p, ids in deletes.items() if ids},
            inserts={p: [sparse_row(c, self.settings) for c in [*cs, *lexical[p]]]
                     for p, cs in upserts.items() if cs or lexical[p]},
            defer=self._defer,
        )
        self.ledger.put(self.ns, rows, pending)
        report.written += sum(len(p.chunks) for p in plans)
        for row in rows:
            known[row.path] = row
        release_free_heap()  # the batch's temporaries are freed: keep the heap from growing

    def _unwritten(self, private: bool, chunks: list[PlannedChunk],
                   known_here: set[str]) -> list[PlannedChunk]:
        """`chunks` but those the store holds already with the same text and metadata (a note
        planned again unchanged, after a settings change that did not touch it): rewriting them
        cost most of a re-plan (3 s a batch, readers waiting on Chroma meanwhile) and left
        Chroma's graph a deleted entry each. Their vectors are kept: of the same text and model
        (the metadata names the model)."""
        held = [c.id for c in chunks if c.id in known_here]
        if not held:
            return chunks
        stored = self.chroma.get(self.ns, private, held)

        def kept(c: PlannedChunk) -> bool:
            # a None in the plan's metadata deletes the key (`chunk_metadata`): stored, it is absent
            text, meta = stored.get(c.id, (None, {}))
            return text == c.text and dict(meta) == {k: v for k, v in c.meta.items()
                                                     if v is not None}

        return [c for c in chunks if not kept(c)]

    def _remove(self, rows: list[FileRow], report: SyncReport) -> None:
        by_store: dict[bool, list[str]] = {False: [], True: []}
        for row in rows:
            by_store[row.private].extend(row.chunk_ids)
            report.decay_changed = report.decay_changed or row.decays
        for private, ids in by_store.items():
            if ids:
                self.chroma.delete(self.ns, private, ids)
        self.bm25.replace(self.ns, deletes={p: i for p, i in by_store.items() if i}, inserts={},
                          defer=self._defer)
        self.ledger.delete(self.ns, [r.path for r in rows])
        report.removed += sum(len(ids) for ids in by_store.values())
