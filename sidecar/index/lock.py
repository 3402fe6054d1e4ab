"""One writer per index: an OS file lock on `DATA/lock`.

`fcntl.flock` is released by the kernel when the holding process dies, even under `kill -9`, so a
crashed writer never leaves a stale lock behind. The holder's pid is written into the file only
to make the refusal message useful.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from sidecar.data_folder import private_file, private_folder
from sidecar.errors import IndexLocked


class WriterLock:
    """An exclusive, non-blocking lock on `<data>/lock`, held until `release()`."""

    def __init__(self, data: Path) -> None:
        self.path = private_file(private_folder(data) / "lock")
        fd = os.open(self.path, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_pid(fd)
            os.close(fd)
            who = f"process {holder}" if holder else "another process"
            raise IndexLocked(
                f"the index in {data} is being written by {who}; stop it (or wait for it to "
                "finish) and run this again, or use a different --data folder"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def _read_pid(fd: int) -> str:
    try:
        return os.pread(fd, 32, 0).decode(errors="replace").strip()
    except OSError:
        return ""
