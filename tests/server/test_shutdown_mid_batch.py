"""Shutdown while the start-up reconcile embeds a batch: the server's stop reaches the embedding
itself (`IndexLane.request_stop` → `Index.request_stop`), which ends at its next slice instead of
finishing the batch (QA: `ora serve --parent-pid` took 8-13 s to exit, its writer lock held and a
new `ora serve` refused meanwhile). The batch cut short is dropped whole: its notes stay waiting in
the ledger, findable by their words, and the next reconcile embeds them."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from sidecar.index import embed_pass, open_index
from sidecar.models.embedder import Embedder
from sidecar.server.events import EventHub
from sidecar.server.lane import IndexLane
from sidecar.server.lint_cache import LintCache
from sidecar.server.resources import LANE
from sidecar.server.state import ServerState
from sidecar.settings import make_config

NOTES = [f"Tides/Note {n}.md" for n in range(6)]


class FirstSliceHeld:
    """The real embedder, whose first call (slice) waits until the test lets it go, and whose
    later calls fail: a second slice run after the stop is the defect."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id, self.tokenizer, self.dim = inner.model_id, inner.tokenizer, inner.dim
        self.calls = 0
        self.entered, self.go = threading.Event(), threading.Event()

    def embed(self, texts: Sequence[str]) -> Any:
        self.calls += 1
        if self.calls > 1:
            raise AssertionError("a second slice was embedded after the stop")
        self.entered.set()
        self.go.wait(60)  # bounded: released by the test once it has asked to stop
        return self.inner.embed(texts)


async def _until(event: threading.Event, what: str) -> None:
    deadline = time.monotonic() + 120
    while not event.is_set():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.01)


async def test_a_shutdown_stops_the_reconcile_at_the_next_embedding_slice_not_the_batch_end(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embed_pass, "EMBED_SLICE", 1)  # one batch of six slices
    root = tmp_path / "vault"
    for n, rel in enumerate(NOTES):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"# Note {n}\n\nTide table number {n} for the harbour.\n",
                                encoding="utf-8")
    config = make_config(root, tmp_path / "data")
    held = FirstSliceHeld(embedder)
    index = open_index(config, writer=True, embedder=held)  # type: ignore[arg-type]
    state = ServerState(config, EventHub())
    lane = IndexLane(index, state, LintCache(root, int(config.max_file_bytes), data=config.data))
    try:
        lane.start_reconcile()
        await _until(held.entered, "the embedding pass never started")
        lane.request_stop()  # what the server's shutdown (a signal, the parent's end) does
        held.go.set()
        await lane.close()
        assert held.calls == 1  # the batch's other five slices were never embedded
        assert state.reconcile.phase == "cancelled" and state.last_error is None
    finally:
        held.go.set()
        index.close()

    again = open_index(config, writer=True, embedder=embedder)
    try:
        rows = again.ledger.rows("default")
        assert sorted(rows) == sorted(NOTES)  # every note written by its words...
        assert not any(row.embedded for row in rows.values())  # ...none half-embedded
        assert again.chroma.count("default", False) == 0
        assert len(again.bm25_search("tide table harbour", 10, private=False)) == len(NOTES)
        result = again.reconcile()
        assert result["embedded"] == len(NOTES)
        assert all(row.embedded for row in again.ledger.rows("default").values())
        assert again.chroma.count("default", False) == len(NOTES)
    finally:
        again.close()


async def test_a_write_route_answered_during_shutdown_is_not_refused_for_its_indexing(
    api: Any, vault: Path
) -> None:
    """Review of the stop: a note a route had written (a web page saved) was answered 503
    shutting_down because its indexing was stopped; the client's retry after the restart would
    write it twice. The note is on disk: the next start indexes it."""
    await api.wait_reconciled()
    api.app[LANE].request_stop()  # what the server's shutdown does first
    saved = await api.post("/v1/web/save", {"url": "https://example.org/tides",
                                            "title": "Tide page", "text": "High water at noon."})
    assert saved.status == 200, saved.json
    assert (vault / saved.json["path"]).read_text(encoding="utf-8")
    events = await api.post("/v1/events", {"events": [
        {"kind": "modified", "path": saved.json["path"]}]})
    assert (events.status, events.json["queued"]) == (200, True)
