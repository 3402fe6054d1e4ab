"""The lockstep index: Chroma (dense) + BM25 (tantivy, SQLite) + the ledger, in step with a vault.

One writer (an OS lock on `DATA/lock`) and any number of reader threads: searches may run while
the writer reconciles in another thread. Writes are serialised by a lock inside the object.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from sidecar.chunking.chunker import CHUNKER_VERSION
from sidecar.data_folder import private_folder, private_tree
from sidecar.documents.formats import is_document, iter_document_paths, named_as_document
from sidecar.documents.places import documents_seen
from sidecar.errors import BadRequest, IndexLocked, OraError
from sidecar.index import flips, leads
from sidecar.index.bm25 import TOKENIZE
from sidecar.index.bm25_query import Bm25Query
from sidecar.index.chroma import Metadata
from sidecar.index.clusters import ClusterMember, assign_in_order
from sidecar.index.consistency import repair
from sidecar.index.damage import open_stores
from sidecar.index.embed_pass import LEDGER_WINDOW
from sidecar.index.indexing import IndexingProgress
from sidecar.index.lock import WriterLock
from sidecar.index.names import check_namespace
from sidecar.index.records import ChunkFacts, ChunkRecord, record_from_store
from sidecar.index.reembed import reembed_estimate, seconds_per_chunk
from sidecar.index.scope import NoteFilter, Scope
from sidecar.index.sync import Syncer
from sidecar.index.sync_report import Progress, ProgressFn, SyncReport
from sidecar.index_params import load_params, save_namespace_params, stale_parts
from sidecar.language.languages import shares as language_shares
from sidecar.models.choice import load_embedder
from sidecar.models.embedder import Embedder, FloatArray
from sidecar.privacy.egress import may_send_private, withheld
from sidecar.schema import get_schema, load_json
from sidecar.settings import Config
from sidecar.vault.scan import NAME_PROBLEMS, iter_note_paths, normalise_rel, unusable_names
from sidecar.vault.temp_files import sweep_vault
from sidecar.vault.vault_settings import is_excluded, known_privacy, load_vault_settings

log = logging.getLogger(__name__)
CLOSE_WAIT_S = 120.0  # the most a close waits for a running write (one that hangs)

EVENT_KINDS = ("created", "modified", "deleted", "renamed")
# Notes whose cluster moved are rewritten this many at a time (their chunk ids and metadata).
_CLUSTER_WINDOW = 512
# In DATA/index.json: what of the vault's settings the namespace was last planned with.
_SETTINGS_KEY = "vault_settings"



def _check_chroma_url(config: Config) -> None:
    """A Chroma server holds the text of every chunk, private notes' included: one elsewhere is
    used only when its host is trusted with private text (`sidecar/privacy/egress.py`)."""
    url = str(config.chroma_url)
    if url and not may_send_private(config, url):
        raise BadRequest(f"{withheld('the Chroma server', url)}; it would hold every note's "
                         "text, private ones included: run it on this machine, or name its host "
                         "there (docs/privacy.md)")

class Index:
    """An open index over one vault and data folder; see `open_index`."""

    def __init__(self, config: Config, *, writer: bool, embedder: Embedder | None) -> None:
        self.config = config
        self.namespace = check_namespace(str(config.namespace))
        self.writer = writer
        private_folder(config.data)
        self._lock = WriterLock(config.data) if writer else None
        self._write_guard = threading.Lock()
        self._syncer: Syncer | None = None
        # Set when opening re-embeds for a changed model: what, and how long (reembed.py).
        self.reembedding: dict[str, Any] | None = None
        self._urgent: set[str] = set()  # see expedite()
        self._temp_swept = False  # see _sweep_once()
        self._urgent_lock = threading.Lock()
        # The vault's ora.yaml (effective types, exclusions); refreshed by every reconcile. A
        # writer never plans notes by settings that cannot say which notes are private.
        self.vault_settings = load_vault_settings(config.vault, config.data)
        if writer:
            known_privacy(self.vault_settings)
        self.progress = IndexingProgress(config.data)
        try:
            _check_chroma_url(config)
            # Damaged files: rebuilt by a writer, reported by a reader (damage.py).
            self.ledger, self.bm25, self.chroma = open_stores(
                config.data, config.vault, self.namespace, str(config.chroma_url), writer=writer)
            if writer:
                self._open_writer(embedder or load_embedder(config))
            elif self.bm25.of_another_version(self.namespace):
                self._catch_up_bm25()
        except BaseException:
            self.close()
            raise

    # ---- writer --------------------------------------------------------------------------------

    def vectors_model(self, namespace: str | None = None) -> str:
        """The model id whose vectors `namespace` holds ("" before any). A writer's own
        namespace holds its embedder's (opening re-embeds it otherwise): known without reading
        index.json, so a server's searches read no file for it."""
        ns = self._ns(namespace)
        if self._syncer is not None and ns == self.namespace:
            return str(self._syncer.embedder.model_id)
        return str((load_params(self.config.data)["namespaces"].get(ns) or {}).get("model") or "")

    def _open_writer(self, embedder: Embedder) -> None:
        self._syncer = Syncer(
            self.config.vault, self.namespace, ledger=self.ledger, bm25=self.bm25,
            chroma=self.chroma, embedder=embedder, chunk_tokens=int(self.config.chunk_tokens),
            max_file_bytes=int(self.config.max_file_bytes), settings=self.vault_settings,
            urgent=self._take_urgent, after_urgent=self._recluster,
        )  # fmt: skip
        current = {
            "model": embedder.model_id,
            "dim": int(embedder.dim),
            "chunk_tokens": int(self.config.chunk_tokens),
            "chunker": CHUNKER_VERSION,
            "bm25_tokenize": TOKENIZE,
        }
        saved = load_params(self.config.data)["namespaces"].get(self.namespace)
        if saved is not None and saved.get("bm25_tokenize") != TOKENIZE:
            # Opened by a sidecar of another BM25 engine since (the ledger's back-fill aside,
            # a downgrade): one older than the tag table wrote rows without their tags.
            self.ledger.refill_tags()
        vectors_stale, chunks_stale = stale_parts(saved, current)
        if vectors_stale:
            self.reembedding = reembed_estimate(
                (saved or {}).get("model"), embedder,
                self.ledger.stats(self.namespace)["chunks"], self._sample_texts())
            self._wipe()
        elif chunks_stale:
            # Every note is re-planned at the next reconcile, each replacing its own chunks.
            # The BM25 store (where chunk texts live) stays: a writer that never reconciles
            # (`ora ask --conversation`, `ora resolve`) must not leave search with nothing.
            self.ledger.mark_dirty(self.namespace)
        self._create_stores()
        # Kept across openings: reconcile compares it with the vault's current settings.
        kept = (saved or {}).get(_SETTINGS_KEY) if not vectors_stale else None
        save_namespace_params(self.config.data, self.namespace, {**current, _SETTINGS_KEY: kept})

    def _refresh_settings(self, syncer: Syncer) -> None:
        """Re-read ora.yaml (and Obsidian's exclusions); when what the index depends on changed,
        every note is re-planned (vectors are reused wherever the embedded text is the same)."""
        settings = known_privacy(load_vault_settings(self.config.vault, self.config.data))
        self.vault_settings = syncer.settings = settings
        saved = load_params(self.config.data)["namespaces"].get(self.namespace) or {}
        if saved.get(_SETTINGS_KEY) != settings.index_key():
            self.ledger.mark_dirty(self.namespace)
            save_namespace_params(self.config.data, self.namespace,
                                  {**saved, _SETTINGS_KEY: settings.index_key()})

    def switch_estimate(self, embedder: Embedder) -> dict[str, Any]:
        """What switching this index to `embedder` would cost, before anything changes:
        {"from", "to", "chunks", "estimate_s", "reembeds"}, timed as `reembed_estimate` does."""
        saved = load_params(self.config.data)["namespaces"].get(self.namespace) or {}
        chunks = int(self.ledger.stats(self.namespace)["chunks"])
        estimate = reembed_estimate(saved.get("model"), embedder, chunks, self._sample_texts())
        if estimate is None:  # the same model, or nothing embedded yet
            return {"from": saved.get("model"), "to": embedder.model_id, "chunks": chunks,
                    "estimate_s": 0.0, "reembeds": False}
        return {**estimate, "reembeds": True}

    def scaled_estimate(self, cost: float) -> dict[str, Any]:
        """{"chunks", "estimate_s"}: re-embedding this index with a model `cost` times as slow a
        chunk as the embedder in use (timed on a few of the index's chunks): what a model not yet
        downloaded would take (`language_offer.py`); 0 s when nothing is indexed."""
        chunks = int(self.ledger.stats(self.namespace)["chunks"])
        if chunks == 0:
            return {"chunks": 0, "estimate_s": 0.0}
        per_chunk = seconds_per_chunk(self._need_writer().embedder, self._sample_texts())
        return {"chunks": chunks, "estimate_s": round(per_chunk * cost * chunks, 1)}

    def _sample_texts(self, n: int = 8) -> list[str]:
        """A few chunk texts of the index as it is (to time a new embedder on)."""
        ids = self.ledger.first_chunk_ids(self.namespace, n)
        try:
            return [c.text for c in self.get_chunks(ids, private=True).values()]
        except OraError:  # a damaged store: the estimate times a placeholder instead
            return []

    def _catch_up_bm25(self) -> None:
        """A reader of engines an older Ora built rebuilds them from their tables when no
        writer holds the index: a query is analysed by this version's rules, and an engine of
        other rules misses its words (after an upgrade, `ora search` before any `ora index`).
        Seconds for most vaults, once. With a writer holding the index (an older sidecar still
        running), the reader says why results may miss notes."""
        try:
            lock = WriterLock(self.config.data)
        except IndexLocked:
            log.warning("the keyword index in %s is out of step with this version of Ora and "
                        "is held by another process: keyword results may miss notes until that "
                        "process is restarted", self.config.data)
            return
        except OSError as exc:  # a data folder this user may read but not write
            log.warning("the keyword index in %s is out of step with this version of Ora and "
                        "cannot be rebuilt here (%s): keyword results may miss notes until "
                        "`ora index` runs", self.config.data, exc)
            return
        try:
            log.info("bringing the keyword index up to date (once, after an upgrade)")
            self.bm25.create(self.namespace)
        finally:
            lock.release()

    def _create_stores(self) -> None:
        self.bm25.create(self.namespace)
        self.chroma.settle(self.namespace)  # what a compaction stopped by a crash left
        for private in (False, True):
            self.chroma.collection(self.namespace, private, create=True)

    def _wipe(self) -> None:
        # The ledger first: it is then never ahead of the stores (a crash meanwhile leaves only
        # orphans, which the next reconcile removes), and a reader in another process never
        # finds it listing chunks a store has already dropped (damage.py would call that damage).
        self.ledger.drop(self.namespace)
        self.bm25.drop(self.namespace)
        self.chroma.drop(self.namespace)

    def _need_writer(self) -> Syncer:
        if self._syncer is None:
            raise BadRequest("this index was opened read-only; open it with writer=True")
        return self._syncer

    def rebuild(self, progress: ProgressFn | None = None) -> dict[str, Any]:
        """Drop this namespace's stores and ledger rows, then index the whole vault."""
        self._need_writer()
        with self._write_guard:
            self._wipe()
            self._create_stores()
        return self.reconcile(progress)

    def reconcile(self, progress: ProgressFn | None = None) -> dict[str, Any]:
        """Repair the stores after any crash, then bring the whole vault in line.

        Returns {"files", "chunks", "embedded", "removed", "seconds", "errors"}; `embedded` and
        `removed` count chunks this run embedded and deleted. An exception raised by `progress`
        stops the run between batches; the next reconcile finishes the work. Two passes: every
        changed note is first written by its words (BM25 and the ledger, findable at once), then
        embedded (`Syncer.embed_pending`); recently modified notes go first in each (the likeliest
        to be searched while a cold index runs); readers meanwhile see `indexing()`.
        `request_stop` (another thread) stops it within one embedding slice: `WriteStopped`.
        """
        syncer = self._need_writer()
        started = time.monotonic()

        def tell(p: Progress) -> None:
            if p.phase != "done":
                self.progress.update(p.done, p.total, "meaning" if meaning else "words")
            if progress is not None:
                progress(p)

        meaning = False
        with self._write_guard:
            try:
                self._refresh_settings(syncer)
                repair(self.namespace, self.ledger, self.bm25, self.chroma)
                paths = set(iter_note_paths(self.config.vault))
                paths.update(iter_document_paths(self.config.vault))
                self._sweep_once(paths)  # the folders walked, before the ledger's paths
                paths.update(self.ledger.paths(self.namespace))
                # First every note by its words (BM25, the ledger), then their meaning.
                began = flips.sequence()
                report = syncer.sync(paths, quick=True, progress=tell, recent_first=True,
                                     lexical=True)
                flips.release(self.config.vault, paths, before=began)
                meaning = True
                embedded = syncer.embed_pending(tell)
                report.embedded += embedded.embedded
                # Always, not only after a change: a run stopped before this step (a crash, a
                # shutdown) has already written its notes, so no later change would trigger it.
                self._recluster(report, force=True)
                self._refresh_leads(syncer, self.ledger.paths(self.namespace))
                self.chroma.compact(self.namespace)
            finally:
                self.progress.finish()
        summary = self._summary(report, started)
        # Counted here only (ora index): a walk over the ledger's paths, not for every event.
        summary["documents"] = sum(map(is_document, self.ledger.paths(self.namespace)))
        summary["errors"] += [  # skipped, never stored: their names cannot be
            {"path": shown, "message": f"{NAME_PROBLEMS[problem]}; rename it to index it"}
            for shown, problem in unusable_names(self.config.vault, also=named_as_document)]
        return summary

    def _sweep_once(self, walked: Iterable[str]) -> None:
        """At this index's first reconcile (the start of `ora serve`, `watch` and `index`),
        clear the vault of the copies writes killed mid-way left (`temp_files.sweep_vault`), through
        the folders of the walk just made: no second walk of the vault."""
        if self._temp_swept:
            return
        self._temp_swept = True
        taken = sweep_vault(Path(self.config.vault), walked, self.vault_settings)
        if taken:
            log.info("cleared %d temporary file(s) of writes killed mid-way", len(taken))

    def indexing(self) -> dict[str, Any] | None:
        """{"done", "total", "percent", "phase"} while a reconcile runs (this writer or another
        process's), else None; `phase` "meaning" once every note is findable by its words."""
        return self.progress.current()

    def expedite(self, rel_paths: Iterable[str]) -> None:
        """Ask a running write to apply these paths while it waits for its embedding, ahead of its
        remaining work (a private flip must not wait behind a large paste; the privacy move
        itself embeds nothing). Thread-safe; the caller still applies them as usual, and the
        next write takes any left over."""
        with self._urgent_lock:
            self._urgent.update(normalise_rel(p) for p in rel_paths)

    def request_stop(self) -> None:
        """Stop every write of this index, running or to come, at its next embedding slice or
        file (`WriteStopped`), its unwritten work left waiting for the next start (the server's
        shutdown: it must not wait for a whole batch). Thread-safe; for an index about to close."""
        if self._syncer is not None:
            self._syncer.halt.set()

    def hold_flips(self, rel_paths: Iterable[str]) -> None:
        """Hold private (`flips.py`) those of these notes filed as public whose own words make
        them private now, until a write applies them: a batch of notes tagged private leaves
        non-private answers at once, not one note at a time as their vectors move. Thread-safe;
        reads each such note once (documents are private by where they lie: the settings)."""
        asked = {normalise_rel(p) for p in rel_paths}
        if any(map(is_document, asked)):
            documents_seen()  # one moved into a private folder takes its page notes with it
        paths = sorted(p for p in asked if not is_document(p))
        settings, limit = self.vault_settings, int(self.config.max_file_bytes)
        rows = self.ledger.rows(self.namespace, paths)
        flipped = [p for p in paths if (row := rows.get(p)) is not None and not row.private
                   and flips.reads_private(self.config.vault, p, settings, limit)]
        if flipped:
            flips.hold(self.config.vault, flipped, settings, limit)

    def _take_urgent(self) -> set[str]:
        with self._urgent_lock:
            taken, self._urgent = self._urgent, set()
        return taken

    def apply_paths(self, rel_paths: Iterable[str], folders: Iterable[str] = ()) -> dict[str, Any]:
        """Bring these vault-relative paths (present, changed or deleted) in line, and the notes
        the ledger lists under `folders` (moved away, deleted, replaced by a link), read once
        this write holds the write lock: a write running when the folder's event came (a
        watcher batch, a reconcile) may have written notes under it since. The summary's
        "paths" are the paths applied, the folders' notes included."""
        started = time.monotonic()
        report, applied = self._apply(rel_paths, folders)
        return {**self._summary(report, started), "paths": sorted(applied)}

    def _apply(
        self, rel_paths: Iterable[str], folders: Iterable[str] = ()
    ) -> tuple[SyncReport, set[str]]:
        """Apply `rel_paths` and the notes under `folders`; the report, and those paths."""
        syncer = self._need_writer()
        with self._write_guard:
            began = flips.sequence()  # holds placed from here on wait for a later write
            asked = {normalise_rel(p) for p in rel_paths}
            for folder in folders:
                asked.update(self.ledger.paths_under(self.namespace, normalise_rel(folder)))
            # Findable by their words at once (a search meanwhile finds them), then embedded.
            paths = {*asked, *self._take_urgent()}
            report = syncer.sync(paths, quick=False, lexical=True)
            flips.release(self.config.vault, paths, before=began)
            embedded = syncer.embed_pending(paths=paths)
            report.embedded += embedded.embedded
            report.decay_changed = report.decay_changed or embedded.decay_changed
            self._recluster(report)
            self._refresh_leads(syncer, paths)
            self.chroma.compact(self.namespace)  # the moves' deleted vectors (chroma.py)
        return report, asked

    def _refresh_leads(self, syncer: Syncer, paths: Iterable[str]) -> None:
        """Embed and store the lead sentences of these notes that changed (`leads.py`), when the
        embedder's calibration lifts by them. Read from each note's first chunk as indexed; a
        note gone has none (`Ledger.delete` dropped it)."""
        model = syncer.embedder.model_id
        if not leads.wanted(model):
            return
        ordered = sorted(set(paths))
        for start in range(0, len(ordered), LEDGER_WINDOW):
            rows = self.ledger.rows(self.namespace, ordered[start : start + LEDGER_WINDOW])
            firsts = {path: row.chunk_ids[0] for path, row in rows.items() if row.chunk_ids}
            texts = {}  # each first chunk's (path, text), from whichever store holds it
            for private in (False, True):
                texts.update(self.bm25.paths_of(self.namespace, private, list(firsts.values())))
            sentences = {path: leads.lead(texts[first][1]) if first in texts else None
                         for path, first in firsts.items()}
            sentences.update({path: None for path in rows if path not in firsts})
            stored = self.ledger.lead_keys(self.namespace, list(sentences))
            todo = [(path, sentence) for path, sentence in sentences.items()
                    if stored.get(path) != leads.key(model, sentence)]
            for at in range(0, len(todo), leads.BATCH):
                syncer.check_halt()  # the leads not yet stored are refreshed by the next write
                batch = todo[at : at + leads.BATCH]
                said = {path: sentence for path, sentence in batch if sentence}
                vectors: dict[str, FloatArray] = dict(zip(
                    said, syncer.embedder.embed(list(said.values())), strict=True)) if said else {}
                self.ledger.put_leads(self.namespace, [
                    (path, leads.key(model, sentence), vectors.get(path))
                    for path, sentence in batch])

    def apply_events(self, events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Apply editor events {"kind", "path", "old_path"?}; an event whose file already has the
        ledger's content (or is already gone) counts as deduplicated."""
        paths: list[list[str]] = []
        for event in events:
            kind, path = event.get("kind"), event.get("path")
            if kind not in EVENT_KINDS or not isinstance(path, str):
                raise BadRequest(f"bad event {dict(event)!r}: kind must be one of {EVENT_KINDS}")
            old = event.get("old_path")
            if kind == "renamed" and not isinstance(old, str):
                raise BadRequest("a renamed event needs old_path")
            group = [path, old] if kind == "renamed" and isinstance(old, str) else [path]
            paths.append([normalise_rel(p) for p in group])
        started = time.monotonic()
        self.hold_flips(p for group in paths for p in group)  # before it waits for the writer
        report, _ = self._apply(p for group in paths for p in group)
        deduplicated = sum(1 for group in paths if all(p in report.unchanged for p in group))
        return {
            "accepted": len(events) - deduplicated,
            "deduplicated": deduplicated,
            **self._summary(report, started),
        }

    def _recluster(self, report: SyncReport, *, force: bool = False) -> None:
        """Re-run cluster assignment when a decay-eligible note changed (or `force`); write what
        moved."""
        if not (force or report.decay_changed):
            return
        current: dict[str, str | None] = {}

        def members() -> Iterator[ClusterMember]:
            for r in self.ledger.cluster_members(self.namespace):
                current[r.path] = r.cluster
                yield ClusterMember(r.path, r.date, r.title, r.declared, r.centroid, r.private)

        # A factory: the private members' pass reads the ledger a second time (clusters.py).
        assigned = assign_in_order(members, get_schema().cluster_threshold)
        moved = sorted(p for p, c in assigned.items() if current[p] != c)
        for start in range(0, len(moved), _CLUSTER_WINDOW):  # Chroma first, then the ledger
            rows = self.ledger.rows(self.namespace, moved[start : start + _CLUSTER_WINDOW])
            ids: dict[bool, list[str]] = {False: [], True: []}
            metas: dict[bool, list[Metadata]] = {False: [], True: []}
            for path, row in rows.items():
                ids[row.private].extend(row.chunk_ids)
                metas[row.private].extend({"cluster": assigned[path]} for _ in row.chunk_ids)
            for private in (False, True):
                if ids[private]:
                    self.chroma.update_metadata(self.namespace, private, ids[private],
                                                metas[private])
            self.ledger.set_clusters(self.namespace, {p: assigned[p] for p in rows})

    def _summary(self, report: SyncReport, started: float) -> dict[str, Any]:
        return {
            **self.stats(),
            "embedded": report.embedded,
            "removed": report.removed,
            "seconds": round(time.monotonic() - started, 3),
            "errors": self.ledger.errors(self.namespace),
        }

    # ---- readers -------------------------------------------------------------------------------

    def _ns(self, namespace: str | None) -> str:
        return self.namespace if namespace is None else check_namespace(namespace)

    def dense_search(
        self,
        vector: FloatArray,
        k: int,
        *,
        private: bool,
        namespace: str | None = None,
        include_archived: bool = False,
        only: Scope | None = None,
    ) -> list[tuple[str, float]]:
        """Top-k (chunk id, cosine similarity); private stores only when `private`; among the
        chunk ids of `only` (see `scope`) when given."""
        ns = self._ns(namespace)
        hits: list[tuple[str, float]] = []
        for store_private in (False, True) if private else (False,):
            hits += self.chroma.query(
                ns, store_private, vector, k, include_archived=include_archived,
                live=functools.partial(self.bm25.live_among, ns, store_private),
                only=None if only is None else only.get(store_private, []),
            )
        hits.sort(key=lambda h: (-h[1], h[0]))
        return hits[:k]

    def bm25_search(
        self,
        query: str,
        k: int,
        *,
        private: bool,
        namespace: str | None = None,
        include_archived: bool = False,
        only: Scope | None = None,
        prepared: Bm25Query | None = None,
    ) -> list[tuple[str, float]]:
        """Top-k (chunk id, BM25 score, larger is better); private stores only when `private`;
        among the chunk ids of `only` (see `scope`) when given; `prepared` (a `Bm25Query` of
        `query`) shares its feedback with `bm25_notes`."""
        return self.bm25.search(
            self._ns(namespace), query, k, private=private, include_archived=include_archived,
            only=only, prepared=prepared,
        )

    def bm25_notes(
        self, query: str, k: int, *, private: bool, namespace: str | None = None,
        include_archived: bool = False, prepared: Bm25Query | None = None,
    ) -> dict[str, float]:
        """The note-level BM25 scores of the best `k` notes, by path, as shares of the best
        (`note_level.py`); empty for a query in a store that takes no feedback (English)."""
        return self.bm25.note_scores(
            self._ns(namespace), query, k, private=private, include_archived=include_archived,
            prepared=prepared)

    def scope(
        self, note_filter: NoteFilter, *, private: bool, namespace: str | None = None
    ) -> Scope | None:
        """The chunk ids, by store, of the notes `note_filter` admits (None: no filter)."""
        if not note_filter.active:
            return None
        out: Scope = {False: [], True: []}
        for is_private, chunk_id in self.ledger.scope_ids(
                self._ns(namespace), note_filter, private=private):
            out[is_private].append(chunk_id)
        return out

    def get_chunks(
        self, ids: Sequence[str], *, private: bool, namespace: str | None = None
    ) -> dict[str, ChunkRecord]:
        """Records of the given chunk ids; private chunks only when `private`."""
        ns = self._ns(namespace)
        found: dict[str, tuple[str, Mapping[str, Any]]] = {}
        for store_private in (False, True) if private else (False,):
            found.update(self.chroma.get(ns, store_private, list(ids)))
        # Chunks not yet embedded: as the ledger holds them (Chroma may hold an older version).
        found.update(self.ledger.pending_records(ns, ids, private=private))
        found = {cid: (text, meta) for cid, (text, meta) in found.items()
                 # excluded since it was indexed; the next reconcile removes it
                 if not is_excluded(self.vault_settings, str(meta.get("path", "")))}

        def place(meta: Mapping[str, Any]) -> tuple[str | None, str, str]:
            cluster = meta.get("cluster")
            return (str(cluster) if cluster else None, str(meta.get("type", "")),
                    str(meta.get("date", "")))

        newer = self._newer_counter(ns, [place(meta) for _, meta in found.values()],
                                    private=private)
        return {cid: record_from_store(cid, text, meta, newer(*place(meta)))
                for cid, (text, meta) in found.items()}

    def public_paths(self, ids: Sequence[str], *, namespace: str | None = None) -> dict[str, str]:
        """The note path of each of `ids` filed in the public store."""
        return self.bm25.chunk_paths(self._ns(namespace), False, ids)

    def chunk_facts(
        self, ids: Sequence[str], *, private: bool, namespace: str | None = None
    ) -> dict[str, ChunkFacts]:
        """What ranking and the filters read of the given chunk ids, from SQLite (the BM25 table
        maps a chunk to its note and holds its text, the ledger knows the note), private chunks
        only when `private`.

        Chroma's metadata costs ~60 µs a chunk to read; this is what lets a search read it for
        the results it shows only. An id whose note row does not list it (a sync in progress) is
        left out; `get_chunks` has it.
        """
        ns = self._ns(namespace)
        paths: dict[str, tuple[str, str, tuple[str, ...]]] = {}
        for store_private in (False, True) if private else (False,):
            paths.update(self.bm25.paths_of(ns, store_private, ids))
        notes = self.ledger.note_facts(ns, {path for path, _, _ in paths.values()})
        newer = self._newer_counter(
            ns, [(n[3], n[0] or "", n[4]) for n in notes.values()], private=private)
        out: dict[str, ChunkFacts] = {}
        for cid, (path, text, aliases) in paths.items():
            note = notes.get(path)
            if note is None or cid not in note[5] or is_excluded(self.vault_settings, path):
                continue
            type_name, tags, is_private, cluster, date, _ids, conversation = note
            out[cid] = ChunkFacts(
                id=cid, path=path, type=type_name or "", tags=tags, private=is_private,
                cluster=cluster, date=date, newer_in_cluster=newer(cluster, type_name or "", date),
                text=text, conversation=conversation, aliases=aliases,
            )
        return out

    def _newer_counter(
        self, ns: str, places: Iterable[tuple[str | None, str, str]], *, private: bool
    ) -> Callable[[str | None, str, str], int]:
        """newer_in_cluster of a chunk from its (cluster, type, date), for the chunks at these
        places, with one ledger query; 0 for types that do not decay. Outside private mode,
        private notes are not counted."""
        decays = get_schema().decay_types
        counts = self.ledger.newer_in_clusters(
            ns, {(c, d) for c, t, d in places if c and t in decays}, private=private)

        def count(cluster: str | None, type_name: str, date: str) -> int:
            if not cluster or type_name not in decays:
                return 0
            return counts.get((cluster, date), 0)

        return count

    def unembedded(self, ids: Sequence[str], *, namespace: str | None = None) -> set[str]:
        """Those chunk ids that wait to be embedded: no dense score can find them yet."""
        return self.ledger.unembedded(self._ns(namespace), ids)

    def chunk_vectors(
        self, ids: Sequence[str], *, private_store: bool, namespace: str | None = None
    ) -> FloatArray:
        """The stored vectors of chunk ids of one store (public, or private when
        `private_store`), in the order given."""
        return self.chroma.embeddings(self._ns(namespace), private_store, ids)

    def current_vectors(
        self, ids: Sequence[str], model: str, *, private: bool, namespace: str | None = None
    ) -> dict[str, tuple[str, FloatArray]]:
        """The text and stored vector of each of `ids` whose vector is current: embedded by
        `model`, of the text the chunk holds now (one waiting to be embedded, by a words-only
        pass or after an edit, has one only when that text hashes as a stored one does);
        private chunks' only when `private`. What a caller compares with a query vector instead
        of embedding the chunk again (an answer's relevance floor)."""
        ns = self._ns(namespace)
        held: dict[str, tuple[str, Mapping[str, Any]]] = {}
        for store_private in (False, True) if private else (False,):
            held.update(self.chroma.get(ns, store_private, list(ids)))
        # Chunks waiting to be embedded: their text now, as `get_chunks` reads them.
        held.update(self.ledger.pending_records(ns, ids, private=private))
        out: dict[str, tuple[str, FloatArray]] = {}
        for side in (False, True) if private else (False,):
            mine = {cid: (text, str(meta.get("chunk_hash") or ""))
                    for cid, (text, meta) in held.items() if bool(meta.get("private")) == side}
            # By text hash and model: the vector reused for the same text, never another's.
            found = self.chroma.vectors_by_hash(ns, [h for _, h in mine.values() if h], model,
                                                private=side)
            out.update({cid: (text, found[h]) for cid, (text, h) in mine.items() if h in found})
        return out

    def note_leads(
        self, paths: Iterable[str], *, private: bool, namespace: str | None = None
    ) -> dict[str, FloatArray]:
        """The lead sentence vector of each of these notes that has one (`leads.py`), a private
        note's only when `private`."""
        return self.ledger.leads(self._ns(namespace), paths, private=private)

    def note_vectors(
        self, paths: Iterable[str], *, private: bool, namespace: str | None = None
    ) -> dict[str, FloatArray]:
        """The unit mean vector of each of `paths` that has one, private notes' only when
        `private` (`Ledger.centroids`; what `note_vectors.shares` reads)."""
        return self.ledger.centroids(self._ns(namespace), paths, private=private)

    def languages(self) -> dict[str, float]:
        """The share of the vault's notes in each language (a sample, `languages.json`)."""
        notes = int(load_json("languages.json")["suggest"]["notes"])
        return language_shares(self.bm25.note_texts(self.namespace, notes))

    def stats(self) -> dict[str, int]:
        """{"files": files tracked, "chunks": chunks in the stores}."""
        return self.ledger.stats(self.namespace)

    def close(self) -> None:
        # A write still running in a thread (an answer's chat note indexed in the background, a
        # reconcile finishing its batch) ends first: its stores must not close under it.
        guard: threading.Lock | None = getattr(self, "_write_guard", None)
        held = guard is not None and guard.acquire(timeout=CLOSE_WAIT_S)
        try:
            self._close_stores()
        finally:
            if held and guard is not None:
                guard.release()

    def _close_stores(self) -> None:
        for name in ("ledger", "bm25"):
            store = getattr(self, name, None)
            if store is not None:
                store.close()
        chroma = getattr(self, "chroma", None)
        if chroma is not None:
            # Chroma keeps a path's system, HNSW graphs and all, until its last client closes: a
            # process that opens index after index (the tests, the benches) would hold them all.
            chroma.release(0)
        if self._lock is not None:
            if not str(self.config.chroma_url):  # segments Chroma created since it opened
                private_tree(self.config.data / "chroma")
            self._lock.release()
            self._lock = None

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_index(config: Config, *, writer: bool = True, embedder: Embedder | None = None) -> Index:
    """Open the index of `config.vault` in `config.data` (namespace `config.namespace`).

    A writer takes the lock (IndexLocked if another process holds it), loads the embedder unless
    one is given, and checks the saved parameters; a reader needs neither.
    """
    return Index(config, writer=writer, embedder=embedder)
