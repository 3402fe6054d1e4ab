"""The LLM judge against a loopback server speaking /v1/chat/completions; judge selection."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from sidecar.cleaning.judges import build_judge, judge_status
from sidecar.cleaning.llm import LlmJudge, parse_answer
from sidecar.cleaning.rules import RulesJudge
from sidecar.cleaning.scan import scan
from sidecar.cleaning.store import Queue
from sidecar.cleaning.verdict import Verdict
from sidecar.models.embedder import Embedder
from sidecar.settings import Config, make_config

ServerFactory = Callable[..., Awaitable[TestServer]]
KEY = "secret"
SEEN = web.AppKey("seen", list[tuple[str, str]])


def _answer(content: str) -> dict[str, Any]:
    return {"id": "c1", "object": "chat.completion", "model": "test-model",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}]}


async def _chat(request: web.Request) -> web.Response:
    """An OpenAI-style chat endpoint: 'contradiction' when exactly one claim says 'not'."""
    if request.headers.get("Authorization") != f"Bearer {KEY}":
        return web.json_response({"error": {"message": "bad key"}}, status=401)
    body = await request.json()
    assert body["model"] == "test-model" and body["temperature"] == 0
    system, user = body["messages"]
    assert system["role"] == "system" and "JSON" in system["content"]
    a, b = (line.split(": ", 1)[1] for line in user["content"].splitlines())
    request.app[SEEN].append((a, b))
    if ("not" in a.split()) != ("not" in b.split()):
        verdict = {"label": "contradiction", "confidence": 0.9}
    elif "maybe" in a:
        verdict = {"label": "contradiction", "confidence": 0.5}
    else:
        verdict = {"label": "entailment", "confidence": 0.8}
    return web.json_response(_answer("Sure:\n```json\n" + json.dumps(verdict) + "\n```"))


async def _serve(factory: ServerFactory, handler: Callable[..., Awaitable[web.Response]]
                 ) -> tuple[str, web.Application]:
    app = web.Application()
    app[SEEN] = []
    app.router.add_post("/v1/chat/completions", handler)
    server = await factory(app)
    return str(server.make_url("")).rstrip("/"), app


def _config(tmp_path: Path, **values: Any) -> Config:
    return make_config(tmp_path, tmp_path / "data", models_dir=str(tmp_path / "models"), **values)


async def test_llm_judge_reads_the_label_and_confidence(aiohttp_server: ServerFactory,
                                                        tmp_path: Path) -> None:
    url, app = await _serve(aiohttp_server, _chat)
    judge = LlmJudge(_config(tmp_path, llm_url=url, llm_model="test-model", llm_api_key=KEY))
    verdicts = await judge.judge([
        ("Coffee helps focus.", "Coffee does not help focus."),
        ("maybe coffee helps focus.", "Coffee helps focus a bit."),
        ("Coffee helps focus.", "Coffee aids focus."),
    ])
    assert [(v.contradiction, v.score, v.cue) for v in verdicts] == [
        (True, 0.9, "contradiction"), (False, 0.5, "contradiction"), (False, 0.0, "entailment")]
    assert judge.name == "llm:test-model"
    assert len(app[SEEN]) == 3


def _fell_back(verdict: Verdict, reason: str) -> bool:
    return (verdict.judge == "rules" and verdict.detail["fallback"] == "rules"
            and reason in verdict.detail["judge_error"])


async def test_a_failing_endpoint_hands_the_pair_to_the_rules_judge(
    aiohttp_server: ServerFactory, tmp_path: Path
) -> None:
    url, _ = await _serve(aiohttp_server, _chat)
    judge = LlmJudge(_config(tmp_path, llm_url=url, llm_model="test-model", llm_api_key="wrong"))
    pair = ("Coffee helps focus.", "Coffee does not help focus.")
    (verdict,) = await judge.judge([pair])
    (rules,) = await RulesJudge().judge([pair])
    assert _fell_back(verdict, "HTTP 401")
    assert (verdict.contradiction, verdict.score, verdict.cue) == (
        rules.contradiction, rules.score, rules.cue)


async def test_an_answer_that_is_not_the_asked_json_hands_the_pair_to_the_rules_judge(
    aiohttp_server: ServerFactory, tmp_path: Path
) -> None:
    async def chatty(request: web.Request) -> web.Response:
        return web.json_response(_answer("They seem to disagree, I think."))

    url, _ = await _serve(aiohttp_server, chatty)
    judge = LlmJudge(_config(tmp_path, llm_url=url + "/v1", llm_model="test-model"))
    (verdict,) = await judge.judge([("a b c", "a b c")])
    assert _fell_back(verdict, "unusable answer")


async def test_an_unreachable_endpoint_is_given_up_after_a_few_failures(tmp_path: Path) -> None:
    judge = LlmJudge(_config(tmp_path, llm_url="http://127.0.0.1:9", llm_model="m"))
    verdicts = await judge.judge([("a b c", "a b c")] * 10)
    assert all(_fell_back(v, "unreachable") for v in verdicts)
    assert sum("times in this scan" in v.detail["judge_error"] for v in verdicts) >= 5


async def _hang(request: web.Request) -> web.Response:
    await asyncio.sleep(60)
    return web.json_response(_answer("{}"))


async def _error_500(request: web.Request) -> web.Response:
    return web.Response(status=500, text="upstream exploded")


async def _garbage(request: web.Request) -> web.Response:
    return web.Response(status=200, text="<html>not json at all", content_type="text/html")


@pytest.mark.parametrize(("handler", "reason"), [
    (_error_500, "HTTP 500"), (_garbage, "garbled"), (_hang, "did not answer within"),
], ids=["500", "garbage", "hanging"])
async def test_a_scan_with_a_failing_llm_still_queues_the_rules_judges_pairs(
    aiohttp_server: ServerFactory, tmp_path: Path, vault: Path, embedder: Embedder,
    handler: Callable[..., Awaitable[web.Response]], reason: str,
) -> None:
    url, _ = await _serve(aiohttp_server, handler)
    config = make_config(vault, tmp_path / "data", llm_url=url, llm_model="test-model")
    rules_queue = Queue(tmp_path / "rules")
    await scan(config, rules_queue, embedder, RulesJudge())
    expected = {p.id for p in rules_queue.pairs("open", kind="engram")}
    rules_queue.close()
    assert expected, "the vault should hold a contradiction the rules find"

    queue = Queue(config.data)
    report = await scan(config, queue, embedder, LlmJudge(config, timeout=0.5))
    found = queue.pairs("open", kind="engram")
    queue.close()
    assert report.judge == "llm:test-model" and report.fallbacks == report.claim_pairs > 0
    assert {p.id for p in found} == expected
    for pair in found:
        assert pair.judge == "rules"
        assert pair.evidence["fallback"] == "rules" and reason in pair.evidence["judge_error"]


@pytest.mark.parametrize(("content", "parsed"), [
    ('{"label": "Contradiction", "confidence": 1.4}', ("contradiction", 1.0)),
    ('{"label": "neutral"}', ("neutral", 1.0)),
])
def test_parse_answer(content: str, parsed: tuple[str, float]) -> None:
    assert parse_answer(content) == parsed


def test_rules_judge_is_selected_when_nothing_else_is_configured(tmp_path: Path) -> None:
    status = judge_status(_config(tmp_path))
    assert [(s["name"], s["available"], s["selected"]) for s in status] == [
        ("llm", False, False), ("nli", False, False), ("rules", True, True)]
    assert "ORA_LLM_URL" in status[0]["reason"]
    assert isinstance(build_judge(_config(tmp_path)), RulesJudge)


def test_llm_judge_is_selected_when_llm_url_is_set(tmp_path: Path) -> None:
    config = _config(tmp_path, llm_url="http://127.0.0.1:9", llm_model="m")
    assert [s["name"] for s in judge_status(config) if s["selected"]] == ["llm"]
    assert build_judge(config).name == "llm:m"
    assert build_judge(config, "rules").name == "rules"


async def test_scan_with_the_llm_judge_queues_its_findings(
    aiohttp_server: ServerFactory, tmp_path: Path, vault: Path, embedder: Embedder
) -> None:
    url, app = await _serve(aiohttp_server, _chat)
    config = make_config(vault, tmp_path / "data", llm_url=url, llm_model="test-model",
                         llm_api_key=KEY)
    queue = Queue(config.data)
    report = await scan(config, queue, embedder, build_judge(config))
    assert report.judge == "llm:test-model" and report.claim_pairs == len(app[SEEN])
    assert [p.judge for p in queue.pairs("open", kind="engram")] == ["llm:test-model"]
    queue.close()


async def test_a_scan_leaves_the_event_loop_free_while_the_rules_judge(
    config: Config, queue: Queue, embedder: Embedder
) -> None:
    """A server's search keeps answering during a background scan: the judge does not run on
    the event loop."""
    judging, ticks = asyncio.Event(), [0]

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "judge":
            judging.set() if done == 0 else judging.clear()

    async def ticker() -> None:
        while True:
            if judging.is_set():
                ticks[0] += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    report = await scan(config, queue, embedder, RulesJudge(), progress)
    task.cancel()
    assert report.claim_pairs > 0 and report.found > 0
    assert ticks[0] > 0
