"""Search through the real re-rankers: Cohere v2 over loopback, and a local ONNX cross-encoder."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from sidecar.models.reranker import OnnxCrossEncoder, build_reranker
from sidecar.retrieval.search import passage
from sidecar.settings import make_config

from .conftest import IndexVault, NoteSpec, SearchVault

ServerFactory = Callable[..., Awaitable[TestServer]]
KEY = "loopback-key"
QUERY = "spaced repetition interval"
NOTES = [
    NoteSpec("Engrams/Exact.md", "engram", "Spaced repetition uses a growing interval."),
    NoteSpec("Engrams/Partial.md", "engram", "Repetition alone, massed in one sitting."),
]


def _overlap(query: str, document: str) -> float:
    words = set(query.lower().split())
    return len(words & set(document.lower().replace(".", " ").split())) / len(words)


async def _cohere_v2(request: web.Request) -> web.Response:
    """Cohere's v2 /rerank contract; relevance = share of query words in the document."""
    if request.headers.get("Authorization") != f"Bearer {KEY}":
        return web.json_response({"message": "invalid api token"}, status=401)
    body = await request.json()
    results = [{"index": i, "relevance_score": _overlap(body["query"], doc)}
               for i, doc in enumerate(body["documents"])]
    results.sort(key=lambda r: -r["relevance_score"])
    return web.json_response({"id": "t", "results": results[: body["top_n"]]})


async def _overloaded(request: web.Request) -> web.Response:
    return web.json_response({"message": "overloaded"}, status=503)


async def _serve(aiohttp_server: ServerFactory, handler: Any) -> str:
    app = web.Application()
    app.router.add_post("/v2/rerank", handler)
    server = await aiohttp_server(app)
    return str(server.make_url("/v2/rerank"))


def _reranked(vault: SearchVault, tmp_path: Path, **settings: Any) -> tuple[Any, str]:
    config = make_config(vault.config.vault, **{"reranker_dir": str(tmp_path / "none"), **settings})
    return build_reranker(config)


async def test_cohere_relevance_becomes_the_similarity(
    index_vault: IndexVault, aiohttp_server: ServerFactory, tmp_path: Path
) -> None:
    url = await _serve(aiohttp_server, _cohere_v2)
    vault = index_vault(NOTES)
    reranker, reason = _reranked(vault, tmp_path, cohere_api_key=KEY, cohere_url=url)
    document = await vault.search(QUERY, reranker, reason)
    assert document["rerank"] == "cohere:rerank-v3.5" and "rerank_reason" not in document
    assert [r["path"] for r in document["results"]] == ["Engrams/Exact.md", "Engrams/Partial.md"]
    for result in document["results"]:
        expected = _overlap(QUERY, f"{result['title']}\n{result['text']}")
        assert result["why"]["rerank"] == result["why"]["similarity"] == pytest.approx(expected)


async def test_cohere_failure_falls_back_to_the_local_model_and_says_so(
    index_vault: IndexVault, aiohttp_server: ServerFactory, tmp_path: Path,
    tiny_reranker_dir: Path,
) -> None:
    url = await _serve(aiohttp_server, _overloaded)
    vault = index_vault(NOTES)
    reranker, reason = _reranked(
        vault, tmp_path, cohere_api_key=KEY, cohere_url=url, reranker_dir=str(tiny_reranker_dir)
    )
    document = await vault.search(QUERY, reranker, reason)
    assert document["rerank"].startswith("onnx:")
    assert "cohere:rerank-v3.5 failed" in document["rerank_reason"]
    assert "503" in document["rerank_reason"]
    assert all(0 < r["why"]["rerank"] < 1 for r in document["results"])


async def test_cohere_failure_without_a_local_model_ranks_unreranked(
    index_vault: IndexVault, aiohttp_server: ServerFactory, tmp_path: Path
) -> None:
    url = await _serve(aiohttp_server, _overloaded)
    vault = index_vault(NOTES)
    reranker, reason = _reranked(vault, tmp_path, cohere_api_key=KEY, cohere_url=url)
    document = await vault.search(QUERY, reranker, reason)
    assert document["rerank"] == "none"
    assert "cohere:rerank-v3.5 failed" in document["rerank_reason"]
    assert all(r["why"]["rerank"] is None for r in document["results"])
    assert len(document["results"]) == 2


async def test_local_cross_encoder_probability_is_the_similarity(
    index_vault: IndexVault, tmp_path: Path, tiny_reranker_dir: Path
) -> None:
    vault = index_vault(NOTES)
    reranker, reason = _reranked(vault, tmp_path, reranker_dir=str(tiny_reranker_dir))
    document = await vault.search(QUERY, reranker, reason)
    assert document["rerank"] == OnnxCrossEncoder(tiny_reranker_dir).name
    direct = OnnxCrossEncoder(tiny_reranker_dir)
    ids = [chunk_id for chunk_id, _ in vault.index.bm25_search(QUERY, 10, private=False)]
    chunks = vault.index.get_chunks(ids, private=False)
    for result in document["results"]:
        chunk = next(c for c in chunks.values() if c.path == result["path"])
        (expected,) = direct.score(QUERY, [passage(chunk)])
        assert result["why"]["similarity"] == pytest.approx(expected, abs=1e-5)


async def test_rerank_off_for_one_query_is_reported(
    index_vault: IndexVault, tmp_path: Path, tiny_reranker_dir: Path
) -> None:
    vault = index_vault(NOTES)
    reranker, _ = _reranked(vault, tmp_path, reranker_dir=str(tiny_reranker_dir))
    document = await vault.search(QUERY, reranker, rerank=False)
    assert document["rerank"] == "none"
    assert document["rerank_reason"] == "re-ranking turned off for this query"
