"""Background jobs that come back after a failure: the watcher restarts, a failed reconcile is
tried again, each after a backoff, and `/v1/status` says so (`tasks`).

Under a descriptor flood the watcher once died for good (`unable to open database file`): notes
written afterwards were never indexed and a private flip never reached the index. Now a failed
job is reported (`last_error`, `tasks.<name>.failures`) and started again after 1 s, then 2 s,
4 s… up to a minute between tries; a run that lasted longer than that starts the backoff anew.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

FIRST_DELAY = 1.0
MOST_DELAY = 60.0


@dataclass
class TaskStatus:
    """One background job as the status shows it."""

    running: bool = False
    failures: int = 0  # since the server started
    retry_in: float | None = None  # seconds until the next try, while waiting after a failure

    def as_json(self) -> dict[str, Any]:
        return {"running": self.running, "failures": self.failures, "retry_in": self.retry_in}


class Backoff:
    """Doubling delays between tries, starting again after a long healthy run."""

    def __init__(self, first: float = FIRST_DELAY, most: float = MOST_DELAY) -> None:
        self.first, self.most = first, most
        self.delay = first

    def next(self, ran_for: float) -> float:
        if ran_for > self.most:
            self.delay = self.first
        delay, self.delay = self.delay, min(self.delay * 2, self.most)
        return delay

    def reset(self) -> None:
        self.delay = self.first


async def supervise(
    status: TaskStatus, run: Callable[[], Awaitable[None]], stop: asyncio.Event,
    fail: Callable[[Exception], None], *, on_restart: Callable[[], object] | None = None,
    backoff: Backoff | None = None,
) -> None:
    """Run `run()` until `stop` is set; after it fails (or ends on its own), `fail(err)`, wait
    the backoff, call `on_restart` (to catch up on what was missed) and run it again."""
    backoff = backoff or Backoff()
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        started = loop.time()
        status.running = True
        try:
            await run()
            if stop.is_set():
                return
            raise RuntimeError("it stopped on its own")
        except Exception as err:  # a background job: report it, try again later
            status.failures += 1
            fail(err)
        finally:
            status.running = False
        delay = backoff.next(loop.time() - started)
        status.retry_in = delay
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), delay)
        status.retry_in = None
        if not stop.is_set() and on_restart is not None:
            on_restart()
