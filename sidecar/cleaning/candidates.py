"""Candidate pairs: notes about the same subject, and the claims of theirs that line up.

Note level: for every changed note, its nearest neighbours of the same kind by cosine of note
vectors, at least `note_similarity`, at most `neighbours` of them; archived notes and pairs
already joined by `supersedes` are left out. Claim level: within a candidate pair, the claim
pairs whose cosine is at least `claim_similarity`, best first, at most `claims_per_pair`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from sidecar.cleaning.store import NoteState
from sidecar.models.embedder import FloatArray


@dataclass(frozen=True)
class Candidate:
    """Two notes of one kind about the same subject (a.path < b.path)."""

    a: NoteState
    b: NoteState
    similarity: float


@dataclass(frozen=True)
class Alignment:
    """Claim i of note a against claim j of note b."""

    i: int
    j: int
    similarity: float


def note_vector(state: NoteState) -> FloatArray:
    assert state.vectors is not None
    row: FloatArray = state.vectors[-1]
    return row


def _linked(x: NoteState, y: NoteState) -> bool:
    return y.path in x.supersedes or x.path in y.supersedes


def pool(states: Iterable[NoteState], kind: str) -> list[NoteState]:
    """The notes of one kind that may be paired: embedded and not archived."""
    return sorted((s for s in states if s.kind == kind and not s.archived
                   and s.vectors is not None), key=lambda s: s.path)


def neighbours(notes: list[NoteState], changed: set[str], threshold: float,
               k: int) -> list[Candidate]:
    """Candidate pairs with at least one changed note, each unordered pair once."""
    if len(notes) < 2 or changed.isdisjoint(s.path for s in notes):
        return []
    matrix = np.stack([note_vector(s) for s in notes])
    found: dict[tuple[str, str], Candidate] = {}
    for row, state in enumerate(notes):
        if state.path not in changed:
            continue
        sims = matrix @ matrix[row]
        sims[row] = -1.0
        for col in np.argsort(-sims)[:k]:
            sim = float(sims[col])
            other = notes[int(col)]
            if sim < threshold:
                break
            if _linked(state, other):
                continue
            a, b = sorted((state, other), key=lambda s: s.path)
            found.setdefault((a.path, b.path), Candidate(a, b, sim))
    return sorted(found.values(), key=lambda c: (c.a.path, c.b.path))


def align(a: NoteState, b: NoteState, threshold: float, limit: int) -> list[Alignment]:
    """The claim pairs of two notes that say something about the same thing."""
    if not a.claims or not b.claims or a.vectors is None or b.vectors is None:
        return []
    sims = a.vectors[: len(a.claims)] @ b.vectors[: len(b.claims)].T
    order = np.argsort(-sims, axis=None)[:limit]
    pairs = [Alignment(int(i), int(j), float(sims[i, j]))
             for i, j in zip(*np.unravel_index(order, sims.shape), strict=True)]
    return [p for p in pairs if p.similarity >= threshold]
