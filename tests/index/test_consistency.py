"""The start-up repair finds orphans and missing chunks in both stores while comparing a window
of ids at a time, never every chunk id of the vault (issue 17)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sidecar.index import consistency
from sidecar.index.bm25_table import SparseRow

from .conftest import OpenIndex, note, write

NS = "default"


def _vault(root: Path) -> None:
    for i in range(12):
        tags = ["private"] if i % 4 == 0 else []
        body = f"# Note {i}\n\nA note about tides.\n\n## More\n\nPoint {i} about the moon."
        write(root, f"Engrams/Note {i:02d}.md", note("engram", body, tags=tags))


def _stored(index: Any) -> list[str]:
    return sorted(i for p in (False, True) for i in index.bm25.ids(NS, p))


def _chroma(index: Any) -> list[str]:
    return sorted(i for p in (False, True) for i in index.chroma.ids(NS, p))


def _owned(index: Any) -> list[str]:
    return sorted(c for r in index.ledger.rows(NS).values() for c in r.chunk_ids)


def _orphans(index: Any, private: bool, ids: Sequence[str], *, chroma: bool, bm25: bool) -> None:
    if chroma:
        vectors = np.eye(len(ids), 384, dtype=np.float32)
        index.chroma.upsert(NS, private, ids, vectors, ["orphan"] * len(ids),
                            [{"path": "gone.md", "archived": False}] * len(ids))
    if bm25:
        rows = [SparseRow(i, "gone.md", False, "orphan", "gone", "") for i in ids]
        index.bm25.replace(NS, deletes={}, inserts={private: rows})


def _counting(seen: list[int], fn: Callable[..., Any], arg: int) -> Callable[..., Any]:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if len(args) > arg and isinstance(args[arg], list | tuple):
            seen.append(len(args[arg]))
        found = fn(*args, **kwargs)
        if isinstance(found, list | set):
            seen.append(len(found))
        return found
    return wrapped


def test_repair_removes_orphans_and_redoes_missing_chunks_a_window_at_a_time(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "v"
    _vault(root)
    index = open_idx(root)
    index.reconcile()
    owned = _owned(index)
    assert len(owned) > 4 * 3 and _stored(index) == owned == _chroma(index)
    public = [f"{n:032x}" for n in range(20)]
    _orphans(index, False, public[:9], chroma=True, bm25=True)
    _orphans(index, False, public[9:15], chroma=True, bm25=False)
    _orphans(index, False, public[15:], chroma=False, bm25=True)
    _orphans(index, True, [f"{n:032x}" for n in range(100, 107)], chroma=True, bm25=True)
    rows = index.ledger.rows(NS)
    lost_vector = rows["Engrams/Note 01.md"]  # a public note whose chunks Chroma lost
    lost_text = rows["Engrams/Note 04.md"]  # a private note whose chunks BM25 lost
    index.chroma.delete(NS, False, list(lost_vector.chunk_ids))
    index.bm25.replace(NS, deletes={True: list(lost_text.chunk_ids)}, inserts={})

    seen: list[int] = []
    monkeypatch.setattr(consistency, "WINDOW", 4)
    for store, names in ((index.chroma, ("id_page", "present")),
                         (index.bm25, ("id_window", "present"))):
        for name in names:
            monkeypatch.setattr(store, name, _counting(seen, getattr(store, name), 2))
    for store in (index.chroma, index.bm25):  # the whole-store listing is never asked for
        monkeypatch.setattr(store, "ids", lambda *a: pytest.fail("listed every chunk id"))
    monkeypatch.setattr(index.ledger, "rows", lambda *a: pytest.fail("read every ledger row"))

    result = consistency.repair(NS, index.ledger, index.bm25, index.chroma)

    assert result == {"orphans": 27, "dirty": 2}
    assert seen and max(seen) <= 4
    monkeypatch.undo()
    assert {p for p, r in index.ledger.rows(NS).items() if r.hash == ""} == {
        "Engrams/Note 01.md", "Engrams/Note 04.md"}
    assert _stored(index) == sorted(set(owned) - set(lost_text.chunk_ids))
    assert _chroma(index) == sorted(set(owned) - set(lost_vector.chunk_ids))
    index.reconcile()
    assert _stored(index) == _chroma(index) == _owned(index) == owned
    # In step again: the stores hold as many listed chunks as the ledger lists, so no chunk of
    # the ledger needs looking up.
    for store in (index.chroma, index.bm25):
        monkeypatch.setattr(store, "present", lambda *a: pytest.fail("looked up every chunk"))
    assert consistency.repair(NS, index.ledger, index.bm25, index.chroma) == {
        "orphans": 0, "dirty": 0}
