"""A private note's text never shares an embedder call with a public note's: the q8 embedder
(`ora models build`'s int8 quantisation, `auto`'s first choice once built) quantises its
activations per call, so a private text in a public note's call shifted the public note's vector
(a side channel in public scores). Property: the public notes' vectors, hence their scores, are
the same bit for bit whether or not private notes exist."""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pytest

from sidecar.index import Index, embed_pass
from sidecar.models.build import build_embedders, build_fp32_embedder
from sidecar.models.embedder import Embedder, open_embedder

from .conftest import OpenIndex, note, write

WORDS = ["okapi", "giraffe", "congo", "forest", "savanna", "zebra", "lion", "dusk", "plains",
         "river", "canopy", "stripes", "herd", "grazing", "tongue", "leaves", "rain", "mud",
         "night", "sighting", "tracks", "camera", "ranger"]


@pytest.fixture(scope="module")
def q8_embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    """The q8 embedder, built from the packaged weights (as `ora models build` does)."""
    models = tmp_path_factory.mktemp("models-q8") / "models"
    build_fp32_embedder(models)
    build_embedders(models)
    return open_embedder("q8", models)


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 30))).capitalize() + "."


def _write_vault(root: Path, seed: int, *, with_private: bool) -> list[str]:
    """Public notes (the same for a seed), and private ones between them by modification time
    when `with_private`; the public notes' paths."""
    rng = random.Random(seed)
    public = []
    for n in range(9):
        rel = f"Public/Note {n}.md"
        body = "\n\n".join(_sentence(rng) for _ in range(rng.randint(1, 3)))
        os.utime(write(root, rel, note("engram", body)), ns=(10**18 + 2 * n, 10**18 + 2 * n))
        public.append(rel)
    if with_private:
        for n in range(12):
            rel = f"Diary/Entry {n}.md"
            rng_n = random.Random(seed * 100 + n)  # of all lengths, pads public texts
            body = f"Private okapi sighting {n}. " + " ".join(
                _sentence(rng_n) for _ in range(rng_n.randint(0, 8)))
            mtime = 10**18 + n - 1  # newest-first order interleaves them with the public notes
            os.utime(write(root, rel, note("engram", body, tags=["private"])), ns=(mtime, mtime))
    return public


def _public_vectors(index: Index) -> dict[str, np.ndarray]:
    store = index.chroma.collection("default", False, create=False)
    assert store is not None
    got = store.get(include=["embeddings"])
    vectors = got["embeddings"]
    assert vectors is not None
    return {str(i): np.asarray(v) for i, v in zip(got["ids"], list(vectors), strict=True)}


@pytest.mark.parametrize(("seed", "batch_chunks", "embed_slice"),
                         [(1, 256, 32), (2, 4, 3), (3, 5, 2)])
def test_public_vectors_are_the_same_whether_or_not_private_notes_exist(
    tmp_path: Path, open_idx: OpenIndex, q8_embedder: Embedder, monkeypatch: pytest.MonkeyPatch,
    seed: int, batch_chunks: int, embed_slice: int,
) -> None:
    # Small batches and calls as well as the real sizes: the cuts must not depend on them.
    monkeypatch.setattr(embed_pass, "BATCH_CHUNKS", batch_chunks)
    monkeypatch.setattr(embed_pass, "EMBED_SLICE", embed_slice)
    vectors, scores = [], []
    query = q8_embedder.embed_queries(["okapi in the congo forest"])[0]
    for with_private in (False, True):
        root = tmp_path / f"vault_{with_private}"
        public = _write_vault(root, seed, with_private=with_private)
        index = open_idx(root, data=tmp_path / f"data_{with_private}", emb=q8_embedder)
        index.reconcile()
        found = _public_vectors(index)
        assert len(found) >= len(public)
        vectors.append(found)
        hits = index.dense_search(query, 50, private=False, namespace="default")
        scores.append(sorted((str(cid), float(score)) for cid, score in hits))
    alone, beside_private = vectors
    assert alone.keys() == beside_private.keys()
    for cid, vector in alone.items():
        assert np.array_equal(vector, beside_private[cid]), cid
    assert scores[0] == scores[1]
