"""A cold index holds a batch's chunks at a time, never the vault's (issue 17): the syncer's
high-water mark of planned-but-unwritten chunks stays under two batches (one being embedded,
the next being planned) plus one note."""

from __future__ import annotations

import dataclasses
import platform
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import pytest

from sidecar.heap import release_free_heap
from sidecar.index import Index, embed_pass, sync
from sidecar.index import index as index_module
from sidecar.index.ledger import ClusterRow
from sidecar.index.watcher import note_paths

from .conftest import OpenIndex, note, write

T = TypeVar("T")
SECTIONS = 4  # the most chunks of one note below


def _vault(root: Path, notes: int) -> None:
    for i in range(notes):
        parts = "".join(f"\n\n## Part {j}\n\nPoint {j} of note {i} about tides and moons."
                        for j in range(i % SECTIONS))
        text = note("engram", f"# Note {i}\n\nA tide note.{parts}")
        write(root, f"Engrams/Note {i:03d}.md", text)


def test_a_cold_index_holds_at_most_two_batches_of_chunks(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embed_pass, "BATCH_CHUNKS", 10)
    monkeypatch.setattr(sync, "LEXICAL_BATCH_CHUNKS", 20)
    monkeypatch.setattr(embed_pass, "LEDGER_WINDOW", 7)  # several windows of ledger rows, too
    root = tmp_path / "v"
    _vault(root, 40)
    index = open_idx(root)
    result = index.reconcile()
    # The embedding pass holds two batches, each closed once it reaches BATCH_CHUNKS (so up to
    # one note over); the lexical pass one batch, of at most LEXICAL_BATCH_CHUNKS.
    bound = 2 * (embed_pass.BATCH_CHUNKS - 1 + SECTIONS)
    assert bound >= sync.LEXICAL_BATCH_CHUNKS - 1 + SECTIONS
    assert result["chunks"] > 3 * bound and result["errors"] == []
    syncer = index._need_writer()
    assert 0 < syncer.held_peak <= bound
    # A restart plans nothing; deleting files across several windows removes all of theirs.
    assert index.reconcile()["embedded"] == 0
    for i in range(0, 40, 2):
        (root / f"Engrams/Note {i:03d}.md").unlink()
    after = index.reconcile()
    assert after["files"] == 20 and after["removed"] > 0
    assert after["chunks"] == sum(len(r.chunk_ids) for r in index.ledger.rows("default").values())
    assert syncer.held_peak <= bound


def test_clustering_streams_the_notes_and_keeps_no_vector_of_theirs(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "v"
    topics = ["green tea steeping", "quarterly VAT returns", "bicycle chain oiling"]
    for i in range(24):
        body = f"A chat about {topics[i % 3]}, take {i}."
        text = note("chat", body, date_created=f"2024-01-{i + 1:02d}")
        write(root, f"Chats/Chat {i:02d}.md", text)
    index = open_idx(root)
    index.reconcile()
    clusters = {p: r.cluster for p, r in index.ledger.rows("default").items()}
    assert all(clusters.values()) and len(set(clusters.values())) >= 3
    # Forget every assignment, so the pass rewrites all of them, a small window at a time.
    index.ledger.set_clusters("default", dict.fromkeys(clusters))
    monkeypatch.setattr(index_module, "_CLUSTER_WINDOW", 5)
    alive, peak, streamed = [0], [0], [0]
    stream = index.ledger.cluster_members

    def counted(namespace: str) -> Iterator[ClusterRow]:
        for row in stream(namespace):
            assert row.centroid is not None
            alive[0] += 1
            peak[0] = max(peak[0], alive[0])
            streamed[0] += 1
            weakref.finalize(row.centroid, lambda: alive.__setitem__(0, alive[0] - 1))
            yield row

    monkeypatch.setattr(index.ledger, "cluster_members", counted)
    index.reconcile()
    assert streamed[0] == 24 and peak[0] <= 2  # a note's vector is dropped once it is summed
    assert {p: r.cluster for p, r in index.ledger.rows("default").items()} == clusters
    stored = index.get_chunks([c for r in index.ledger.rows("default").values()
                               for c in r.chunk_ids], private=True)
    assert {r.path: r.cluster for r in stored.values()} == clusters


def test_every_written_batch_hands_the_free_heap_back(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embed_pass, "BATCH_CHUNKS", 10)
    root = tmp_path / "v"
    _vault(root, 12)
    index = open_idx(root)
    batches: list[int] = []
    trims: list[int] = []
    syncer = index._need_writer()
    for name in ("_finish", "_finish_waiting"):  # the lexical pass's batches, the embedding's
        write_batch = getattr(syncer, name)
        monkeypatch.setattr(syncer, name, lambda *a, w=write_batch: (batches.append(1), w(*a))[1])
    for module in (sync, embed_pass):  # the lexical pass's batches, the embedding's
        monkeypatch.setattr(module, "release_free_heap", lambda: trims.append(1) or True)
    index.reconcile()
    assert len(batches) >= 3 and len(trims) == len(batches)


def test_the_free_heap_is_released_where_the_c_library_can() -> None:
    assert release_free_heap() is (platform.libc_ver()[0] == "glibc")


@contextmanager
def _ledger_steps(index: Index) -> Iterator[list[int]]:
    """Count the SQLite virtual-machine steps run on this thread's ledger connection: every row
    a statement visits costs steps, so reading the whole ledger shows as steps per row."""
    conn = index.ledger._db.get()
    steps = [0]

    def tick() -> int:
        steps[0] += 1
        return 0  # go on

    conn.set_progress_handler(tick, 1)
    try:
        yield steps
    finally:
        conn.set_progress_handler(None, 1)


def _pad_ledger(index: Index, prefix: str, rows: int) -> None:
    """Add `rows` ledger rows (each with a chunk) under `prefix`, copies of a real note's row."""
    model = next(iter(index.ledger.rows("default").values()))
    index.ledger.put("default", (
        dataclasses.replace(model, path=f"{prefix}{i:05d}.md", chunk_ids=(f"pad-{prefix}{i}",))
        for i in range(rows)))  # fmt: skip


def _indexed(tmp_path: Path, open_idx: OpenIndex, notes: int) -> tuple[Path, Index]:
    root = tmp_path / "v"
    _vault(root, notes)
    index = open_idx(root)
    index.reconcile()
    return root, index


def _steps_as_the_ledger_grows(
    index: Index, action: Callable[[], T], prefix: str
) -> tuple[int, int, T, T]:
    """The ledger steps of `action`, then again after 2,000 more rows under `prefix`; and its
    two results."""
    with _ledger_steps(index) as small:
        first = action()
    _pad_ledger(index, prefix, 2000)
    with _ledger_steps(index) as large:
        second = action()
    return small[0], large[0], first, second


def test_the_reembed_estimate_reads_a_few_ledger_rows_whatever_the_vault_size(
    tmp_path: Path, open_idx: OpenIndex
) -> None:
    _, index = _indexed(tmp_path, open_idx, 12)
    _pad_ledger(index, "zz/", 50)
    small, large, _, _ = _steps_as_the_ledger_grows(index, index._sample_texts, "zz/more ")
    ids = index.ledger.first_chunk_ids("default", 8)
    assert len(set(ids)) == 8  # eight files' first chunks
    assert 0 < large <= small + 10  # reading every row costs thousands of steps here


def test_a_folder_event_reads_only_the_folders_ledger_rows(
    tmp_path: Path, open_idx: OpenIndex
) -> None:
    root, index = _indexed(tmp_path, open_idx, 3)
    _pad_ledger(index, "Gone/", 3)  # a folder moved away: only the ledger knows its notes
    _pad_ledger(index, "Gone ", 20)  # siblings that share the prefix, not the folder
    _pad_ledger(index, "Gone0/", 20)
    small, large, gone, again = _steps_as_the_ledger_grows(
        index, lambda: note_paths(index, root, ["Gone"]), "Other/")
    assert gone == again == [f"Gone/{i:05d}.md" for i in range(3)]
    assert 0 < large <= small + 10
