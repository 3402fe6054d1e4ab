"""The relevance floor of an answer (`pipeline.above_floor`) compares the question with the vector
the index stores for each passage's chunk (`StoredVectors`), not with the passage embedded again:
on a fully indexed vault an answer embeds no passage. A chunk without a current vector (written
by its words, waiting to be embedded; another embedder's) is embedded as before (`passage_text`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from sidecar.answers import answer
from sidecar.answers.pipeline import StoredVectors, above_floor, answer_floor, passage_text
from sidecar.index import Index
from sidecar.models.embedder import Embedder, FloatArray
from sidecar.retrieval.search import RememberedQueries, SearchOptions, search

from .conftest import settings

QUESTION = "What leavens sourdough bread?"
OPTIONS = SearchOptions(k=4, rerank=False)
SOURDOUGH = "Resources/Sourdough.md"
EDITED = (
    "---\nnexus: []\ntype: resource\ntags:\n  - science\n---\n"
    "# Sourdough\n\nBread has been baked for millennia.\n\n## Leavening\n\n"
    "A sourdough starter of wild yeast and lactobacilli leavens the bread dough.\n"
    "Feed the starter rye flour and water twice a day.\n"
)


class CountingEmbedder(Embedder):
    """The real int8 embedder, noting each passage text it is asked to embed."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.tokenizer = inner.tokenizer
        self.passages: list[str] = []

    def embed(self, texts: Sequence[str]) -> FloatArray:
        self.passages += texts
        return self.inner.embed(texts)

    def embed_queries(self, queries: Sequence[str]) -> FloatArray:
        return self.inner.embed_queries(queries)


async def _found(index: Index, embedder: Embedder,
                 ) -> tuple[list[dict[str, Any]], FloatArray, StoredVectors]:
    """The answer's search: its results, the query vector it found them by, the hook it told."""
    queries, stored = RememberedQueries(embedder), StoredVectors(index, OPTIONS)
    found = await search(index, queries, None, QUESTION, replace(OPTIONS, shown=stored))
    vector = queries.vector(QUESTION)
    assert vector is not None
    return found["results"], vector, stored


def _direct(index: Index, results: Sequence[dict[str, Any]]) -> list[FloatArray]:
    """Each result's stored vector, found by its chunk id from the ledger, not by the hook."""
    rows = index.ledger.rows("default", {r["path"] for r in results})
    vectors = []
    for r in results:
        records = index.get_chunks(list(rows[r["path"]].chunk_ids), private=False)
        (chunk_id,) = [cid for cid, rec in records.items()
                       if rec.line_start == r["line_start"] and rec.text == r["text"]]
        vectors.append(index.chunk_vectors([chunk_id], private_store=False)[0])
    return vectors


def _cosine(a: FloatArray, b: FloatArray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


async def test_a_fully_indexed_vault_embeds_no_passage_for_the_floor(
    tmp_path: Path, indexed: Index, embedder: Embedder,
) -> None:
    counting = CountingEmbedder(embedder)
    doc = await answer(settings(tmp_path), indexed, counting, None, QUESTION, OPTIONS)
    paths = [c["path"] for c in doc["citations"]]
    # The floor still decides: the answer's note kept, an unrelated one left out.
    assert SOURDOUGH in paths and "Engrams/Spaced repetition.md" not in paths
    assert counting.passages == []


async def test_the_floor_keeps_what_the_stored_vectors_directly_compared_keep(
    indexed: Index, embedder: Embedder,
) -> None:
    results, vector, stored = await _found(indexed, embedder)
    floor = answer_floor(embedder.model_id)
    assert floor is not None
    expected = [r for r, v in zip(results, _direct(indexed, results), strict=True)
                if _cosine(v, vector) >= floor]
    counting = CountingEmbedder(embedder)
    kept = above_floor(counting, QUESTION, results, vector, stored)
    assert kept == expected and counting.passages == []
    assert 0 < len(kept) < len(results)  # some kept, some left out: the comparison decides


async def test_a_chunk_waiting_to_be_embedded_again_is_embedded_for_the_floor(
    tmp_path: Path, indexed: Index, embedder: Embedder,
) -> None:
    """An edit written by its words only (the embedding pass not run yet): Chroma still holds
    the old text's vector, which the floor must not read for the new text. The note's chunk
    whose text did not change keeps its vector (the same text hash, the same model)."""
    (tmp_path / "vault" / SOURDOUGH).write_text(EDITED, encoding="utf-8")
    indexed._need_writer().sync([SOURDOUGH], quick=False, lexical=True)
    results, vector, stored = await _found(indexed, embedder)
    ours = [r for r in results if r["path"] == SOURDOUGH]
    edited = [r for r in ours if "rye flour" in r["text"]]
    assert edited and len(ours) > len(edited)  # the edited chunk and an unchanged one
    counting = CountingEmbedder(embedder)
    kept = above_floor(counting, QUESTION, results, vector, stored)
    assert counting.passages == [passage_text(r) for r in edited]  # only that one
    floor = answer_floor(embedder.model_id)
    assert floor is not None
    vectors = {id(r): v for r, v in zip(results, _direct(indexed, results), strict=True)}
    for r in edited:
        vectors[id(r)] = embedder.embed([passage_text(r)])[0]
    assert kept == [r for r in results if _cosine(vectors[id(r)], vector) >= floor]
    assert SOURDOUGH in [r["path"] for r in kept]


async def test_another_embedders_stored_vectors_are_not_read(
    indexed: Index, embedder: Embedder,
) -> None:
    results, _, stored = await _found(indexed, embedder)
    assert all(v is not None for v in stored.vectors(results, embedder.model_id))
    assert stored.vectors(results, "all-MiniLM-L6-v2:fp32:000000000000") == [None] * len(results)
