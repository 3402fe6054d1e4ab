"""The server's one path into the index for writes: reconciles, and file events from anyone.

File events from the plugin (`POST /v1/events`) and from other routes' edits go through `apply`;
while a reconcile runs they wait in a queue (reported as `queue` in the status) and are applied
right after it, so a request never blocks behind a whole-vault reconcile. The watcher applies its
own batches and reports them to `after_paths`. Both end in the index's one serialised write path,
where the second report of the same change finds nothing new (deduplicated). After every write
the counts, the lint context and the SSE stream are brought up to date in one place, and the
listeners registered with `on_write` (the background contradiction scan) are told.

A reconcile runs in a worker thread. Shutdown asks it to stop: the index stops every write at its
next embedding slice (`Index.request_stop`: the batch being embedded is dropped, its notes left
waiting) and the progress callback raises at the next batch boundary, where the stores are
consistent (the index is crash-safe); the next start's reconcile completes the work.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from sidecar.index import Index, Progress
from sidecar.index.embed_pass import WriteStopped
from sidecar.server.lint_cache import LintCache
from sidecar.server.state import ServerState
from sidecar.server.supervise import Backoff
from sidecar.vault.vault_settings import missing_settings_recheck

FileEvent = Mapping[str, Any]
# Progress phases at which stopping is safe: between batches, before the final bookkeeping.
_STOPPABLE = frozenset({"scan", "embed"})


class ReconcileStopped(Exception):
    """Raised inside the reconcile thread to stop it at a batch boundary (shutdown)."""


class IndexLane:
    """Reconciles and file events, one write at a time, with the server's state kept in step."""

    def __init__(self, index: Index, state: ServerState, lint: LintCache,
                 load_models: Callable[[], Awaitable[None]] | None = None) -> None:
        self.index = index
        self.state = state
        self.lint = lint
        # The models, loaded once: after the first reconcile's words pass, or at its end.
        self._load_models = load_models
        self._models: asyncio.Future[None] | None = None
        self._pending: list[FileEvent] = []
        self._stop = threading.Event()
        self._task: asyncio.Task[None] | None = None
        self._total = 0
        self._listeners: list[Callable[[], None]] = []
        self._backoff = Backoff()  # a failed reconcile is tried again (supervise.py)
        self._retry: asyncio.TimerHandle | None = None
        self._again = False  # the settings changed after the running reconcile read them
        # ora.yaml read missing: read again once it counts as deleted (`_recheck_settings`)
        self._recheck: asyncio.TimerHandle | None = None
        self._rechecking: asyncio.Task[None] | None = None

    def on_write(self, listener: Callable[[], None]) -> None:
        """Call `listener` after every write and at the end of every reconcile."""
        self._listeners.append(listener)

    def _written(self) -> None:
        for listener in self._listeners:
            listener()

    @property
    def reconciling(self) -> bool:
        return self._task is not None and not self._task.done()

    async def apply(self, events: Sequence[FileEvent]) -> dict[str, Any]:
        """Apply file events now, or queue them behind a running reconcile. Either way a
        running write applies those that embed nothing while it waits for its embedding
        (`Index.expedite`), so a private flip never waits behind a long write."""
        self.index.expedite(str(p) for e in events for p in (e["path"], e.get("old_path")) if p)
        if self.reconciling:
            self._pending.extend(events)
            self.state.set_queue("events", len(self._pending))
            return {"accepted": len(events), "deduplicated": 0, "queued": True}
        self.state.set_queue("applying", self.state.queues.get("applying", 0) + len(events))
        try:
            result = await asyncio.to_thread(self.index.apply_events, list(events))
        except WriteStopped:  # shutting down: the files are on disk, the next start applies them
            # (a route that wrote a note must not answer 503 for it: a retry would write twice)
            return {"accepted": len(events), "deduplicated": 0, "queued": True}
        finally:
            self.state.set_queue("applying", self.state.queues["applying"] - len(events))
        await self._after_write(events, result)
        return {"accepted": result["accepted"], "deduplicated": result["deduplicated"],
                "queued": False}

    async def _after_write(self, events: Sequence[FileEvent], summary: Mapping[str, Any]) -> None:
        paths = [str(p) for e in events for p in (e["path"], e.get("old_path")) if p]
        await self.after_paths({**summary, "paths": paths})

    async def after_paths(self, summary: Mapping[str, Any]) -> None:
        """After any write of some paths (here or by the watcher): counts, stream, lint context."""
        self.state.set_counts(int(summary["files"]), int(summary["chunks"]))
        await self.lint.refresh(summary["paths"])
        self._written()

    async def settings_changed(self) -> None:
        """The vault's ora.yaml or Obsidian's Excluded files changed: lint follows at once, and a
        reconcile re-plans the notes whose type or exclusion changed."""
        await self.lint.reload_settings()
        if not self.start_reconcile():
            self._again = True  # the running one read the old settings: one more after it

    def start_reconcile(self) -> bool:
        """Start a reconcile in the background; False if one is already running."""
        if self.reconciling:
            return False
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        self.state.tasks["reconcile"].retry_in = None
        self.state.set_progress("scan", 0, 0)
        self._again = False
        self._task = asyncio.create_task(self._reconcile(), name="ora-reconcile")
        return True

    def _try_again(self) -> None:
        self._retry = None
        if not self._stop.is_set():
            self.start_reconcile()

    async def _reconcile(self) -> None:
        loop = asyncio.get_running_loop()

        counted = False
        lint: list[asyncio.Task[None]] = []  # the lint context read after the words pass

        def read_lint() -> None:
            lint.append(asyncio.ensure_future(self.lint.load()))
            self._start_loading_models()

        def progress(p: Progress) -> None:  # runs in the reconcile thread
            nonlocal counted
            if p.phase not in _STOPPABLE:
                self._total = p.total  # "done" is told by _finish, after the counts
                return
            if self._stop.is_set():
                raise ReconcileStopped
            if p.phase == "embed" and not counted:  # every note is findable by its words now
                counted, stats = True, self.index.stats()
                loop.call_soon_threadsafe(self.state.set_counts, stats["files"], stats["chunks"])
                loop.call_soon_threadsafe(read_lint)  # the notes' links, as the files are now
            loop.call_soon_threadsafe(self.state.set_progress, p.phase, p.done, p.total)

        task = self.state.tasks["reconcile"]
        task.running, started = True, loop.time()
        try:
            summary = await asyncio.to_thread(self.index.reconcile, progress)
        except (ReconcileStopped, WriteStopped):  # shutdown: the next start completes it
            task.running = False
            self._finish("cancelled")
            return
        except Exception as err:  # a background job: report it, try again after a backoff
            task.running = False
            task.failures += 1
            self.state.fail("reconcile", err)
            task.retry_in = self._backoff.next(loop.time() - started)
            self._retry = loop.call_later(task.retry_in, self._try_again)
            phase = "failed"
        else:
            task.running = False
            self._backoff.reset()
            self.state.set_counts(int(summary["files"]), int(summary["chunks"]))
            await (lint[0] if lint else self.lint.load())
            await self._models_loaded()
            phase = "done"
        await self._flush()
        self._finish(phase)
        self._recheck_settings()
        self._written()
        if self._again:  # once this task is done (start_reconcile refuses while it runs)
            loop.call_soon(self._try_again)

    def _start_loading_models(self) -> None:
        if self._models is None and self._load_models is not None:
            self._models = asyncio.ensure_future(self._load_models())

    async def _models_loaded(self) -> None:
        self._start_loading_models()
        if self._models is not None:
            try:
                await asyncio.shield(self._models)
            except Exception as err:  # searches say so too; the index is done
                self.state.fail("loading the models", err)

    def _finish(self, phase: str) -> None:
        r = self.state.reconcile
        if phase == "done":
            self.state.set_progress(phase, self._total, self._total, running=False)
        else:
            self.state.set_progress(phase, r.done, r.total, running=False)

    async def _flush(self) -> None:
        """Apply the events that arrived during the reconcile (and during this flush)."""
        while self._pending:
            pending, self._pending = self._pending, []
            try:
                result = await asyncio.to_thread(self.index.apply_events, pending)
            except WriteStopped:  # shutting down: the next start's reconcile applies them
                break
            except Exception as err:  # the reconcile's data is safe; these files wait for the next
                self.state.fail("applying queued file events", err)
                continue
            await self._after_write(pending, result)
        self.state.set_queue("events", 0)

    def _recheck_settings(self) -> None:
        """A missing ora.yaml keeps the settings it last had until a read finds it missing long
        enough after the first (vault_settings.py `MISSING_GRACE_S`); no file event comes then,
        so the settings are read again at that time, as after a change (a deleted file's
        defaults apply, a file back meanwhile has been followed already)."""
        config = self.index.config
        delay = missing_settings_recheck(config.vault, config.data)
        if self._recheck is not None:
            self._recheck.cancel()
            self._recheck = None
        if delay is None or self._stop.is_set():
            return

        def recheck() -> None:
            self._recheck = None
            if not self._stop.is_set():
                self._rechecking = asyncio.ensure_future(self.settings_changed())

        # A little after: the read must find the grace over, not a moment before its end.
        self._recheck = asyncio.get_running_loop().call_later(delay + 0.2, recheck)

    def request_stop(self) -> None:
        """Ask a running reconcile, and any write, to stop (shutdown has begun): within one
        embedding slice, not a whole batch (`Index.request_stop`)."""
        self._stop.set()
        self.index.request_stop()

    async def close(self) -> None:
        """Stop a running reconcile (`request_stop`) and wait for it."""
        self.request_stop()
        if self._retry is not None:
            self._retry.cancel()
        if self._recheck is not None:
            self._recheck.cancel()
        if self._rechecking is not None:
            self._rechecking.cancel()
            await asyncio.gather(self._rechecking, return_exceptions=True)
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
