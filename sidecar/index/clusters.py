"""Topic clusters for time decay ('The Vault', 'Time decay').

Decay counts newer chunks *in the same cluster*, so every decay-eligible note (chat, transcript,
web) needs a cluster. A note's own `cluster` property wins. The others are assigned here:

1. a note's centroid is the mean of its chunk vectors, re-normalised;
2. notes are visited in (decay date, path) order, declared ones included, so each cluster's
   centroid is the normalised mean of its members' centroids so far;
3. an undeclared note joins the existing cluster whose centroid is most similar (cosine) when that
   similarity is at least `cluster.assign_threshold` (schema/ranking.json), ties to the cluster
   created first; otherwise it starts a new cluster `auto:<slug of its title>` (`-2`, `-3`… when
   that name is taken).

The pass depends only on the notes' dates, paths, titles, declared clusters and vectors, so
rebuilding the index from the vault gives the same clusters. It is recomputed in full after every
change to a decay-eligible note (a few milliseconds for thousands of notes).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]

AUTO_PREFIX = "auto:"


@dataclass(frozen=True)
class ClusterMember:
    """What the assignment reads about one decay-eligible note."""

    path: str
    date: str
    title: str
    declared: str | None
    centroid: FloatArray | None


def centroid(vectors: FloatArray) -> FloatArray | None:
    """The unit mean of a note's chunk vectors (None for a note without chunks)."""
    if len(vectors) == 0:
        return None
    mean = vectors.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return (mean / norm).astype(np.float32) if norm > 0 else None


def slug(title: str) -> str:
    """Lower-case ASCII words joined by '-' ('note' when nothing is left)."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_title.lower())
    return "-".join(words)[:60] or "note"


def assign_clusters(members: Iterable[ClusterMember], threshold: float) -> dict[str, str]:
    """Path -> cluster name for every member, by the greedy pass in the module docstring."""
    sums = _ClusterSums()
    out: dict[str, str] = {}
    for m in sorted(members, key=lambda m: (m.date, m.path)):
        name = m.declared or sums.nearest(m.centroid, threshold) or sums.fresh_name(m.title)
        sums.add(name, m.centroid)
        out[m.path] = name
    return out


class _ClusterSums:
    """Running sums of member centroids, one row per cluster, grown by doubling."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.row: dict[str, int] = {}
        self.matrix: FloatArray = np.zeros((0, 0), dtype=np.float32)
        self.norms: FloatArray = np.zeros(0, dtype=np.float32)

    def nearest(self, vector: FloatArray | None, threshold: float) -> str | None:
        n = len(self.names)
        if vector is None or n == 0 or self.matrix.shape[1] != vector.size:
            return None
        sims = (self.matrix[:n] @ vector) / np.clip(self.norms[:n], 1e-12, None)
        best = int(np.argmax(sims))  # the first (oldest) cluster wins a tie
        return self.names[best] if float(sims[best]) >= threshold else None

    def fresh_name(self, title: str) -> str:
        base = f"{AUTO_PREFIX}{slug(title)}"
        name, n = base, 1
        while name in self.row:
            n += 1
            name = f"{base}-{n}"
        return name

    def add(self, name: str, vector: FloatArray | None) -> None:
        if name not in self.row:
            self.row[name] = len(self.names)
            self.names.append(name)
        if vector is not None and self.matrix.shape[1] != vector.size:
            # The first vector fixes the dimension; no vector was summed before it.
            self.matrix = np.zeros((0, vector.size), dtype=np.float32)
        if len(self.matrix) < len(self.names):
            grow = max(16, 2 * len(self.names))
            matrix = np.zeros((grow, self.matrix.shape[1]), dtype=np.float32)
            matrix[: len(self.matrix)] = self.matrix
            norms = np.zeros(grow, dtype=np.float32)
            norms[: len(self.norms)] = self.norms
            self.matrix, self.norms = matrix, norms
        if vector is not None:
            i = self.row[name]
            self.matrix[i] += vector
            self.norms[i] = float(np.linalg.norm(self.matrix[i]))
