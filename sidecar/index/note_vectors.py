"""Note-level meaning: how near a note as a whole is to a query.

A question about what a note is for ("where do I see which notes link to the open one") often
sits near no single chunk of it and near the note as a whole: the help vaults' notes, by the mean
of their chunk vectors, ranked their answers better than their best chunks did (docs/benchmarks.md,
"Multilingual: a note's meaning as a whole"). A search's candidate notes are lifted by how near
that mean is to the query (`sidecar/retrieval/search.py`), by a share each embedder's calibration
gives (`models.json` `fusion.notes`): an embedder that cannot read a vault's language would lift
noise. The mean is the ledger's `centroid` (`Index.note_vectors`, `Ledger.centroids`), written
with the note's vectors (`embed_pass.py`, `sync.py`) and kept while an edited note's new ones
wait, so a search reads one row per candidate note and nothing else is kept in lockstep.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from sidecar.models.embedder import FloatArray


def shares(
    query: FloatArray, vectors: Mapping[str, FloatArray], paths: Iterable[str],
) -> dict[str, float]:
    """How near each of `paths` is to `query` as a share of their range: 1 for the nearest
    mean, 0 for the farthest. A note without a mean yet (new, its chunks waiting for the
    embedding pass) takes the median of the others' shares: neither lifted over them nor left
    under them. Empty when fewer than two means differ (no order to give)."""
    known = [p for p in dict.fromkeys(paths) if p in vectors]
    if len(known) < 2:
        return {}
    near = np.stack([vectors[p] for p in known]) @ np.asarray(query, dtype=np.float32)
    low, high = float(near.min()), float(near.max())
    if high - low <= 1e-9:
        return {}
    out = {p: (float(s) - low) / (high - low) for p, s in zip(known, near, strict=True)}
    middle = float(np.median(list(out.values())))
    return {p: out.get(p, middle) for p in dict.fromkeys(paths)}
