"""`ai-derived` in contradiction reasoning: every pair says which side came from the AI side,
the suggested resolution keeps the user's own note, and the LLM judge's prompt is told."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from sidecar.cleaning.llm import LlmJudge, get_prompt
from sidecar.cleaning.provenance import provenance, suggestion
from sidecar.cleaning.resolve import resolve
from sidecar.cleaning.scan import ScanReport, scan
from sidecar.cleaning.store import Queue
from sidecar.cli import main
from sidecar.models.embedder import Embedder
from sidecar.settings import Config, make_config

OLD, NEW = "Engrams/Vitamin C and colds.md", "Engrams/Vitamin C revisited.md"
Scan = Callable[[], ScanReport]


def _evidence(ai: list[bool], dates: list[str | None]) -> dict[str, Any]:
    return {"cue": "negation", "ai_derived": ai, "dates": dates}


@pytest.mark.parametrize(("ai", "dates", "expected"), [
    # the user's own note is newer: they changed their mind, theirs supersedes
    ([True, False], ["2021-01-01", "2024-05-06"], {"action": "changed-mind", "newer": "b.md"}),
    ([False, True], ["2024-05-06T10:00", "2021-01-01"], {"action": "changed-mind",
                                                          "newer": "a.md"}),
    # the AI-derived note is newer, as old, or undated: it is the wrong one (archived)
    ([False, True], ["2021-01-01", "2024-05-06"], {"action": "wrong", "note": "b.md"}),
    ([True, False], ["2024-05-06", "2024-05-06"], {"action": "wrong", "note": "a.md"}),
    ([True, False], [None, "2024-05-06"], {"action": "wrong", "note": "a.md"}),
])
def test_the_suggestion_keeps_the_users_own_note(
    ai: list[bool], dates: list[str | None], expected: dict[str, str]
) -> None:
    found = suggestion("engram", "a.md", "b.md", _evidence(ai, dates))
    assert found is not None and found.pop("reason")
    assert found == expected


@pytest.mark.parametrize(("kind", "ai"), [
    ("engram", [True, True]), ("engram", [False, False]), ("news", [True, False])])
def test_no_suggestion_unless_exactly_one_side_is_ai_derived(kind: str, ai: list[bool]) -> None:
    assert suggestion(kind, "a.md", "b.md", _evidence(ai, ["2021-01-01", "2024-01-01"])) is None


def test_a_pair_from_before_provenance_shows_none() -> None:
    """A queue file written before these fields keeps its shape: no column changed, and a
    pair whose evidence lacks `ai_derived` simply has no provenance."""
    assert provenance({"cue": "negation"}) is None
    assert provenance({"ai_derived": [True, False]}) == {"a": "ai-derived", "b": "user"}
    assert suggestion("engram", "a", "b", {"cue": "negation"}) is None


def test_a_scanned_pair_says_who_wrote_each_side_and_what_to_do(
    run_scan: Scan, queue: Queue, config: Config
) -> None:
    run_scan()
    (pair,) = queue.pairs("open", kind="engram")
    doc = pair.as_json()
    assert doc["provenance"] == {"a": "user", "b": "ai-derived"}
    # the AI-derived note (2024) is newer than the user's (2021): it is suggested as wrong
    assert doc["suggested"]["action"] == "wrong" and doc["suggested"]["note"] == NEW
    assert "B came from the AI side" in doc["suggested"]["reason"]
    # the suggestion is a resolution request as it stands
    asked = {k: v for k, v in doc["suggested"].items() if k != "reason"}
    done = resolve(config, queue, pair.id, asked.pop("action"), **asked)
    assert done.changed == [NEW] and "archived" in (config.vault / NEW).read_text()
    assert "archived" not in (config.vault / OLD).read_text()
    news = queue.pairs("open", kind="news")
    assert news and all("suggested" not in p.as_json() for p in news)


def test_an_inline_ai_derived_tag_counts(
    vault: Path, run_scan: Scan, queue: Queue
) -> None:
    """The tag is read as Obsidian reads tags: `#ai-derived` in the body marks the note too.
    Here the user's note becomes the AI-derived one and the other loses the tag, and the
    user's note is now the newer: changed-mind, keeping it."""
    old, new = vault / OLD, vault / NEW
    old.write_text(old.read_text() + "\nFrom a chat. #ai-derived\n")
    new.write_text(new.read_text().replace("tags: [health, ai-derived]", "tags: [health]"))
    run_scan()
    (pair,) = queue.pairs("open", kind="engram")
    doc = pair.as_json()
    assert doc["provenance"] == {"a": "ai-derived", "b": "user"}
    assert {k: doc["suggested"][k] for k in ("action", "newer")} == {
        "action": "changed-mind", "newer": NEW}


def test_the_cli_lists_provenance_and_the_suggestion(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path / "data")
    assert main(["contradictions", str(vault), "--data", data, "--scan", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (pair,) = [p for p in doc["pairs"] if p["kind"] == "engram"]
    assert pair["provenance"] == {"a": "user", "b": "ai-derived"}
    assert main(["contradictions", str(vault), "--data", data]) == 0
    out = capsys.readouterr().out
    assert f"b (ai-derived): {NEW}" in out and f"a (user): {OLD}" in out
    assert "suggested: wrong" in out


ServerFactory = Callable[..., Awaitable[TestServer]]
ASKED = web.AppKey("asked", list[str])


async def _contradicts(request: web.Request) -> web.Response:
    """A chat endpoint that records the user message and calls every pair a contradiction."""
    body = await request.json()
    request.app[ASKED].append(body["messages"][1]["content"])
    content = json.dumps({"label": "contradiction", "confidence": 0.95})
    return web.json_response({"id": "c", "object": "chat.completion", "model": "m", "choices": [
        {"index": 0, "finish_reason": "stop",
         "message": {"role": "assistant", "content": content}}]})


async def test_the_llm_judge_is_told_which_claim_is_ai_derived(
    aiohttp_server: ServerFactory, tmp_path: Path
) -> None:
    app = web.Application()
    app[ASKED] = []
    app.router.add_post("/v1/chat/completions", _contradicts)
    url = str((await aiohttp_server(app)).make_url("")).rstrip("/")
    judge = LlmJudge(make_config(tmp_path, tmp_path / "data", llm_url=url, llm_model="m"))
    pairs = [("Coffee helps focus.", "Coffee does not help focus.")] * 3
    verdicts = await judge.judge(pairs, origins=[(False, True), (False, False), (True, True)])
    origins = get_prompt().origins
    mixed, plain, both = app[ASKED]
    assert mixed == (f"Claim A{origins['user']}: Coffee helps focus.\n"
                     f"Claim B{origins['ai-derived']}: Coffee does not help focus.")
    assert plain == "Claim A: Coffee helps focus.\nClaim B: Coffee does not help focus."
    assert both.count(origins["ai-derived"]) == 2
    assert [v.detail.get("told_provenance", False) for v in verdicts] == [True, False, True]
    assert "ai-derived" in get_prompt().system


async def test_a_scan_with_the_llm_judge_passes_the_provenance_on(
    aiohttp_server: ServerFactory, vault: Path, tmp_path: Path, embedder: Embedder
) -> None:
    app = web.Application()
    app[ASKED] = []
    app.router.add_post("/v1/chat/completions", _contradicts)
    url = str((await aiohttp_server(app)).make_url("")).rstrip("/")
    config = make_config(vault, tmp_path / "llm-data", llm_url=url, llm_model="m")
    queue = Queue(config.data)
    try:
        await scan(config, queue, embedder, LlmJudge(config))
        # This judge calls every claim pair a contradiction: the notes' titles are one too.
        (pair,) = [p for p in queue.pairs("open", kind="engram")
                   if p.b.path == NEW and "trials" in p.b.text]
    finally:
        queue.close()
    assert pair.judge == "llm:m" and pair.evidence["told_provenance"] is True
    told = [m for m in app[ASKED] if "vitamin C" in m]
    assert told and all(get_prompt().origins["ai-derived"] in m for m in told)
