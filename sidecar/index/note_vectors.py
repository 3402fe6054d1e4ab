"""Note-level meaning: how near a note as a whole is to a query.

A question about what a note is for ("where do I see which notes link to the open one") often
sits near no single chunk of it and near the note as a whole: the help vaults' notes, by the mean
of their chunk vectors, ranked their answers better than their best chunks did (docs/benchmarks.md,
"Multilingual: a note's meaning as a whole"). A search's candidate notes are lifted by how near
that mean is to the query (`sidecar/retrieval/search.py`), by a share each embedder's calibration
gives (`models.json` `fusion.notes`): an embedder that cannot read a vault's language would lift
noise. The mean is the ledger's `centroid`, written with the note's vectors (`embed_pass.py`,
`sync.py`), so a search reads one row per candidate note and nothing else is kept in lockstep.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import numpy.typing as npt

from sidecar.index.ledger import Ledger

FloatArray = npt.NDArray[np.float32]


def means(
    ledger: Ledger, namespace: str, paths: Iterable[str], *, private: bool,
) -> dict[str, FloatArray] | None:
    """The unit mean vector of each of `paths` the ledger holds with chunks, a private note's
    only when `private`; None when one of them has none yet (its chunks wait for the embedding
    pass, or an older sidecar kept means of decaying notes only): its place among the others
    would be a guess, so no note is lifted."""
    found = ledger.centroids(namespace, paths, private=private)
    if any(vector is None for vector in found.values()):
        return None
    return {path: vector for path, vector in found.items() if vector is not None}


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
