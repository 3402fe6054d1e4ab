"""Private text goes only to endpoints on this machine unless the user trusts their host
(`private_remote_ok`, docs/privacy.md): the Cohere re-ranker, the chat model (answers, summaries,
the contradiction judge), the web search and the embeddings server.

Only loopback is reachable here, so the fakes listen on 127.0.0.1 and the `elsewhere` fixture
makes the classifier count every host as another machine; the traffic itself really goes to
the fakes, and each test asserts what they received (and that they do receive public text, so
the checks can fail).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sidecar.answers import answer
from sidecar.cleaning import Queue, judge_status, scan
from sidecar.cleaning.llm import LlmJudge
from sidecar.errors import BadRequest, ModelUnavailable, OraError
from sidecar.index import Index, open_index
from sidecar.models.choice import load_embedder
from sidecar.models.embedder import Embedder
from sidecar.models.remote_embedder import RemoteEmbedder
from sidecar.models.reranker import build_reranker
from sidecar.privacy import egress
from sidecar.privacy.egress import may_send_private
from sidecar.retrieval.search import SearchOptions, search
from sidecar.settings import make_config
from tests.loopback import LoopbackServer
from tests.web.fake_searxng import FakeSearxng

from ..models.loopback_hub import RunningApp
from ..models.test_remote_embedder import EmbeddingsServer
from .conftest import fake_llm
from .conftest import settings as answer_settings

SECRET = "honey"  # only the private note (Engrams/Kitchen diary.md) holds it
KEY = "test-key"


class FakeCohere(LoopbackServer):
    """Cohere v2 /rerank on loopback: scores by word overlap; `bodies` holds every request."""

    def __init__(self) -> None:
        super().__init__()
        self.bodies: list[dict[str, Any]] = []

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v2/rerank", self._rerank)

    async def _rerank(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.bodies.append(body)
        query = set(body["query"].lower().split())
        results = [{"index": i, "relevance_score": len(query & set(d.lower().split())) / len(query)}
                   for i, d in enumerate(body["documents"])]
        return web.json_response({"results": results})


@pytest.fixture
def elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every endpoint counts as another machine (the fakes still listen on loopback)."""
    monkeypatch.setattr(egress, "is_local_host", lambda host: False)


@pytest.fixture
async def cohere() -> Any:
    server = await FakeCohere().start()
    yield server
    await server.stop()


@pytest.mark.parametrize(("url", "trusted", "allowed"), [
    ("http://127.0.0.1:11434", "", True),
    ("http://127.8.9.10/v1", "", True),
    ("http://localhost:8080/v1", "", True),
    ("http://LocalHost./v1", "", True),
    ("http://[::1]:1234/v1", "", True),
    ("unix:///run/llm.sock", "", True),
    ("http://127.1:11434", "", False),  # not a literal loopback address: not looked up
    ("http://localhost.example.com/v1", "", False),
    ("http://192.168.1.5:11434", "", False),
    ("https://api.cohere.com/v2/rerank", "", False),
    ("https://api.cohere.com/v2/rerank", "api.cohere.com", True),
    ("https://api.cohere.com/v2/rerank", "https://API.cohere.com/", True),
    ("http://gpu-box.lan:8080/v1", " other.lan , gpu-box.lan", True),
    ("http://gpu-box.lan.example.com/v1", "gpu-box.lan", False),
])
def test_only_this_machine_and_trusted_hosts_may_receive_private_text(
    tmp_path: Path, url: str, trusted: str, allowed: bool,
) -> None:
    config = make_config(tmp_path, private_remote_ok=trusted)
    assert may_send_private(config, url) is allowed


@pytest.mark.usefixtures("elsewhere")
async def test_a_private_mode_search_never_sends_to_an_untrusted_cohere(
    tmp_path: Path, indexed: Index, embedder: Embedder, cohere: Any,
) -> None:
    config = answer_settings(tmp_path, cohere_api_key=KEY, cohere_url=f"{cohere.url}/v2/rerank")
    reranker, reason = build_reranker(config)
    public = await search(indexed, embedder, reranker, "sourdough starter",
                          SearchOptions(k=4), reranker_reason=reason)
    assert public["rerank"] == "cohere:rerank-v3.5" and len(cohere.bodies) == 1

    private = await search(indexed, embedder, reranker, "sourdough starter secret",
                           SearchOptions(k=4, private=True), reranker_reason=reason)
    assert len(cohere.bodies) == 1  # nothing of a private-mode search went
    assert private["rerank"] == "none"
    assert "private text is not sent to Cohere at 127.0.0.1" in private["rerank_reason"]
    assert any(SECRET in r["text"] for r in private["results"])

    trusting = answer_settings(tmp_path, cohere_api_key=KEY, private_remote_ok="127.0.0.1",
                               cohere_url=f"{cohere.url}/v2/rerank")
    reranker, reason = build_reranker(trusting)
    opted = await search(indexed, embedder, reranker, "sourdough starter secret",
                         SearchOptions(k=4, private=True), reranker_reason=reason)
    assert opted["rerank"] == "cohere:rerank-v3.5" and SECRET in json.dumps(cohere.bodies)


@pytest.mark.usefixtures("elsewhere")
async def test_a_private_mode_answer_from_an_untrusted_model_is_extractive_and_says_why(
    tmp_path: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    llm.reply = lambda body: "Wild yeast [1]."
    config = answer_settings(tmp_path, llm_url=llm.url)
    public = await answer(config, indexed, embedder, None, "What leavens sourdough bread?",
                          SearchOptions(k=4, rerank=False))
    assert public["generator"] == "llm:test-model" and len(llm.requests) == 1
    assert SECRET not in json.dumps(llm.requests)

    private = await answer(config, indexed, embedder, None, "What is my sourdough secret?",
                           SearchOptions(k=4, rerank=False, private=True))
    assert len(llm.requests) == 1  # the model was not asked
    assert private["generator"] == "none"
    assert private["generator_reason"].startswith(
        "private text is not sent to the language model at 127.0.0.1")
    assert SECRET in private["answer"]  # quoted from the note, on this machine

    trusting = answer_settings(tmp_path, llm_url=llm.url, private_remote_ok="127.0.0.1")
    opted = await answer(trusting, indexed, embedder, None, "What is my sourdough secret?",
                         SearchOptions(k=4, rerank=False, private=True))
    assert opted["generator"] == "llm:test-model" and SECRET in json.dumps(llm.requests)


@pytest.mark.usefixtures("elsewhere")
async def test_through_the_server_private_mode_asks_and_searches_stay_on_this_machine(
    tmp_path: Path, vault: Path, llm: Any, app_client: Any,
) -> None:
    searx = await FakeSearxng().start()
    try:
        config = answer_settings(tmp_path, llm_url=llm.url, searxng_url=searx.url)
        api = await app_client(config)
        await api.reconciled()
        llm.reply = lambda body: "Wild yeast [1]."
        status, doc = await api.call("POST", "/v1/ask", {
            "question": "What is my sourdough starter secret?", "private": True,
            "conversation": "kitchen", "web": True})
        assert status == 200 and doc["generator"] == "none"
        assert "language model at 127.0.0.1" in doc["generator_reason"]
        assert "web search at 127.0.0.1" in doc["web_reason"]
        status, doc = await api.call("POST", "/v1/search", {
            "query": "sourdough starter secret", "private": True, "web": True})
        assert status == 200 and "web search at 127.0.0.1" in doc["web_reason"]
        assert llm.requests == [] and searx.queries == []

        status, doc = await api.call("POST", "/v1/ask", {
            "question": "What leavens sourdough bread?", "conversation": "bread", "web": True})
        assert status == 200 and doc["generator"] == "llm:test-model"
        assert len(llm.requests) == 1 and len(searx.queries) == 1
        assert SECRET not in json.dumps(llm.requests)

        status, state = await api.call("GET", "/v1/status")
        assert status == 200
        rows = {row["service"]: row for row in state["endpoints"]}
        assert rows["llm"]["private"] == "withheld" and not rows["llm"]["receives_private"]
        assert rows["web"]["private"] == "withheld"
        assert rows["hub"]["private"] == "never sent"
    finally:
        await searx.stop()


def test_status_names_loopback_endpoints_as_receiving_private_text(tmp_path: Path) -> None:
    config = make_config(tmp_path, llm_url="http://127.0.0.1:11434/v1", cohere_api_key=KEY,
                         private_remote_ok="api.cohere.com", searxng_url="https://searx.example")
    rows = {row["service"]: row for row in egress.endpoints_report(config)}
    assert rows["llm"]["private"] == "on this machine" and rows["llm"]["on_this_machine"]
    assert rows["rerank"]["private"] == "allowed by private_remote_ok"
    assert rows["web"]["private"] == "withheld" and rows["web"]["host"] == "searx.example"
    assert "embed" not in rows  # not configured: never contacted


@pytest.mark.usefixtures("elsewhere")
def test_an_embeddings_server_elsewhere_is_used_only_when_trusted(tmp_path: Path) -> None:
    """It would receive every chunk of every note, private ones included, and private queries:
    without the user's word it is not used at all, and it receives nothing."""
    server = EmbeddingsServer()
    with RunningApp(server.app()) as url:
        config = make_config(tmp_path / "vault", tmp_path / "data", embed_url=url,
                             embed_model="nomic-embed-text")
        with pytest.raises(ModelUnavailable, match="private_remote_ok"):
            load_embedder(config)
        assert server.bodies == []
        trusted = load_embedder(config.with_values(private_remote_ok="127.0.0.1"))
        assert isinstance(trusted, RemoteEmbedder) and len(server.bodies) == 1


@pytest.mark.usefixtures("elsewhere")
def test_a_chroma_server_elsewhere_is_used_only_when_trusted(
    tmp_path: Path, vault: Path, embedder: Embedder,
) -> None:
    """It would hold every chunk's text, private notes' included: refused before any connection
    (the port below has no server: a connection would fail differently)."""
    config = answer_settings(tmp_path, chroma_url="http://127.0.0.1:9")
    with pytest.raises(BadRequest, match=r"not sent to the Chroma server at 127\.0\.0\.1"):
        open_index(config, writer=True, embedder=embedder)
    with pytest.raises(OraError, match="cannot reach the Chroma server"):
        open_index(config.with_values(private_remote_ok="127.0.0.1"), writer=True,
                   embedder=embedder)


CLAIMS = st.lists(st.tuples(st.from_regex(r"[a-z]{4,10}", fullmatch=True), st.booleans()),
                  min_size=1, max_size=8, unique_by=lambda t: t[0])


@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(claims=CLAIMS)
@pytest.mark.usefixtures("elsewhere")
def test_the_llm_judge_never_sends_a_private_pair_to_an_untrusted_model(
    tmp_path: Path, claims: list[tuple[str, bool]],
) -> None:
    """A property: whatever mix of private and public pairs, the model receives exactly the
    public ones; the private ones are judged by the rules detector, which says why."""

    async def run() -> tuple[list[Any], list[dict[str, Any]]]:
        server = await fake_llm.FakeLLM().start()
        server.reply = lambda body: '{"label": "neutral", "confidence": 0.9}'
        try:
            judge = LlmJudge(make_config(tmp_path, llm_url=server.url, llm_model="m"))
            pairs = [(f"claim {word} one", f"claim {word} two") for word, _ in claims]
            verdicts = await judge.judge(pairs, [private for _, private in claims])
            return verdicts, server.requests
        finally:
            await server.stop()

    verdicts, received = asyncio.run(run())
    sent = json.dumps(received)
    for (word, private), verdict in zip(claims, verdicts, strict=True):
        assert (word in sent) is not private
        if private:
            assert verdict.judge == "rules"
            assert "not sent to the language model" in verdict.detail["judge_error"]
        else:
            assert verdict.judge is None and verdict.cue == "neutral"


@pytest.mark.usefixtures("elsewhere")
async def test_the_contradiction_scan_keeps_private_notes_claims_from_an_untrusted_model(
    tmp_path: Path, embedder: Embedder, llm: Any,
) -> None:
    llm.reply = lambda body: '{"label": "contradiction", "confidence": 0.95}'
    vault = tmp_path / "scan-vault"
    notes = {
        "Engrams/Exercise.md": "Daily exercise improves sleep quality in older people.",
        "Engrams/Exercise doubt.md": "Daily exercise does not improve sleep quality in older "
                                     "people.",
        "Engrams/Exercise diary.md": "Daily exercise never improves sleep quality in older "
                                     "people, says my zqxdiary.",
    }
    for rel, body in notes.items():
        tags = "[private]" if "diary" in rel else "[]"
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(f"---\nnexus: []\ntype: engram\ntags: {tags}\n---\n{body}\n",
                                 encoding="utf-8")
    config = make_config(vault, tmp_path / "scan-data", llm_url=llm.url, llm_model="m")
    queue = Queue(config.data)
    try:
        report = await scan(config, queue, embedder, LlmJudge(config))
    finally:
        queue.close()
    sent = json.dumps(llm.requests)
    assert "does not improve" in sent  # the public pair went to the model
    assert "zqxdiary" not in sent and "never improves" not in sent
    assert report.fallbacks >= 1
    (llm_row,) = [row for row in judge_status(config) if row["name"] == "llm"]
    assert "private note's claim go to the rules detector" in llm_row["reason"]
