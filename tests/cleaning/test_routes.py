"""The cleaning and web routes through the app `ora serve` runs; answers checked against the
OpenAPI document by the server suite's contract checker (`app_client`, tests/conftest.py)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from sidecar.cleaning.decisions import decision_notes
from sidecar.settings import Config, make_config

from ..conftest import AppClient
from ..full_disk import fill_disk

OLD, NEW = "Engrams/Vitamin C and colds.md", "Engrams/Vitamin C revisited.md"


@pytest.fixture
def server_config(vault: Path, tmp_path: Path) -> Config:
    models = tmp_path / "models"
    return make_config(vault, tmp_path / "data", embed_model="int8", models_dir=str(models),
                       cohere_api_key="", reranker_dir=str(models / "none"),
                       scan_delay=-1.0)  # these tests scan when they choose


@pytest.fixture
async def api(
    server_config: Config, app_client: Callable[[Config], Awaitable[AppClient]]
) -> AppClient:
    return await app_client(server_config)


async def test_scan_then_resolve_over_http(api: AppClient, vault: Path) -> None:
    status, doc = await api.call("GET", "/v1/contradictions")
    assert (status, doc) == (200, {"pairs": []})
    status, doc = await api.call("POST", "/v1/contradictions/scan", {})
    assert status == 200
    (pair,) = [p for p in doc["pairs"] if p["kind"] == "engram"]
    status, state = await api.call("GET", "/v1/status")
    assert state["contradictions_open"] == 3
    status, done = await api.call("POST", f"/v1/contradictions/{pair['id']}/resolve",
                                  {"action": "changed-mind", "newer": NEW})
    assert status == 200 and sorted(done["changed"]) == [OLD, NEW]
    assert done["pair"]["status"] == "resolved"
    assert "archived" in (vault / OLD).read_text()
    status, state = await api.call("GET", "/v1/status")
    assert state["contradictions_open"] == 2
    status, doc = await api.call("GET", "/v1/contradictions?status=resolved")
    assert [p["id"] for p in doc["pairs"]] == [pair["id"]]


async def test_resolution_conflict_and_unknown_pair_are_errors(api: AppClient, vault: Path) -> None:
    _, doc = await api.call("POST", "/v1/contradictions/scan", {})
    (pair,) = [p for p in doc["pairs"] if p["kind"] == "engram"]
    (vault / OLD).write_text((vault / OLD).read_text() + "An edit.\n")
    status, err = await api.call("POST", f"/v1/contradictions/{pair['id']}/resolve",
                                 {"action": "wrong", "note": OLD})
    assert status == 409 and err["error"]["code"] == "conflict"
    status, err = await api.call("POST", "/v1/contradictions/nope/resolve", {"action": "flag"})
    assert status == 404
    status, err = await api.call("POST", f"/v1/contradictions/{pair['id']}/resolve",
                                 {"action": "changed-mind"})
    assert status == 400


async def test_news_batch_is_approved_over_http(api: AppClient, vault: Path) -> None:
    _, doc = await api.call("POST", "/v1/contradictions/scan", {})
    batch = next(p["batch"] for p in doc["pairs"] if p["kind"] == "news")
    status, done = await api.call("POST", f"/v1/contradictions/batches/{batch}/approve", {})
    assert status == 200 and [p["b"]["path"] for p in done["pairs"]] == [
        "Resources/Rates May.md", "Resources/Rates June.md"]
    status, _ = await api.call("POST", f"/v1/contradictions/batches/{batch}/approve", {})
    assert status == 404


async def test_web_classify_over_http(api: AppClient, vault: Path) -> None:
    (vault / "Registry — Trusted Web Sources.md").write_text(
        "---\ntype: reference\nwhitelist: [nature.com]\n---\n", encoding="utf-8")
    status, doc = await api.call("POST", "/v1/web/classify", {"results": [
        {"url": "https://www.nature.com/a", "title": "A", "text": "Bees can count."}]})
    assert status == 200
    assert [(r["tier"], r["weight"], r["domain"]) for r in doc["results"]] == [
        ("whitelisted", 0.8, "nature.com")]
    status, _ = await api.call("POST", "/v1/web/classify", {"results": [{"url": "x"}]})
    assert status == 400


async def test_a_flagged_private_pair_stays_hidden_when_the_private_notes_yaml_breaks(
    api: AppClient, vault: Path
) -> None:
    """Issue 10 item 4: privacy fails closed. A note whose frontmatter no longer parses counts
    as private until it parses again, so its flagged pair is not listed outside private mode."""
    path = vault / NEW
    path.write_text(path.read_text().replace("tags: [", "tags: [private, "))
    await api.call("POST", "/v1/contradictions/scan", {"private": True})
    _, doc = await api.call("GET", "/v1/contradictions?private=true")
    (pair,) = [p for p in doc["pairs"] if p["kind"] == "engram"]
    status, _ = await api.call("POST", f"/v1/contradictions/{pair['id']}/resolve",
                               {"action": "flag", "private": True})
    assert status == 200
    path.write_text(path.read_text().replace("tags: [", "tags: {a: ["))  # unclosed flow map
    await api.call("POST", "/v1/contradictions/scan", {})
    _, doc = await api.call("GET", "/v1/contradictions?status=flagged")
    assert doc["pairs"] == []
    _, doc = await api.call("GET", "/v1/contradictions?status=flagged&private=true")
    assert [p["id"] for p in doc["pairs"]] == [pair["id"]]
    path.write_text(path.read_text().replace("tags: {a: [private, ", "tags: ["))  # public now
    await api.call("POST", "/v1/contradictions/scan", {})
    _, doc = await api.call("GET", "/v1/contradictions?status=flagged")
    assert [p["id"] for p in doc["pairs"]] == [pair["id"]]


async def test_a_failing_llm_judge_is_reported_in_status_until_it_answers_again(
    vault: Path, tmp_path: Path, aiohttp_server: Any,
    app_client: Callable[[Config], Awaitable[AppClient]],
) -> None:
    async def broken(request: web.Request) -> web.Response:
        return web.Response(status=500, text="upstream exploded")

    llm = web.Application()
    llm.router.add_post("/v1/chat/completions", broken)
    url = str((await aiohttp_server(llm)).make_url("")).rstrip("/")
    models = tmp_path / "models"
    api = await app_client(make_config(vault, tmp_path / "data", embed_model="int8",
                                       models_dir=str(models), cohere_api_key="",
                                       reranker_dir=str(models / "none"), scan_delay=-1.0,
                                       llm_url=url, llm_model="m"))
    _, doc = await api.call("POST", "/v1/contradictions/scan", {})
    (pair,) = [p for p in doc["pairs"] if p["kind"] == "engram"]
    assert pair["judge"] == "rules" and "HTTP 500" in pair["evidence"]["judge_error"]
    _, state = await api.call("GET", "/v1/status")
    assert state["cleaning"]["fallbacks"] > 0
    assert "the rules judge decided them" in state["last_error"]
    await api.call("POST", "/v1/contradictions/scan", {})  # nothing changed: nothing to judge
    _, state = await api.call("GET", "/v1/status")
    assert state["cleaning"]["fallbacks"] == 0 and state["last_error"] is None


async def test_a_note_tagged_private_leaves_public_triage_before_the_next_scan(
    api: AppClient, vault: Path
) -> None:
    """A note tagged `private` after the scan paired it: its pairs leave every non-private
    answer at once (list, resolve, undo), not only once a scan re-flags them (background scans
    are off here, as with a negative `scan_delay`)."""
    _, doc = await api.call("POST", "/v1/contradictions/scan", {})
    (pair,) = [p for p in doc["pairs"] if p["kind"] == "engram"]
    status, _ = await api.call("POST", f"/v1/contradictions/{pair['id']}/resolve",
                               {"action": "dismiss"})
    assert status == 200
    path = vault / NEW
    path.write_text(path.read_text().replace("tags: [", "tags: [private, "))
    await api.call("POST", "/v1/events", {"events": [{"kind": "modified", "path": NEW}]})
    for query in ("", "?status=all", "?status=dismissed"):
        _, doc = await api.call("GET", f"/v1/contradictions{query}")
        assert NEW not in json.dumps(doc), query
    status, err = await api.call("POST", "/v1/contradictions/undo", {})
    assert status == 404 and NEW not in json.dumps(err)
    status, err = await api.call("POST", f"/v1/contradictions/{pair['id']}/resolve",
                                 {"action": "flag"})
    assert status == 404
    _, doc = await api.call("GET", "/v1/contradictions?status=all&private=true")
    assert [p["private"] for p in doc["pairs"] if p["id"] == pair["id"]] == [True]
    status, done = await api.call("POST", "/v1/contradictions/undo", {"private": True})
    assert status == 200 and done["pairs"][0]["id"] == pair["id"]
    # Its decision goes to the private decisions note: the public one never names the note.
    status, done = await api.call("POST", f"/v1/contradictions/{pair['id']}/resolve",
                                  {"action": "flag", "private": True})
    assert status == 200 and done["pair"]["private"]
    public, private = (vault / n for n in decision_notes())
    assert NEW not in public.read_text() and pair["id"] in private.read_text()


async def test_a_decision_the_vault_cannot_record_fails_and_leaves_the_notes_as_they_were(
    api: AppClient, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The decisions note is the queue's truth after `.ora/` is deleted. With the disk full
    where it lives, the resolution answered 200: both notes were edited and the decision was
    recorded nowhere but the cache. Now: 507, nothing edited, the pair still open."""
    _, doc = await api.call("POST", "/v1/contradictions/scan", {})
    (pair,) = [p for p in doc["pairs"] if p["kind"] == "engram"]
    before = {rel: (vault / rel).read_bytes() for rel in (OLD, NEW)}
    fill_disk(monkeypatch, vault / Path(decision_notes()[0]).parent)
    status, err = await api.call("POST", f"/v1/contradictions/{pair['id']}/resolve",
                                 {"action": "changed-mind", "newer": NEW})
    assert status == 507 and err["error"]["code"] == "storage_unavailable"
    assert {rel: (vault / rel).read_bytes() for rel in (OLD, NEW)} == before
    status, doc = await api.call("GET", "/v1/contradictions?status=open")
    assert pair["id"] in [p["id"] for p in doc["pairs"]]
    status, _ = await api.call("POST", "/v1/contradictions/undo", {})
    assert status == 404  # nothing was done, so nothing to undo
    monkeypatch.undo()  # room again: the same decision now goes through, and is recorded
    status, done = await api.call("POST", f"/v1/contradictions/{pair['id']}/resolve",
                                  {"action": "changed-mind", "newer": NEW})
    assert status == 200 and done["pair"]["status"] == "resolved"
    assert pair["id"] in (vault / decision_notes()[0]).read_text(encoding="utf-8")


async def test_listed_pairs_carry_provenance_and_the_suggestion(api: AppClient) -> None:
    await api.call("POST", "/v1/contradictions/scan", {})
    status, doc = await api.call("GET", "/v1/contradictions")
    (pair,) = [p for p in doc["pairs"] if p["kind"] == "engram"]
    assert pair["provenance"] == {"a": "user", "b": "ai-derived"}
    suggested = {k: v for k, v in pair["suggested"].items() if k != "reason"}
    assert suggested == {"action": "wrong", "note": NEW}
    status, done = await api.call("POST", f"/v1/contradictions/{pair['id']}/resolve",
                                  suggested)  # the suggestion is a request as it stands
    assert status == 200 and done["changed"] == [NEW]
