from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from sidecar.errors import ModelUnavailable, RerankerFailed
from sidecar.models.reranker import (
    CohereReranker,
    FallbackReranker,
    OnnxCrossEncoder,
    build_reranker,
    rerank_explained,
)
from sidecar.settings import make_config

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
ServerFactory = Callable[..., Awaitable[TestServer]]
KEY = "test-key"


async def _cohere_like(request: web.Request) -> web.Response:
    """Cohere v2 /rerank: scores by word overlap, results sorted best first (as Cohere does)."""
    if request.headers.get("Authorization") != f"Bearer {KEY}":
        return web.json_response({"message": "invalid api token"}, status=401)
    body = await request.json()
    assert body["model"] == "rerank-v3.5" and body["top_n"] == len(body["documents"])
    query = set(body["query"].lower().split())
    results = [
        {"index": i, "relevance_score": len(query & set(doc.lower().split())) / len(query)}
        for i, doc in enumerate(body["documents"])
    ]
    results.sort(key=lambda r: -r["relevance_score"])
    return web.json_response({"id": "x", "results": results, "meta": {"api_version": {}}})


async def _serve(aiohttp_server: ServerFactory, handler: Handler) -> str:
    app = web.Application()
    app.router.add_post("/v2/rerank", handler)
    server = await aiohttp_server(app)
    return str(server.make_url("/v2/rerank"))


def _cohere(url: str, timeout: float = 5.0, key: str = KEY) -> CohereReranker:
    return CohereReranker(key, url, "rerank-v3.5", timeout)


async def test_cohere_scores_come_back_in_passage_order(aiohttp_server: ServerFactory) -> None:
    url = await _serve(aiohttp_server, _cohere_like)
    scores = await _cohere(url).rerank("spaced repetition", ["cats", "spaced repetition", "spaced"])
    assert scores == [0.0, 1.0, 0.5]


@pytest.mark.parametrize("status", [401, 429, 500])
async def test_cohere_http_errors_raise_reranker_failed(
    aiohttp_server: ServerFactory, status: int
) -> None:
    async def failing(request: web.Request) -> web.Response:
        return web.json_response({"message": "nope"}, status=status)

    url = await _serve(aiohttp_server, failing)
    with pytest.raises(RerankerFailed, match=f"HTTP {status}"):
        await _cohere(url).rerank("q", ["a"])


async def test_cohere_wrong_key_is_refused(aiohttp_server: ServerFactory) -> None:
    url = await _serve(aiohttp_server, _cohere_like)
    with pytest.raises(RerankerFailed, match="HTTP 401"):
        await _cohere(url, key="wrong").rerank("q", ["a"])


async def test_cohere_timeout_raises_reranker_failed(aiohttp_server: ServerFactory) -> None:
    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(2.0)
        return await _cohere_like(request)

    url = await _serve(aiohttp_server, slow)
    with pytest.raises(RerankerFailed, match="timed out"):
        await _cohere(url, timeout=0.2).rerank("q", ["a"])


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        json.dumps({"results": [{"index": 0}]}),
        json.dumps({"results": [{"index": 5, "relevance_score": 0.3}]}),
        json.dumps({"results": []}),
        json.dumps(["a list"]),
    ],
)
async def test_cohere_malformed_body_raises_reranker_failed(
    aiohttp_server: ServerFactory, body: str
) -> None:
    async def malformed(request: web.Request) -> web.Response:
        return web.Response(text=body, content_type="application/json")

    url = await _serve(aiohttp_server, malformed)
    with pytest.raises(RerankerFailed):
        await _cohere(url).rerank("q", ["a"])


async def test_cohere_unreachable_raises_reranker_failed() -> None:
    with pytest.raises(RerankerFailed, match="request failed"):
        await _cohere("http://127.0.0.1:9/v2/rerank").rerank("q", ["a"])


async def test_no_passages_means_no_request() -> None:
    assert await _cohere("http://127.0.0.1:9/v2/rerank").rerank("q", []) == []


async def test_local_cross_encoder_gives_probabilities_independent_of_batch(
    tiny_reranker_dir: Path,
) -> None:
    model = OnnxCrossEncoder(tiny_reranker_dir)
    passages = ["short", "a much longer passage about memory and sleep " * 5, "medium length one"]
    together = await model.rerank("memory", passages)
    assert len(together) == 3 and all(0.0 < s < 1.0 for s in together)
    alone = [model.score("memory", [p])[0] for p in passages]
    assert together == pytest.approx(alone, abs=1e-5)
    assert model.score("memory", []) == []


def test_local_cross_encoder_applies_sigmoid_to_the_logit(
    tmp_path: Path, write_tiny: Callable[..., Path]
) -> None:
    one = ("LABEL_0",)
    high = OnnxCrossEncoder(write_tiny(tmp_path / "hi", labels=one, classifier_bias=(8.0,)))
    low = OnnxCrossEncoder(write_tiny(tmp_path / "lo", labels=one, classifier_bias=(-8.0,)))
    assert high.score("q", ["p"])[0] > 0.99
    assert low.score("q", ["p"])[0] < 0.01


def test_three_label_model_is_not_a_reranker(tiny_nli_dir: Path) -> None:
    with pytest.raises(ModelUnavailable, match="one logit"):
        OnnxCrossEncoder(tiny_nli_dir)


async def test_cohere_failure_falls_back_to_local_and_says_so(
    aiohttp_server: ServerFactory, tiny_reranker_dir: Path
) -> None:
    async def overloaded(request: web.Request) -> web.Response:
        return web.json_response({"message": "too many requests"}, status=429)

    url = await _serve(aiohttp_server, overloaded)
    local = OnnxCrossEncoder(tiny_reranker_dir)
    chain = FallbackReranker([_cohere(url), local])
    outcome = await rerank_explained(chain, "q", ["a", "b"])
    assert outcome.used == local.name
    assert outcome.scores == pytest.approx(local.score("q", ["a", "b"]))
    assert "cohere:rerank-v3.5 failed" in outcome.note and "429" in outcome.note
    assert await chain.rerank("q", ["a", "b"]) == outcome.scores


async def test_cohere_failure_without_local_means_no_reranking(
    aiohttp_server: ServerFactory,
) -> None:
    async def broken(request: web.Request) -> web.Response:
        return web.Response(status=500)

    url = await _serve(aiohttp_server, broken)
    outcome = await rerank_explained(_cohere(url), "q", ["a"])
    assert outcome.scores is None and outcome.used is None and "HTTP 500" in outcome.note
    with pytest.raises(RerankerFailed):
        await FallbackReranker([_cohere(url)]).rerank("q", ["a"])


async def test_no_reranker_is_reported_not_raised() -> None:
    outcome = await rerank_explained(None, "q", ["a"])
    assert outcome == outcome.__class__(None, None, "no re-ranker configured")


def _config(tmp_path: Path, **values: Any) -> Any:
    return make_config(tmp_path, models_dir=str(tmp_path / "models"), **values)


def test_build_reranker_without_key_or_model_says_why(tmp_path: Path) -> None:
    reranker, reason = build_reranker(_config(tmp_path))
    assert reranker is None
    assert str(tmp_path / "models" / "reranker") in reason and "model.onnx" in reason


def test_build_reranker_uses_local_model_from_reranker_dir(
    tmp_path: Path, tiny_reranker_dir: Path
) -> None:
    reranker, reason = build_reranker(_config(tmp_path, reranker_dir=str(tiny_reranker_dir)))
    assert isinstance(reranker, OnnxCrossEncoder) and "local cross-encoder" in reason


def test_build_reranker_with_key_chains_cohere_then_local(
    tmp_path: Path, tiny_reranker_dir: Path
) -> None:
    config = _config(tmp_path, cohere_api_key=KEY, reranker_dir=str(tiny_reranker_dir))
    reranker, reason = build_reranker(config)
    assert isinstance(reranker, FallbackReranker)
    assert [type(r) for r in reranker.chain] == [CohereReranker, OnnxCrossEncoder]
    assert reason.startswith("Cohere rerank-v3.5")


def test_build_reranker_with_key_only_is_cohere(tmp_path: Path) -> None:
    reranker, _ = build_reranker(_config(tmp_path, cohere_api_key=KEY))
    assert isinstance(reranker, CohereReranker)


def test_an_idle_local_reranker_releases_its_model_and_scores_the_same_after(
    tiny_reranker_dir: Path,
) -> None:
    model, fresh = OnnxCrossEncoder(tiny_reranker_dir), OnnxCrossEncoder(tiny_reranker_dir)
    chain = FallbackReranker([CohereReranker("key", "http://127.0.0.1:9/", "m", 1.0), model])
    passages = ["tides follow the moon", "a kettle descaled with vinegar"]
    model.score("moon", passages)
    assert not chain.release(60.0)  # just used
    assert chain.release(0.0)  # the local model in the chain; Cohere holds nothing
    assert not model._model.session.loaded
    assert model.score("tides", passages) == fresh.score("tides", passages)
    assert model._model.session.opens == 2
