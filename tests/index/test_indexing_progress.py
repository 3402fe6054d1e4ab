"""Progress of a reconcile in another process: shown while that writer runs, not after."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sidecar.index.indexing import FILE, IndexingProgress


def _write(data: Path, pid: int) -> None:
    (data / FILE).write_text(json.dumps({"pid": pid, "done": 3, "total": 10}))


def test_another_running_writers_progress_is_shown(tmp_path: Path) -> None:
    writer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        _write(tmp_path, writer.pid)
        assert IndexingProgress(tmp_path).current() == {"done": 3, "total": 10, "percent": 30,
                                                        "phase": "words"}
    finally:
        writer.kill()
        writer.wait()


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_a_writer_that_exited_unreaped_is_gone(tmp_path: Path) -> None:
    # A process that ended but was not waited for yet (a zombie) still answers signal 0.
    writer = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        stat = Path(f"/proc/{writer.pid}/stat")
        deadline = time.monotonic() + 30
        while stat.read_text().split(") ")[-1][0] != "Z" and time.monotonic() < deadline:
            time.sleep(0.01)
        _write(tmp_path, writer.pid)
        assert IndexingProgress(tmp_path).current() is None
    finally:
        writer.wait()
