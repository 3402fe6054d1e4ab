"""The server's resources, one `cleanup_ctx` generator each, opened in dependency order.

models → index (needs the embedder) → idle release of the models → lint context → write lane →
watcher → start-up reconcile.
Shutdown first stops the index's writes (`IndexLane.request_stop`: within one embedding slice);
aiohttp then closes them in reverse: the reconcile ends, the watcher stops, then the index closes
and releases its writer lock.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator
from dataclasses import dataclass

from aiohttp import web

from sidecar.index import Index, open_index
from sidecar.index.embed_pass import WriteStopped
from sidecar.index.idle import release_idle, release_when_idle, releasers
from sidecar.index.watcher import watch
from sidecar.models.choice import load_embedder
from sidecar.models.embedder import Embedder
from sidecar.models.reranker import Reranker, build_reranker
from sidecar.server.lane import IndexLane
from sidecar.server.lint_cache import LintCache
from sidecar.server.state import CONFIG, STATE
from sidecar.server.supervise import supervise

# Why searches are not re-ranked before `load_models` has built the re-ranker.
RERANKER_LATER = "the re-ranker is loaded once every note is findable by its words"


@dataclass
class Models:
    """The server's models; the re-ranker is built by `load_models`, after the words pass."""

    embedder: Embedder
    reranker: Reranker | None = None
    reranker_reason: str = RERANKER_LATER
    built: bool = False  # the re-ranker


MODELS = web.AppKey("models", Models)
INDEX = web.AppKey("index", Index)
LINT = web.AppKey("lint", LintCache)
LANE = web.AppKey("lane", IndexLane)


async def models_ctx(app: web.Application) -> AsyncIterator[None]:
    """The embedder and re-ranker; their ONNX sessions are dropped when the app stops (aiohttp's
    middleware cache keeps a stopped app, and so these objects, alive). Neither model
    is loaded before the API answers (the words pass needs only the embedder's tokenizer): the
    embedding model at its first use (the reconcile's embedding pass, a search once every note
    is findable by its words), the re-ranker by `load_models` once the start-up reconcile's
    words pass is done (`IndexLane`); searches before then are not re-ranked and say why."""
    config = app[CONFIG]
    embedder = await asyncio.to_thread(functools.partial(load_embedder, config, defer=True))
    app[MODELS] = models = Models(embedder)
    state = app[STATE]
    state.model = embedder.model_id
    state.reranker, state.reranker_reason = "none", RERANKER_LATER
    try:
        yield
    finally:
        release_idle(releasers(models.embedder, models.reranker), 0)


async def load_models(app: web.Application) -> None:
    """Build the re-ranker (loading a local one's model) if not yet, and load the embedding
    model if it is not in memory."""
    models, state = app[MODELS], app[STATE]
    if not models.built:
        reranker, reason = await asyncio.to_thread(build_reranker, app[CONFIG])
        models.reranker, models.reranker_reason, models.built = reranker, reason, True
        state.reranker = reranker.name if reranker is not None else "none"
        state.reranker_reason = reason or None
    await asyncio.to_thread(models.embedder.warm)


async def index_ctx(app: web.Application) -> AsyncIterator[None]:
    """The index, opened as the one writer (IndexLocked if another process writes it)."""
    index = await asyncio.to_thread(
        open_index, app[CONFIG], writer=True, embedder=app[MODELS].embedder
    )
    app[INDEX] = index
    stats = await asyncio.to_thread(index.stats)
    app[STATE].set_counts(stats["files"], stats["chunks"])
    try:
        yield
    finally:
        await asyncio.to_thread(index.close)


async def idle_ctx(app: web.Application) -> AsyncIterator[None]:
    """The embedder, a local re-ranker and the Chroma client, unused for `idle_release_s`
    seconds, give their memory back (`index/idle.py`)."""
    stop = asyncio.Event()
    models = app[MODELS]

    def release_reranker(idle_s: float) -> bool:  # built after start-up (`load_models`)
        return any(release(idle_s) for release in releasers(models.reranker))

    held = [*releasers(models.embedder, app[INDEX].chroma), release_reranker]
    task = asyncio.create_task(release_when_idle(
        held, float(app[CONFIG].idle_release_s), stop), name="ora-idle")
    try:
        yield
    finally:
        stop.set()
        await task


async def lint_ctx(app: web.Application) -> AsyncIterator[None]:
    """The lint context of `POST /v1/lint`, read once the reconcile's words pass is done (or a
    lint request asks first: `LintCache.ready`), then refreshed from file events."""
    config = app[CONFIG]
    app[LINT] = LintCache(config.vault, int(config.max_file_bytes), data=config.data)
    yield


async def lane_ctx(app: web.Application) -> AsyncIterator[None]:
    """The write lane (`lane.py`): reconciles and file events, with counts and lint in step."""
    app[LANE] = IndexLane(app[INDEX], app[STATE], app[LINT], load_models=lambda: load_models(app))
    yield


async def watcher_ctx(app: web.Application) -> AsyncIterator[None]:
    """The file watcher: vault changes reach the index without the plugin's help. It restarts
    after a failure (`supervise.py`), then a reconcile catches up on what it missed."""
    stop = asyncio.Event()
    state, lane = app[STATE], app[LANE]

    async def run() -> None:
        try:
            # The server follows its data folder itself (`instance.watch_record`): it stops whole.
            await watch(app[INDEX], stop, lane.after_paths, lane.settings_changed,
                        lambda n: state.set_queue("watcher", n), follow_data=False)
        except WriteStopped:  # the index is closing (shutdown): no failure, no restart
            stop.set()

    task = asyncio.create_task(supervise(
        state.tasks["watcher"], run, stop, lambda err: state.fail("watching the vault", err),
        on_restart=lane.start_reconcile), name="ora-watcher")
    try:
        yield
    finally:
        stop.set()
        await task


async def reconcile_ctx(app: web.Application) -> AsyncIterator[None]:
    """The start-up reconcile, in the background (the API answers meanwhile, with progress).

    Registered after the watcher so that it is stopped first: a watcher batch waiting behind a
    reconcile then finishes at once.
    """
    lane = app[LANE]
    lane.start_reconcile()
    try:
        yield
    finally:
        await lane.close()


CONTEXTS = (models_ctx, index_ctx, idle_ctx, lint_ctx, lane_ctx, watcher_ctx, reconcile_ctx)
