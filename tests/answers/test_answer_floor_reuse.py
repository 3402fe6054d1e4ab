"""The relevance floor of an answer (`pipeline.above_floor`) compares the passages with the query
vector the answer's search already found them by: the question is embedded once per answer, and
the floor keeps the passages it kept when it embedded the question again."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from sidecar.answers import answer
from sidecar.answers.pipeline import above_floor
from sidecar.index import Index
from sidecar.models.embedder import Embedder, FloatArray
from sidecar.retrieval.search import RememberedQueries, SearchOptions, search

from .conftest import settings

QUESTION = "What leavens sourdough bread?"
OPTIONS = SearchOptions(k=4, rerank=False)


class CountingEmbedder(Embedder):
    """The real int8 embedder, counting each query text it is asked to embed."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.tokenizer = inner.tokenizer
        self.queries: list[str] = []

    def embed(self, texts: Sequence[str]) -> FloatArray:
        return self.inner.embed(texts)

    def embed_queries(self, queries: Sequence[str]) -> FloatArray:
        self.queries += queries
        return self.inner.embed_queries(queries)


async def test_an_answer_embeds_its_question_once(
    tmp_path: Path, indexed: Index, embedder: Embedder,
) -> None:
    counting = CountingEmbedder(embedder)
    doc = await answer(settings(tmp_path), indexed, counting, None, QUESTION, OPTIONS)
    assert "Resources/Sourdough.md" in [c["path"] for c in doc["citations"]]
    assert counting.queries.count(QUESTION) == 1  # by the search; the floor reuses its vector


async def test_the_floor_keeps_what_it_kept_when_it_embedded_the_question_again(
    indexed: Index, embedder: Embedder,
) -> None:
    queries = RememberedQueries(embedder)
    found = await search(indexed, queries, None, QUESTION, OPTIONS)
    reused = queries.vector(QUESTION)
    assert reused is not None
    kept = above_floor(embedder, QUESTION, found["results"], reused)
    assert kept == above_floor(embedder, QUESTION, found["results"])  # embedded afresh
    # Some passages kept and some left out: the comparison decides something.
    assert 0 < len(kept) < len(found["results"])


async def test_a_search_by_the_words_alone_leaves_the_floor_to_embed_the_question(
    tmp_path: Path, indexed: Index, embedder: Embedder,
) -> None:
    """No query vector to reuse (a server's search while the embedding model is not loaded):
    the floor embeds the question itself, once, and still leaves out what does not match."""
    counting = CountingEmbedder(embedder)
    doc = await answer(settings(tmp_path), indexed, counting, None, QUESTION,
                       replace(OPTIONS, dense=False))
    paths = [c["path"] for c in doc["citations"]]
    assert "Resources/Sourdough.md" in paths and "Engrams/Spaced repetition.md" not in paths
    assert counting.queries.count(QUESTION) == 1
