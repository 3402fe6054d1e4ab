"""Routes of the cleaning queue and the web tier.

`GET /v1/contradictions`, `POST /v1/contradictions/scan`, `POST /v1/contradictions/{id}/resolve`,
`POST /v1/contradictions/batches/{batch}/approve` (a news batch), `POST /v1/contradictions/undo`
(the last resolution), `POST /v1/web/classify`.
The queue and the judge open with the app (`context`, after the models and the index); edits
made by a resolution reach the index through the server's write lane at once. Pairs involving a
private note are listed, resolved and approved only in private mode (`?private=true`, or
`"private": true` in the body); the published open count leaves them out, and is counted again
after every index write (`Recount`), so a note tagged private, or moved, since the last scan
leaves the count when it leaves the list, with background scans off too.

The same scan also runs by itself (`cleaner.py`): after the start-up reconcile and after every
batch of changes, unless `scan_delay` is negative. Every scan, asked for or not, goes through
`run_scan`, which holds the queue's lock and keeps the status's `cleaning` record in step.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from sidecar.cleaning import (
    Queue,
    Resolution,
    ScanReport,
    approve_batch,
    build_judge,
    resolve,
    scan,
    undo_last,
)
from sidecar.cleaning.rules import RulesJudge
from sidecar.cleaning.store import STATUSES
from sidecar.cleaning.survey import ScanStopped, StopCheck
from sidecar.cleaning.verdict import Judge
from sidecar.errors import BadRequest, ModelUnavailable
from sidecar.index.idle import release_idle, release_when_idle, releasers
from sidecar.server.app import STOPPING
from sidecar.server.cleaner import Cleaner
from sidecar.server.openapi import query_flag, read_json
from sidecar.server.resources import LANE, MODELS
from sidecar.server.state import CONFIG, STATE, Cleaning
from sidecar.vault.scan import vault_path
from sidecar.web import classify, load_registry

log = logging.getLogger("sidecar.server")
routes = web.RouteTableDef()


@dataclass
class Claims:
    queue: Queue
    judge: Judge
    lock: asyncio.Lock  # one scan or resolution at a time


CLAIMS = web.AppKey("claims", Claims)
_JUDGE_FAILED = "contradiction judge"


async def context(app: web.Application) -> AsyncIterator[None]:
    """The queue and the judge; a judge that cannot load falls back to the rules detector."""
    config = app[CONFIG]
    queue = await asyncio.to_thread(Queue, config.data, config.vault,
                                  max_bytes=int(config.max_file_bytes))
    try:
        judge: Judge = await asyncio.to_thread(build_judge, config)
    except ModelUnavailable as err:
        log.warning("contradiction judge unavailable, using rules: %s", err.message)
        app[STATE].last_error = f"judge: {err.message}"
        judge = RulesJudge()
    app[CLAIMS] = Claims(queue, judge, asyncio.Lock())
    app[STATE].set_contradictions_open(await asyncio.to_thread(queue.open_count))
    recount = Recount(app)
    app[LANE].on_write(recount.poke)
    cleaner = _start_cleaner(app)
    stop = asyncio.Event()  # an NLI judge's model, idle between scans, gives its memory back
    idle = asyncio.create_task(release_when_idle(
        releasers(judge), float(config.idle_release_s), stop), name="ora-judge-idle")
    try:
        yield
    finally:
        stop.set()
        await idle
        if cleaner is not None:
            await cleaner.close()
        await recount.close()
        queue.close()
        release_idle(releasers(judge), 0)  # the app outlives its cleanup (see models_ctx)


class Recount:
    """Publishes the open count again after notes changed: the count applies the same live
    privacy check as the list (`Queue.open_count`), which a scan or a resolution alone would
    apply only when it next runs. One count at a time; pokes meanwhile make one more."""

    def __init__(self, app: web.Application) -> None:
        self.app = app
        self._task: asyncio.Task[None] | None = None
        self._again = self._closed = False

    def poke(self) -> None:
        """A lane write listener (called on the event loop)."""
        self._again = True
        if self._closed:
            return  # the queue is closing: nothing to count
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="ora-contradictions-count")

    async def _run(self) -> None:
        claims, state = self.app[CLAIMS], self.app[STATE]
        while self._again:
            self._again = False
            if state.data_deleted:
                return  # the server is stopping: the queue's file is gone
            try:
                # under the lock: a scan or resolution publishing its own count is not
                # overwritten by one counted before it
                async with claims.lock:
                    n = await asyncio.to_thread(claims.queue.open_count)
            except Exception as err:  # the next write counts again
                # a warning only: the count shown stays the last one; a failing queue is
                # reported by the scan and the routes that use it (the data folder deleted
                # under a running server fails here first, before the server hears of it)
                log.warning("counting open contradictions failed: %s", err)
                return
            if n != state.contradictions_open:
                state.set_contradictions_open(n)

    async def close(self) -> None:
        self._closed = True
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)


def _start_cleaner(app: web.Application) -> Cleaner | None:
    """The background scan, poked by every index write (None when `scan_delay` < 0)."""
    delay = float(app[CONFIG].scan_delay)
    if delay < 0:
        return None
    state, lane = app[STATE], app[LANE]
    cleaner = Cleaner(lambda stop: run_scan(app, stop), delay=delay,
                      busy=lambda: lane.reconciling,
                      on_error=lambda err: state.fail("contradiction scan", err))
    cleaner.start()
    lane.on_write(cleaner.poke)
    cleaner.poke()  # the start-up reconcile may already be over; a busy cleaner waits for it
    return cleaner


async def run_scan(app: web.Application, should_stop: StopCheck | None = None) -> ScanReport:
    """One incremental scan under the queue's lock, with `cleaning` and the open count kept
    up to date in status and on the stream."""
    claims, state = app[CLAIMS], app[STATE]

    def progress(phase: str, done: int, total: int) -> None:
        if phase != "done":
            state.set_cleaning(replace(state.cleaning, running=True, phase=phase, done=done,
                                       total=total))

    async with claims.lock:
        try:
            report = await scan(app[CONFIG], claims.queue, app[MODELS].embedder, claims.judge,
                                progress, should_stop)
        except BaseException as err:
            stopped = isinstance(err, ScanStopped | asyncio.CancelledError)
            state.set_cleaning(replace(state.cleaning, running=False,
                                       phase="stopped" if stopped else "failed"))
            raise
    finished = datetime.now(UTC).isoformat(timespec="seconds")
    state.set_cleaning(Cleaning(False, "done", report.claim_pairs, report.claim_pairs,
                                state.cleaning.scans + 1, finished, report.fallbacks,
                                tuple(report.warnings)))
    if report.fallbacks:
        state.last_error = (f"{_JUDGE_FAILED} {report.judge} failed on {report.fallbacks} "
                            "claim pairs; the rules judge decided them (see each pair's evidence)")
    elif (state.last_error or "").startswith(_JUDGE_FAILED):
        state.last_error = None  # the judge answers again
    state.set_contradictions_open(await asyncio.to_thread(claims.queue.open_count))
    return report


def _pairs(queue: Queue, status: str | None, private: bool) -> dict[str, Any]:
    return {"pairs": [p.as_json() for p in queue.pairs(status, private=private)]}


@routes.get("/v1/contradictions")
async def list_pairs(request: web.Request) -> web.Response:
    status = request.query.get("status", "open")
    if status not in (*STATUSES, "all"):
        raise BadRequest(f"unknown status {status!r}: choose from {', '.join(STATUSES)}, all")
    queue, private = request.app[CLAIMS].queue, query_flag(request, "private")
    doc = await asyncio.to_thread(_pairs, queue, None if status == "all" else status, private)
    return web.json_response(doc)


@routes.post("/v1/contradictions/scan")
async def scan_pairs(request: web.Request) -> web.Response:
    body = await read_json(request, "PrivateModeRequest")
    await run_scan(request.app)
    doc = await asyncio.to_thread(_pairs, request.app[CLAIMS].queue, "open",
                                  body.get("private", False))
    return web.json_response(doc)


async def _after(request: web.Request, changed: Sequence[str]) -> None:
    """Index the edited notes now and publish the new open count."""
    config = request.app[CONFIG]
    events = [{"kind": "modified" if vault_path(config.vault, p).exists() else "deleted",
               "path": p} for p in changed]
    if events:
        await request.app[LANE].apply(events)
    queue = request.app[CLAIMS].queue
    request.app[STATE].set_contradictions_open(await asyncio.to_thread(queue.open_count))


@routes.post("/v1/contradictions/{id}/resolve")
async def resolve_pair(request: web.Request) -> web.Response:
    body = await read_json(request, "ResolveRequest")
    claims = request.app[CLAIMS]
    async with claims.lock:
        done: Resolution = await asyncio.to_thread(
            resolve, request.app[CONFIG], claims.queue, request.match_info["id"],
            body["action"], newer=body.get("newer"), note=body.get("note"),
            delete=bool(body.get("delete", False)), private=body.get("private", False),
            client_trash=bool(body.get("client_trash", False)),
        )
    await _after(request, done.changed)
    return web.json_response(done.as_json())


@routes.post("/v1/contradictions/batches/{batch}/approve")
async def approve(request: web.Request) -> web.Response:
    body = await read_json(request, "PrivateModeRequest")
    claims = request.app[CLAIMS]
    async with claims.lock:
        done = await asyncio.to_thread(approve_batch, request.app[CONFIG], claims.queue,
                                       request.match_info["batch"],
                                       private=body.get("private", False))
    changed = sorted({p for d in done for p in d.changed})
    await _after(request, changed)
    return web.json_response({"pairs": [d.pair.as_json() for d in done], "changed": changed})


@routes.post("/v1/contradictions/undo")
async def undo(request: web.Request) -> web.Response:
    body = await read_json(request, "PrivateModeRequest")
    claims = request.app[CLAIMS]
    async with claims.lock:
        done = await asyncio.to_thread(undo_last, request.app[CONFIG], claims.queue,
                                       private=body.get("private", False))
    await _after(request, done.changed)
    return web.json_response(done.as_json())


@routes.post("/v1/web/classify")
async def web_classify(request: web.Request) -> web.Response:
    body = await read_json(request, "ClassifyRequest")
    config = request.app[CONFIG]
    registry = await asyncio.to_thread(load_registry, config.vault, int(config.max_file_bytes))
    # The comparisons stop at shutdown, or once this handler is cancelled: a thread is not.
    cancelled, stopping = threading.Event(), request.app[STOPPING]
    try:
        doc = await asyncio.to_thread(classify, body["results"], registry,
                                      request.app[MODELS].embedder,
                                      lambda: cancelled.is_set() or stopping.is_set())
    except asyncio.CancelledError:
        cancelled.set()
        raise
    return web.json_response(doc)
