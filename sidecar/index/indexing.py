"""How far a running reconcile has got, for answers given while a vault indexes.

A cold index of a big vault takes minutes to hours; search, lint and the API answer from what is
already indexed meanwhile, and say how far indexing is. The writer keeps the figure in memory and
in `DATA/indexing.json` (so a reader in another process, e.g. `ora search` while `ora index` runs,
sees it too); the file names the writer's pid and is ignored once that process is gone.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

from sidecar.processes import process_alive

FILE = "indexing.json"
# The file is rewritten at most this often (progress arrives per batch of files).
_WRITE_EVERY_S = 1.0


def indexing_status(done: int, total: int) -> dict[str, Any]:
    """The `indexing` member of a search document: files done of total, whole percent."""
    percent = int(100 * done / total) if total else 0
    return {"done": done, "total": total, "percent": min(percent, 99)}


class IndexingProgress:
    """The writer's side (`update`, `finish`) and the reader's (`current`)."""

    def __init__(self, data: Path) -> None:
        self.path = data / FILE
        self._mine: tuple[int, int] | None = None
        self._written = 0.0

    def update(self, done: int, total: int) -> None:
        self._mine = (done, total)
        now = time.monotonic()
        if now - self._written >= _WRITE_EVERY_S:
            self._written = now
            tmp = self.path.with_suffix(".json.tmp")
            with contextlib.suppress(OSError):  # progress is a courtesy; never fail indexing
                tmp.write_text(json.dumps({"pid": os.getpid(), "done": done, "total": total}))
                os.replace(tmp, self.path)

    def finish(self) -> None:
        self._mine = None
        self._written = 0.0
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)

    def current(self) -> dict[str, Any] | None:
        """{"done", "total", "percent"} while a reconcile runs (here or in another process)."""
        if self._mine is not None:
            return indexing_status(*self._mine)
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
            pid, done, total = int(doc["pid"]), int(doc["done"]), int(doc["total"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if pid == os.getpid() or not process_alive(pid):
            return None  # left behind by a writer that is gone
        return indexing_status(done, total)
