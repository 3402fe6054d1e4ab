"""Give an idle long-running process's memory back (`ora serve`, `ora watch`).

The embedding model's session holds ~100–175 MiB (weights and onnxruntime's arena), a local
re-ranker's or NLI judge's more, and an embedded Chroma client every collection's HNSW graph
(2.1–2.4 KiB a chunk, the part of an idle process that grows with the vault). A process with
nothing to do needs none of them: once one was unused for `idle_release_s` seconds it is dropped
and the C heap trimmed; the next query or vault change opens it again, paid once
(docs/benchmarks.md, "## Index memory: idle").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence

from sidecar.heap import release_free_heap
from sidecar.models.session import Releasable

# Release is checked this often at most, so it comes between idle_s and idle_s + this after
# the last use.
CHECK_S = 30.0

Releaser = Callable[[float], bool]

log = logging.getLogger(__name__)


def releasers(*holders: object) -> list[Releaser]:
    """The `release` of those of `holders` that can give memory back (None and others skipped)."""
    return [holder.release for holder in holders if isinstance(holder, Releasable)]


def release_idle(releasers: Sequence[Releaser], idle_s: float) -> bool:
    """Ask every releaser to drop what was unused for `idle_s` seconds, then trim the heap if any
    did; True if anything was released."""
    released = [_asked(release, idle_s) for release in releasers]  # every one, not just the first
    if any(released):
        release_free_heap()
    return any(released)


def _asked(release: Releaser, idle_s: float) -> bool:
    """One releaser's answer; one that fails (a store's close raising) is logged and counts as
    not released, so the others are still asked and the idle checks go on (their task ending
    would stop every later release and raise again at shutdown)."""
    try:
        return release(idle_s)
    except Exception:
        log.exception("releasing idle memory failed")
        return False


async def release_when_idle(
    releasers: Sequence[Releaser], idle_s: float, stop: asyncio.Event
) -> None:
    """Until `stop` is set, release what stayed idle `idle_s` seconds (never when `idle_s` ≤ 0)."""
    if idle_s <= 0:
        await stop.wait()
        return
    interval = min(CHECK_S, idle_s / 2)
    while True:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), interval)
        if stop.is_set():
            return
        await asyncio.to_thread(release_idle, releasers, idle_s)
