"""Who holds a resource an idle process may release (a model's session, the Chroma client).

`hold` runs `acquire` (which opens the resource again if it was released) and counts the holder
under one lock, so a release never falls between reopening and using; `idle` says nobody holds
it and nobody did for a while (`sidecar/index/idle.py` asks)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")


class Leases:
    """The holders of one releasable resource and when the last of them let go."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._holders = 0
        self._last = time.monotonic()

    @contextmanager
    def hold(self, acquire: Callable[[], T]) -> Iterator[T]:
        """`acquire()`'s resource, counted as held while the block runs."""
        with self.lock:
            value = acquire()
            self._holders += 1
        try:
            yield value
        finally:
            with self.lock:
                self._holders -= 1
                self._last = time.monotonic()

    def touch(self) -> None:
        """A use that holds nothing (a quick read under `lock`) still counts as recent."""
        self._last = time.monotonic()

    def idle(self, idle_s: float) -> bool:
        """Nobody holds it, nor did for `idle_s` seconds (the caller holds `lock`)."""
        return not self._holders and time.monotonic() - self._last >= idle_s
