"""`ora serve` loads the embedding model after the start-up reconcile's words pass, not before the
API answers (issue 29); a search meanwhile answers by the words without waiting for the model,
and `GET /v1/status` says whether the model is loaded."""

from __future__ import annotations

from typing import Any

from sidecar.server.resources import INDEX, MODELS


async def test_the_model_is_loaded_once_the_reconcile_is_done(api: Any) -> None:
    status = await api.wait_reconciled()
    assert status["model_loaded"] is True
    assert api.app[MODELS].embedder.loaded
    assert api.app[MODELS].built  # the re-ranker was built (none installed here: it says why)
    assert "cross-encoder" in status["reranker"]["reason"]


async def test_a_search_in_the_words_pass_does_not_wait_for_the_model(api: Any) -> None:
    await api.wait_reconciled()
    embedder, index = api.app[MODELS].embedder, api.app[INDEX]
    assert embedder._session.release(0.0)  # as at start-up: the model not in memory
    assert (await api.get("/v1/status")).json["model_loaded"] is False
    index.progress.update(1, 4, "words")  # a words pass running
    try:
        doc = (await api.post("/v1/search", {"query": "spaced repetition", "k": 3,
                                             "rerank": False})).json
        assert doc["results"], "found by the words"
        assert all(r["why"]["dense_rank"] is None for r in doc["results"])
        assert doc["indexing"]["phase"] == "words"
        assert not embedder.loaded  # nothing waited for it
    finally:
        index.progress.finish()
    doc = (await api.post("/v1/search", {"query": "spaced repetition", "k": 3,
                                         "rerank": False})).json
    assert embedder.loaded and "indexing" not in doc
    assert any(r["why"]["dense_rank"] is not None for r in doc["results"])
