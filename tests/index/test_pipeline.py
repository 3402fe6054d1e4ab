"""A sync embeds one batch on a background thread while it plans the next and writes the one
before (issue 15: overlap tokenising, embedding and store writes), without giving up what the
batches promise: in-order writes, nothing half-written when a batch fails or is cancelled.

Since issue 29 a reconcile writes every note by its words first and embeds after
(`Syncer.embed_pending`): the embedding pass is the one pipelined, and a failure or a stop in it
leaves every note findable by its words, waiting for the next run, which embeds nothing twice."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from sidecar.index import embed_pass, sync
from sidecar.models.embedder import Embedder

from .conftest import OpenIndex, note, write

NOTES = [f"Engrams/Note {n}.md" for n in range(4)]


def _vault(root: Path) -> None:
    for n, rel in enumerate(NOTES):
        write(root, rel, note("engram", f"# Note {n}\n\nTide table number {n} for the harbour."))


class Hooked:
    """The real embedder; `hook(call)` runs before every embed call, in the embedding thread."""

    def __init__(self, inner: Embedder, hook: Callable[[int], None]) -> None:
        self.inner, self.hook, self.calls = inner, hook, 0
        self.model_id, self.tokenizer, self.dim = inner.model_id, inner.tokenizer, inner.dim
        self.threads: set[str] = set()

    def embed(self, texts: Sequence[str]) -> Any:
        self.calls += 1
        self.threads.add(threading.current_thread().name)
        self.hook(self.calls)
        return self.inner.embed(texts)


def test_the_next_batch_is_read_and_chunked_while_one_is_being_embedded(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embed_pass, "BATCH_CHUNKS", 1)  # one note per batch
    root = tmp_path / "v"
    _vault(root)
    planned: list[Any] = []
    second_planned = threading.Event()
    overlapped: list[bool] = []

    def hook(call: int) -> None:
        if call == 1:  # the first batch's embedding waits (at most 10 s) for the second's plan
            overlapped.append(second_planned.wait(10))

    hooked = Hooked(embedder, hook)
    index = open_idx(root, emb=hooked)
    syncer = index._need_writer()
    plan = syncer._start_waiting

    def spy(group: Any) -> Any:
        planned.append(group)
        if len(planned) == 2:
            second_planned.set()
        return plan(group)

    monkeypatch.setattr(syncer, "_start_waiting", spy)
    result = index.reconcile()
    assert overlapped == [True]
    assert threading.current_thread().name not in hooked.threads  # the model ran elsewhere
    assert result["files"] == len(NOTES) and result["embedded"] == len(NOTES)
    assert sorted(index.ledger.rows("default")) == sorted(NOTES)


def _embedded(index: Any) -> dict[str, bool]:
    return {p: r.embedded for p, r in index.ledger.rows("default").items()}


def test_a_failed_embedding_writes_nothing_of_its_batch_and_the_next_sync_redoes_it(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embed_pass, "BATCH_CHUNKS", 1)  # one note per batch of the embedding pass
    root = tmp_path / "v"
    _vault(root)

    def hook(call: int) -> None:
        if call == 3:
            raise RuntimeError("the embedding server went away")

    index = open_idx(root, emb=Hooked(embedder, hook))
    with pytest.raises(RuntimeError, match="went away"):
        index.reconcile()
    embedded = _embedded(index)
    assert sorted(embedded) == sorted(NOTES)  # every note is findable by its words
    assert 0 < sum(embedded.values()) < len(NOTES)  # the batches before the failure
    assert len(index.bm25_search("tide table harbour", 10, private=False)) == len(NOTES)
    assert index.chroma.count("default", False) == sum(embedded.values())
    assert not any(t.name.startswith("ora-embed") for t in threading.enumerate())
    index.close()

    again = open_idx(root, data=tmp_path / "data")
    result = again.reconcile()
    assert result["files"] == len(NOTES)
    assert result["embedded"] == len(NOTES) - sum(embedded.values())  # nothing embedded twice
    assert all(_embedded(again).values())


def test_a_sync_stopped_by_its_progress_callback_leaves_the_pending_batch_unwritten(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embed_pass, "BATCH_CHUNKS", 1)
    root = tmp_path / "v"
    _vault(root)
    index = open_idx(root)

    def stop(progress: sync.Progress) -> None:
        if progress.phase == "embed" and progress.done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        index.reconcile(progress=stop)
    # Notes 1 and 2 were written when note 3's batch started; note 3's was being embedded.
    assert sum(_embedded(index).values()) == 2 and len(_embedded(index)) == len(NOTES)
    assert not any(t.name.startswith("ora-embed") for t in threading.enumerate())
    result = index.reconcile()
    assert result["files"] == len(NOTES) and result["embedded"] == len(NOTES) - 2


def test_an_interrupted_sync_stops_embedding_its_pending_batch_at_the_next_slice(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embed_pass, "EMBED_SLICE", 1)  # one text per embed call: 4 for the batch
    monkeypatch.setattr(sync, "FIRST_BATCH", len(NOTES))  # every note in the first batch
    root = tmp_path / "v"
    _vault(root)
    box: list[Any] = []

    def hook(call: int) -> None:
        if call == 1:  # Ctrl-C arrives while the first slice is embedded
            assert box[0]._stop.wait(10)

    hooked = Hooked(embedder, hook)
    index = open_idx(root, emb=hooked)
    box.append(index._need_writer())

    monkeypatch.setattr(embed_pass, "URGENT_POLL", 0.01)
    # Ctrl-C lands in the writing thread while it waits for the batch's vectors.
    polls = box[0]._expedite

    def poll(report: Any) -> None:
        polls(report)
        if box[0]._embedding is not None and hooked.calls == 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(box[0], "_expedite", poll)
    with pytest.raises(KeyboardInterrupt):
        index.reconcile()
    assert hooked.calls == 1  # not the batch's other three slices
    assert not any(_embedded(index).values()) and len(_embedded(index)) == len(NOTES)


def test_a_batch_is_embedded_shortest_first_so_each_slice_pads_little(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embed_pass, "EMBED_SLICE", 2)
    root = tmp_path / "v"
    lengths = [20, 3, 15, 1, 9, 5]  # sentences per note, in file order: one chunk each
    for n, sentences in enumerate(lengths):
        body = " ".join(f"Tide {n} turned at the harbour wall {k}." for k in range(sentences))
        write(root, f"Engrams/Note {n}.md", note("engram", f"# Note {n}\n\n{body}"))
    slices: list[list[int]] = []

    class Recording(Hooked):
        def embed(self, texts: Sequence[str]) -> Any:
            slices.append([len(self.tokenizer.encode(t).ids) for t in texts])
            return super().embed(texts)

    index = open_idx(root, emb=Recording(embedder, lambda call: None))
    assert index.reconcile()["embedded"] == len(lengths)
    tokens = [n for part in slices for n in part]
    assert len(slices) == 3 and tokens == sorted(tokens)
