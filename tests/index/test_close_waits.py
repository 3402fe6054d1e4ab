"""Closing the index waits for a write still running in another thread (an answer's chat note
indexed in the background when the server stops): its stores never close under it (tantivy's
writer raised "Already borrowed" at shutdown)."""

from __future__ import annotations

import threading
from pathlib import Path

from .conftest import OpenIndex


def test_close_waits_for_a_write_running_in_another_thread(vault: Path,
                                                           open_idx: OpenIndex) -> None:
    index = open_idx(vault)
    index.reconcile()
    writing, finish = threading.Event(), threading.Event()
    order: list[str] = []

    def write() -> None:
        with index._write_guard:  # as apply_paths holds it for its whole write
            writing.set()
            finish.wait(30)
            order.append("write")

    writer = threading.Thread(target=write)
    writer.start()
    assert writing.wait(30)
    closer = threading.Thread(target=lambda: (index.close(), order.append("close")))
    closer.start()
    closer.join(0.5)  # given time to close under the write, as it did
    finish.set()
    writer.join(30)
    closer.join(30)
    assert order == ["write", "close"]
