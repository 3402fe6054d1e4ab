"""Cluster assignment for decay: declared names win, similar notes join, order decides."""

from __future__ import annotations

import random
from pathlib import PurePosixPath

import numpy as np

from sidecar.index.clusters import ClusterMember, assign_clusters, centroid, slug


def _unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def _m(path: str, date: str, vec: np.ndarray | None, declared: str | None = None) -> ClusterMember:
    return ClusterMember(path, date, PurePosixPath(path).stem, declared, vec)


def test_similar_notes_join_and_distant_ones_start_clusters() -> None:
    members = [
        _m("Tea a.md", "2024-01-01", _unit(1, 0, 0)),
        _m("Tea b.md", "2024-01-02", _unit(0.95, 0.05, 0)),
        _m("Cars.md", "2024-01-03", _unit(0, 0, 1)),
    ]
    got = assign_clusters(members, threshold=0.6)
    assert got == {"Tea a.md": "auto:tea-a", "Tea b.md": "auto:tea-a", "Cars.md": "auto:cars"}


def test_declared_cluster_wins_and_attracts_similar_notes() -> None:
    members = [
        _m("Chat 1.md", "2024-01-01", _unit(1, 0), declared="kettles"),
        _m("Chat 2.md", "2024-01-02", _unit(0.9, 0.1)),
        _m("Chat 3.md", "2024-01-03", _unit(0, 1), declared="kettles"),
    ]
    got = assign_clusters(members, threshold=0.6)
    assert set(got.values()) == {"kettles"}


def test_assignment_is_independent_of_input_order() -> None:
    rng = np.random.default_rng(7)
    members = [
        _m(f"n{i}.md", f"2024-01-{i % 28 + 1:02d}", _unit(*rng.normal(size=8))) for i in range(60)
    ]
    expected = assign_clusters(members, threshold=0.3)
    shuffled = members[:]
    random.Random(1).shuffle(shuffled)
    assert assign_clusters(shuffled, threshold=0.3) == expected


def test_same_titles_get_distinct_names_and_notes_without_chunks_get_their_own() -> None:
    members = [
        _m("a/Chat.md", "2024-01-01", _unit(1, 0)),
        _m("b/Chat.md", "2024-01-02", _unit(0, 1)),
        _m("c/Chat.md", "2024-01-03", None),
    ]
    got = assign_clusters(members, threshold=0.9)
    assert got == {"a/Chat.md": "auto:chat", "b/Chat.md": "auto:chat-2", "c/Chat.md": "auto:chat-3"}


def test_centroid_and_slug() -> None:
    assert centroid(np.zeros((0, 3), dtype=np.float32)) is None
    c = centroid(np.stack([_unit(1, 0), _unit(0, 1)]))
    assert c is not None and np.allclose(c, _unit(1, 1))
    assert slug("Café — Über Tea!") == "cafe-uber-tea"
    assert slug("…") == "note"
