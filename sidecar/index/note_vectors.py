"""Note-level meaning: a note's vector as the mean of its chunks' stored vectors.

A question about what a note is for ("where do I see which notes link to the open one") often
sits near no single chunk of it and near the note as a whole: the help vaults' notes, averaged,
ranked their answers better than their best chunks did (docs/benchmarks.md, "Multilingual: a
note's meaning as a whole"). A search's candidate notes are lifted by how near their mean vector
is to the query (`sidecar/retrieval/search.py`), by a share each embedder's calibration gives
(`models.json` `fusion.notes`): an embedder that cannot read a vault's language would lift
noise. Worked out at query time from Chroma, for the candidates only, so nothing more is stored
or kept in lockstep.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from sidecar.index.chroma import ChromaStore
from sidecar.index.ledger import Ledger
from sidecar.schema import load_json

FloatArray = npt.NDArray[np.float32]
T = TypeVar("T")


@cache
def chunks_per_note() -> int:
    """How many of a note's chunks its mean reads (`ranking.json` `note_vectors.chunks`)."""
    return int(load_json("ranking.json")["note_vectors"]["chunks"])


def spread(items: Sequence[T], n: int) -> list[T]:
    """At most `n` of `items` spread evenly over them (first and last included)."""
    if len(items) <= n:
        return list(items)
    step = (len(items) - 1) / (n - 1) if n > 1 else 0
    return [items[round(i * step)] for i in range(n)]


def mean_vectors(
    chroma: ChromaStore, ledger: Ledger, namespace: str, paths: Iterable[str], *, private: bool,
) -> dict[str, FloatArray]:
    """The unit mean vector of each of `paths` the ledger holds, from at most `chunks_per_note`
    of its chunks' stored vectors; a private note's only when `private`. A note none of whose
    chunks has a vector yet (waiting for the embedding pass) is left out."""
    cap = chunks_per_note()
    wanted: dict[bool, dict[str, list[str]]] = {False: {}, True: {}}
    for path, facts in ledger.note_facts(namespace, paths).items():
        if facts[2] and not private:
            continue
        wanted[facts[2]][path] = spread(facts[5], cap)
    out: dict[str, FloatArray] = {}
    for store_private, notes in wanted.items():
        if not notes:
            continue
        found = chroma.vectors(namespace, store_private,
                               [cid for ids in notes.values() for cid in ids])
        for path, ids in notes.items():
            held = [found[cid] for cid in ids if cid in found]
            if held:
                mean = np.stack(held).mean(axis=0, dtype=np.float32)
                norm = float(np.linalg.norm(mean))
                if norm > 0:
                    out[path] = (mean / norm).astype(np.float32)
    return out


def shares(query: FloatArray, vectors: Mapping[str, FloatArray]) -> dict[str, float]:
    """Each note's nearness to `query` as a share of the candidates' range: 1 for the nearest
    mean, 0 for the farthest; none when fewer than two differ (no order to give)."""
    if len(vectors) < 2:
        return {}
    paths = list(vectors)
    near = np.stack([vectors[p] for p in paths]) @ np.asarray(query, dtype=np.float32)
    low, high = float(near.min()), float(near.max())
    if high - low <= 1e-9:
        return {}
    return {p: (float(s) - low) / (high - low) for p, s in zip(paths, near, strict=True)}
