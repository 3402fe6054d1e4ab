"""The Chroma store leaves archived chunks out without losing the k results that exist, and a
closed index leaves none of its Chroma memory behind."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from chromadb.api.shared_system_client import SharedSystemClient
from hypothesis import given, settings
from hypothesis import strategies as st

from sidecar.index.chroma import ChromaStore

from .conftest import OpenIndex


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


def _queries_asked(store: ChromaStore, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The arguments of every query the public collection is asked from now on."""
    col = store.collection("default", False, create=False)
    assert col is not None
    real_query = col.query
    asked: list[dict[str, Any]] = []

    def query(**kwargs: Any) -> Any:
        asked.append(kwargs)
        return real_query(**kwargs)

    monkeypatch.setattr(col, "query", query)
    return asked


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
    asked = _queries_asked(store, monkeypatch)

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


def test_a_closed_index_leaves_no_chroma_system_in_the_process(
    vault: Path, open_idx: OpenIndex
) -> None:
    index = open_idx(vault)
    index.reconcile()
    folder = str(index.config.data / "chroma")
    assert folder in SharedSystemClient._identifier_to_system
    index.close()
    assert folder not in SharedSystemClient._identifier_to_system
    index.close()  # the fixture closes it again at teardown


def test_a_client_in_use_is_not_released(tmp_path: Path) -> None:
    store, _ = _crowded_store(tmp_path)
    with store.use():
        assert not store.release(0.0)
        assert store.count("default", False) == 13  # an operation inside another still runs
    assert store.release(0.0)


@pytest.fixture(scope="module")
def scattered(tmp_path_factory: pytest.TempPathFactory) -> tuple[ChromaStore, np.ndarray[Any, Any]]:
    """200 random unit vectors (8 dimensions), ids c0..c199, every seventh chunk archived."""
    store = ChromaStore(tmp_path_factory.mktemp("scattered"), "")
    vectors = np.random.default_rng(1).normal(size=(200, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store.upsert("default", False, [f"c{i}" for i in range(200)], vectors, ["text"] * 200,
                 [{"archived": i % 7 == 6} for i in range(200)])
    return store, vectors


def _live(ids: Sequence[str]) -> set[str]:
    return {i for i in ids if int(i[1:]) % 7 != 6}


def _target(seed: int) -> np.ndarray[Any, Any]:
    target = np.random.default_rng(seed).normal(size=8).astype(np.float32)
    return target / np.linalg.norm(target)


def _nearest_among(vectors: np.ndarray[Any, Any], target: np.ndarray[Any, Any], ids: list[str],
                   k: int) -> list[str]:
    return sorted(ids, key=lambda i: -float(vectors[int(i[1:])] @ target))[:k]


@settings(max_examples=25, deadline=None)
@given(admitted=st.sets(st.integers(0, 199), min_size=80), k=st.integers(1, 15),
       archived=st.booleans(), seed=st.integers(0, 2**16))
def test_a_wide_filter_finds_the_nearest_of_its_chunks(
    scattered: tuple[ChromaStore, np.ndarray[Any, Any]], admitted: set[int], k: int,
    archived: bool, seed: int,
) -> None:
    store, vectors = scattered
    target = _target(seed)
    only = [f"c{i}" for i in sorted(admitted)]
    found = store.query("default", False, target, k, include_archived=archived, only=only,
                        live=_live)
    wanted = [i for i in only if archived or i in _live([i])]
    assert [cid for cid, _ in found] == _nearest_among(vectors, target, wanted, k)


def test_a_wide_filter_asks_the_unfiltered_top_not_an_exact_search_among_its_ids(
    scattered: tuple[ChromaStore, np.ndarray[Any, Any]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    store, vectors = scattered
    asked = _queries_asked(store, monkeypatch)
    only = [f"c{i}" for i in range(1, 200)]  # all but one
    target = _target(7)
    found = store.query("default", False, target, 5, include_archived=False, only=only,
                        live=_live)
    assert [cid for cid, _ in found] == _nearest_among(vectors, target, sorted(_live(only)), 5)
    assert asked and all("ids" not in a for a in asked)


def test_a_wide_filter_whose_chunks_are_far_from_the_query_searches_among_them(
    tmp_path: Path,
) -> None:
    store, target = _crowded_store(tmp_path)  # ten archived chunks right on the query
    # 7 of the 13 chunks: the unfiltered top 2 × 2 × 13 / 7 = 8 holds only archived chunks.
    lives = ["live0", "live1", "live2"]
    only = [*lives, "a0", "a1", "a2", "a3"]
    kept = store.query("default", False, target, 2, include_archived=False, only=only,
                       live=lambda ids: {i for i in ids if i.startswith("live")})
    similarity = dict(zip(lives, store.embeddings("default", False, lives) @ target, strict=True))
    assert [cid for cid, _ in kept] == sorted(lives, key=lambda i: -similarity[i])[:2]
