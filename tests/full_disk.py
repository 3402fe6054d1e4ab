"""A disk that is full under one folder, for tests of what a write does when there is no room.

As on a full disk, a file can still be created there, but its first write fails with ENOSPC.
Every way the sidecar opens a file for writing is covered: the built-in `open` and
`os.fdopen` (the compare-and-swap writer's temporary files). Files elsewhere write normally, so
a test can fill the disk for one note's folder only.
"""

from __future__ import annotations

import builtins
import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


class _NoRoom:
    """A file opened for writing on a full disk: every write fails, the rest works."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def write(self, data: Any) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def __enter__(self) -> _NoRoom:
        return self

    def __exit__(self, *exc: object) -> None:
        self._real.close()


def _writing(mode: str) -> bool:
    return any(c in mode for c in "wax+")


def fill_disk(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """From now on (for this test), files written under `folder` find the disk full."""
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("naming an open file needs /proc/self/fd (Linux)")
    full = folder.resolve()
    real_open: Callable[..., Any] = builtins.open
    real_fdopen: Callable[..., Any] = os.fdopen

    def under(path: str | Path) -> bool:
        return Path(path).resolve().is_relative_to(full)

    def fake_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = real_open(file, mode, *args, **kwargs)
        if isinstance(file, str | Path) and _writing(mode) and under(file):
            return _NoRoom(handle)
        return handle

    def fake_fdopen(fd: int, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = real_fdopen(fd, mode, *args, **kwargs)
        if _writing(mode) and under(os.readlink(f"/proc/self/fd/{fd}")):
            return _NoRoom(handle)
        return handle

    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr(os, "fdopen", fake_fdopen)
