"""The Chroma store leaves archived chunks out without losing the k results that exist."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sidecar.index.chroma import ChromaStore


def test_archived_chunks_crowding_the_top_still_leave_k_results(tmp_path: Path) -> None:
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

    kept = store.query("default", False, target, 2, include_archived=False)
    assert len(kept) == 2 and all(cid.startswith("live") for cid, _ in kept)
    everything = store.query("default", False, target, 2, include_archived=True)
    assert all(cid.startswith("a") for cid, _ in everything)
