"""The Chroma store leaves archived chunks out without losing the k results that exist."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sidecar.index.chroma import ChromaStore


def _crowded_store(tmp_path: Path) -> tuple[ChromaStore, np.ndarray[Any, Any]]:
    """Ten archived chunks right on the query vector, three live ones further away."""
    store = ChromaStore(tmp_path / "chroma", "")
    rng = np.random.default_rng(0)
    target = rng.normal(size=8).astype(np.float32)
    target /= np.linalg.norm(target)
    # Ten archived chunks sit right on the query; three live ones further away.
    near = target + 0.01 * rng.normal(size=(10, 8)).astype(np.float32)
    far = target + 0.5 * rng.normal(size=(3, 8)).astype(np.float32)
    vectors = np.vstack([near, far]).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [f"a{i}" for i in range(10)] + [f"live{i}" for i in range(3)]
    metas = [{"archived": True}] * 10 + [{"archived": False}] * 3
    store.upsert("default", False, ids, vectors, ["text"] * 13, metas)
    return store, target


def test_archived_chunks_crowding_the_top_still_leave_k_results(tmp_path: Path) -> None:
    store, target = _crowded_store(tmp_path)
    kept = store.query("default", False, target, 2, include_archived=False)
    assert len(kept) == 2 and all(cid.startswith("live") for cid, _ in kept)
    everything = store.query("default", False, target, 2, include_archived=True)
    assert all(cid.startswith("a") for cid, _ in everything)


@pytest.mark.parametrize("with_live", [True, False])
def test_a_filtered_query_never_sends_ids_with_a_where_and_still_leaves_k_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, with_live: bool
) -> None:
    # Chroma 1.5 answers ids + where in seconds on a few thousand ids (10 s for 1,000 at 10k
    # chunks), where either alone takes milliseconds.
    store, target = _crowded_store(tmp_path)
    col = store.collection("default", False, create=False)
    assert col is not None
    real_query = col.query
    asked: list[dict[str, Any]] = []

    def query(**kwargs: Any) -> Any:
        asked.append(kwargs)
        return real_query(**kwargs)

    monkeypatch.setattr(col, "query", query)

    def live(ids: Sequence[str]) -> set[str]:
        return {i for i in ids if i.startswith("live")}

    only = ["a0", "a1", "a2", "a3", "a4", "live0", "live1"]
    kept = store.query("default", False, target, 2, include_archived=False, only=only,
                       live=live if with_live else None)
    assert sorted(cid for cid, _ in kept) == ["live0", "live1"]
    assert asked and all(a.get("where") is None for a in asked if a.get("ids") is not None)
    everything = store.query("default", False, target, 3, include_archived=True, only=only)
    assert all(cid.startswith("a") for cid, _ in everything)


def test_an_idle_client_is_closed_and_reopened_with_the_same_answers(tmp_path: Path) -> None:
    store, target = _crowded_store(tmp_path)
    before = store.query("default", False, target, 3, include_archived=False)
    assert not store.release(60.0)  # used just now
    assert store.release(0.0) and not store.loaded
    assert store.query("default", False, target, 3, include_archived=False) == before
    assert store.loaded and store.opens == 2
    store.upsert("default", False, ["late"], target.reshape(1, -1), ["text"], [{"archived": False}])
    assert store.release(0.0)
    assert store.query("default", False, target, 1, include_archived=False)[0][0] == "late"


def test_a_client_in_use_is_not_released(tmp_path: Path) -> None:
    store, _ = _crowded_store(tmp_path)
    with store.use():
        assert not store.release(0.0)
        assert store.count("default", False) == 13  # an operation inside another still runs
    assert store.release(0.0)
