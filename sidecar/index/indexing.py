"""How far a running reconcile has got, for answers given while a vault indexes.

A cold index of a big vault takes minutes to hours; search, lint and the API answer from what is
already indexed meanwhile, and say how far indexing is. The writer keeps the figure in memory and
in `DATA/indexing.json` (so a reader in another process, e.g. `ora search` while `ora index` runs,
sees it too); the file names the writer's pid and is ignored once that process is gone.

A reconcile has two phases: "words" (every note read into BM25: files done of files) and then
"meaning" (embedding: chunks with vectors of all chunks), during which every note is already
findable by its words.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

from sidecar.data_folder import FILE_MODE
from sidecar.processes import process_alive

FILE = "indexing.json"
# The file is rewritten at most this often (progress arrives per batch of files).
_WRITE_EVERY_S = 1.0


PHASES = ("words", "meaning")


def indexing_status(done: int, total: int, phase: str = "words") -> dict[str, Any]:
    """The `indexing` member of a search document: done of total (files in the "words" phase,
    chunks in the "meaning" one), whole percent."""
    percent = int(100 * done / total) if total else 0
    return {"done": done, "total": total, "percent": min(percent, 99), "phase": phase}


class IndexingProgress:
    """The writer's side (`update`, `finish`) and the reader's (`current`)."""

    def __init__(self, data: Path) -> None:
        self.path = data / FILE
        self._mine: tuple[int, int, str] | None = None
        self._written = 0.0
        self._phase = PHASES[0]

    def update(self, done: int, total: int, phase: str = "words") -> None:
        self._mine = (done, total, phase)
        now = time.monotonic()
        if now - self._written >= _WRITE_EVERY_S or phase != self._phase:
            self._written, self._phase = now, phase
            tmp = self.path.with_suffix(".json.tmp")
            doc = {"pid": os.getpid(), "done": done, "total": total, "phase": phase}
            with contextlib.suppress(OSError):  # progress is a courtesy; never fail indexing
                tmp.write_text(json.dumps(doc))
                tmp.chmod(FILE_MODE)  # like every file of the data folder
                os.replace(tmp, self.path)

    def finish(self) -> None:
        self._mine = None
        self._written = 0.0
        self._phase = PHASES[0]
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)

    def current(self) -> dict[str, Any] | None:
        """{"done", "total", "percent", "phase"} while a reconcile runs (here or in another
        process)."""
        if self._mine is not None:
            return indexing_status(*self._mine)
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
            pid, done, total = int(doc["pid"]), int(doc["done"]), int(doc["total"])
            phase = str(doc.get("phase", PHASES[0]))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        if pid == os.getpid() or not process_alive(pid):
            return None  # left behind by a writer that is gone
        return indexing_status(done, total, phase if phase in PHASES else PHASES[0])
