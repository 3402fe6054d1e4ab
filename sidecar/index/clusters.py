"""Topic clusters for time decay ('The Vault', 'Time decay').

Decay counts newer chunks *in the same cluster*, so every decay-eligible note (chat, transcript,
web) needs a cluster. A note's own `cluster` property wins. The others are assigned here:

1. a note's centroid is the mean of its chunk vectors, re-normalised;
2. public notes are visited in (decay date, path) order, declared ones included, so each
   cluster's centroid is the normalised mean of its public members' centroids so far;
3. an undeclared note joins the existing cluster whose centroid is most similar (cosine) when that
   similarity is at least `cluster.assign_threshold` (schema/ranking.json), ties to the cluster
   created first; otherwise it starts a new cluster;
4. then private notes are visited, in the same order: one that declares a cluster joins the one
   a public note declared by that name, else the private-only one; an undeclared one joins the
   most similar of the public clusters (as the first pass left them) and the private-only
   clusters made so far, by the same rule (a public cluster wins a tie). A private note adds to
   the centroid of a private-only cluster only, never to a public one.

So every public note's cluster, and with it its decay, is what it would be if no private note
existed (privacy.md: an answer outside private mode does not depend on a private note).

Names are given after the passes, and never carry a private note's text, since a cluster name is
shown in every member's `why.cluster`: a cluster with a public member is named by a public note
(the name a public member declared, else `auto:<slug of its earliest public member's title>`);
a cluster of private notes only is named as its founder declared it, else after its founder's
title, and is seen only in private mode. Names with public members are chosen first, in the order
of their earliest public member, so no private note decides their `-2`, `-3`… suffixes.

The passes depend only on the notes' dates, paths, titles, privacy, declared clusters and vectors,
so rebuilding the index from the vault gives the same clusters. They are recomputed in full after
every change to a decay-eligible note (a few milliseconds for thousands of notes; the ledger is
read twice when some decay-eligible note is private).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from sidecar.models.embedder import FloatArray

AUTO_PREFIX = "auto:"


@dataclass(frozen=True)
class ClusterMember:
    """What the assignment reads about one decay-eligible note."""

    path: str
    date: str
    title: str
    declared: str | None
    centroid: FloatArray | None
    private: bool = False


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
    """Path -> cluster name for every member, by the passes in the module docstring."""
    ordered = sorted(members, key=lambda m: (m.date, m.path))
    return assign_in_order(lambda: ordered, threshold)


def assign_in_order(
    members: Callable[[], Iterable[ClusterMember]], threshold: float
) -> dict[str, str]:
    """`assign_clusters` of members that `members()` yields in (date, path) order, taken one at a
    time: only the clusters' running sums and names are kept, never the members' vectors, so the
    ledger can stream them (memory grows with the clusters, not the notes). `members()` is called
    a second time, for the private members' pass, only when the first call yielded one."""
    state = _Passes(threshold)
    any_private = False
    for m in members():
        if m.private:
            any_private = True
        else:
            state.place_public(m)
    if any_private:
        state.begin_private()
        for m in members():
            if m.private:
                state.place_private(m)
    names = _name(state.groups)
    return {path: names[i] for path, i in state.member_group.items()}


class _Passes:
    """Groups and sums of both passes. Public members are placed against public sums only, so
    private notes never decide a public note's cluster; private members join the final public
    clusters (whose sums they never feed) or clusters of their own, made after every public one."""

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold
        self.groups: list[_Group] = []
        self.member_group: dict[str, int] = {}
        self.public = _ClusterSums()  # row = group index: public groups are made first
        self.private = _ClusterSums()  # row = group index - first_private
        self.public_declared: dict[str, int] = {}
        self.private_declared: dict[str, int] = {}
        self.first_private = 0  # the first private-only group (set by `begin_private`)

    def begin_private(self) -> None:
        """Before the private pass: every group made from here on is private-only."""
        self.first_private = len(self.groups)

    def place_public(self, m: ClusterMember) -> None:
        found = (self.public_declared.get(m.declared) if m.declared
                 else self.public.nearest(m.centroid, self.threshold))
        if found is None:
            found = self._new_group(m, self.public_declared)
        self.public.add(found, m.centroid)
        self._join(found, m)

    def place_private(self, m: ClusterMember) -> None:
        if m.declared:
            found = self.public_declared.get(m.declared, self.private_declared.get(m.declared))
        else:
            found = self._nearest_for_private(m.centroid)
        if found is None:
            found = self._new_group(m, self.private_declared)
        if found >= self.first_private:  # a private-only cluster: public sums stay untouched
            self.private.add(found - self.first_private, m.centroid)
        self._join(found, m)

    def _nearest_for_private(self, vector: FloatArray | None) -> int | None:
        """The most similar cluster at or above the threshold; a public one wins a tie (it was
        made first)."""
        public = self.public.best(vector)
        own = self.private.best(vector)
        if own is not None and (public is None or own[1] > public[1]):
            best: tuple[int, float] | None = (own[0] + self.first_private, own[1])
        else:
            best = public
        return best[0] if best is not None and best[1] >= self.threshold else None

    def _new_group(self, m: ClusterMember, declared: dict[str, int]) -> int:
        found = len(self.groups)
        self.groups.append(_Group(m.declared, m.title))
        if m.declared:
            declared[m.declared] = found
        return found

    def _join(self, found: int, m: ClusterMember) -> None:
        self.groups[found].add(m)
        self.member_group[m.path] = found


@dataclass
class _Group:
    """What naming needs of one cluster: its founder, and its first public member (in date
    order) and the first name a public member declared."""

    founder_declared: str | None
    founder_title: str
    first_public: tuple[str, str, str] | None = None  # (date, path, title)
    public_declared: str | None = None

    def add(self, m: ClusterMember) -> None:
        if m.private:
            return
        if self.first_public is None:
            self.first_public = (m.date, m.path, m.title)
        if not self.public_declared:
            self.public_declared = m.declared


def _name(groups: list[_Group]) -> list[str]:
    """One name per cluster, private text kept out of public names."""
    taken: set[str] = set()
    names = [""] * len(groups)

    def unique(base: str) -> str:
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}-{n}"
        taken.add(name)
        return name

    order = sorted((i for i, g in enumerate(groups) if g.first_public is not None),
                   key=lambda i: _first_public(groups[i])[:2])
    for i in order:  # names declared by a public note are kept as written
        if groups[i].public_declared:
            names[i] = unique(str(groups[i].public_declared))
    for i in order:
        if not groups[i].public_declared:
            names[i] = unique(f"{AUTO_PREFIX}{slug(_first_public(groups[i])[2])}")
    for i, group in enumerate(groups):  # private-only clusters, in creation order
        if group.first_public is None:
            names[i] = unique(group.founder_declared or f"{AUTO_PREFIX}{slug(group.founder_title)}")
    return names


def _first_public(group: _Group) -> tuple[str, str, str]:
    assert group.first_public is not None
    return group.first_public


class _ClusterSums:
    """Running sums of member centroids, one row per cluster (by creation), grown by doubling."""

    def __init__(self) -> None:
        self.count = 0
        self.matrix: FloatArray = np.zeros((0, 0), dtype=np.float32)
        self.norms: FloatArray = np.zeros(0, dtype=np.float32)

    def nearest(self, vector: FloatArray | None, threshold: float) -> int | None:
        """The row most similar to `vector` if at least `threshold` similar, else None."""
        found = self.best(vector)
        return found[0] if found is not None and found[1] >= threshold else None

    def best(self, vector: FloatArray | None) -> tuple[int, float] | None:
        """(row, cosine) of the row most similar to `vector`; None when there is none."""
        n = self.count
        if vector is None or n == 0 or self.matrix.shape[1] != vector.size:
            return None
        sims = (self.matrix[:n] @ vector) / np.clip(self.norms[:n], 1e-12, None)
        best = int(np.argmax(sims))  # the first (oldest) cluster wins a tie
        return best, float(sims[best])

    def add(self, row: int, vector: FloatArray | None) -> None:
        self.count = max(self.count, row + 1)
        if vector is not None and self.matrix.shape[1] != vector.size:
            # The first vector fixes the dimension; no vector was summed before it.
            self.matrix = np.zeros((0, vector.size), dtype=np.float32)
        if len(self.matrix) < self.count:
            grow = max(16, 2 * self.count)
            matrix = np.zeros((grow, self.matrix.shape[1]), dtype=np.float32)
            matrix[: len(self.matrix)] = self.matrix
            norms = np.zeros(grow, dtype=np.float32)
            norms[: len(self.norms)] = self.norms
            self.matrix, self.norms = matrix, norms
        if vector is not None:
            self.matrix[row] += vector
            self.norms[row] = float(np.linalg.norm(self.matrix[row]))
