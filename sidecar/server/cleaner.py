"""Continuous cleaning: `ora serve` runs the incremental contradiction scan by itself.

The write lane pokes the cleaner after every write (a watcher batch, plugin events, the end of
the start-up reconcile). The cleaner waits for `scan_delay` quiet seconds (a burst of saves is one
scan), never starts while a reconcile runs (that reconcile's end pokes it again), and runs one
scan at a time: a poke during a scan means one more scan afterwards, not one per poke. The scan
itself runs its file reads and embedding in a worker thread and its judge asynchronously, so
search and every other route keep answering.

`close()` (shutdown) asks a running scan to stop: it checks between notes and embedding batches
and raises ScanStopped before writing anything; a judge still waiting on the network after a
short grace is cancelled. The notes it did not finish are scanned on the next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable

from sidecar.cleaning.survey import ScanStopped, StopCheck

ScanOnce = Callable[[StopCheck], Awaitable[object]]
# Seconds a stopping scan may take to reach its next check before it is cancelled outright.
_GRACE = 3.0


class Cleaner:
    """Debounced, one-at-a-time background scans; `poke()` after any change of the vault."""

    def __init__(self, scan_once: ScanOnce, *, delay: float, busy: Callable[[], bool],
                 on_error: Callable[[Exception], None]) -> None:
        self._scan_once = scan_once
        self._delay = delay
        self._busy = busy
        self._on_error = on_error
        self._poked = asyncio.Event()
        self._stop = threading.Event()  # read from the scan's worker thread
        self._task: asyncio.Task[None] | None = None
        self.scans = 0

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="ora-cleaner")

    def poke(self) -> None:
        """Something in the vault changed: scan once things are quiet."""
        self._poked.set()

    async def _quiet(self) -> None:
        """Wait for a poke, then until `delay` seconds pass without another (or a stop)."""
        await self._poked.wait()
        self._poked.clear()
        while not self._stop.is_set():
            try:
                await asyncio.wait_for(self._poked.wait(), self._delay)
            except TimeoutError:
                return
            self._poked.clear()

    async def _loop(self) -> None:
        while True:
            await self._quiet()
            if self._stop.is_set():
                return
            if self._busy():
                continue  # the reconcile pokes again when it ends
            try:
                await self._scan_once(self._stop.is_set)
            except ScanStopped:
                return
            except Exception as err:  # a background job: report it, keep serving
                self._on_error(err)
            self.scans += 1

    async def close(self) -> None:
        """Stop waiting, or stop the running scan at its next check (cancelled after a grace)."""
        self._stop.set()
        task, self._task = self._task, None
        if task is None:
            return
        self._poked.set()  # a loop waiting for quiet wakes, sees the stop, and ends
        done, _ = await asyncio.wait({task}, timeout=_GRACE)
        if not done:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
