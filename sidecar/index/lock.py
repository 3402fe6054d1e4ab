"""One writer per index: an OS lock on the data folder itself, its holder named in `DATA/lock`.

`fcntl.flock` is released by the kernel when the holding process dies, even under `kill -9`, so a
crashed writer never leaves a stale lock behind. The lock is taken on the folder, not on the
`lock` file: a user who deletes that file by hand, thinking it stale, would otherwise let a
second writer in beside the first. The holder's pid is written into the file only to make the
refusal message useful.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from sidecar.data_folder import private_file, private_folder
from sidecar.errors import IndexLocked


class WriterLock:
    """An exclusive, non-blocking lock on the data folder, held until `release()`."""

    def __init__(self, data: Path) -> None:
        folder = private_folder(data)
        self.path = folder / "lock"
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            holder = _read_pid(self.path)
            who = f"process {holder}" if holder else "another process"
            raise IndexLocked(
                f"the index in {data} is being written by {who}; stop it (or wait for it to "
                "finish) and run this again, or use a different --data folder"
            ) from None
        self._fd: int | None = fd
        private_file(self.path).write_text(f"{os.getpid()}\n", encoding="utf-8")

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def _read_pid(path: Path) -> str:
    with contextlib.suppress(OSError):
        return path.read_text(encoding="utf-8", errors="replace").strip()[:32]
    return ""
