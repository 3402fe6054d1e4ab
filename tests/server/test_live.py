"""One real `ora serve` subprocess on a free loopback port: its routes and its guards."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

OBSIDIAN = "app://obsidian.md"
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def live_api(shared_live_api: Any) -> Any:
    return shared_live_api


async def test_serve_says_where_it_listens_and_where_the_token_is(live_api: Any) -> None:
    log = live_api.served.log.read_text()
    data = live_api.served.config.data
    assert f"listening on http://127.0.0.1:{live_api.port}" in log
    assert f"token in {data / 'token'}" in log
    assert stat.S_IMODE((data / "token").stat().st_mode) == 0o600


async def test_every_route_answers_on_a_live_server(live_api: Any) -> None:
    vault = live_api.served.config.vault
    assert (await live_api.get("/v1/health", token=None)).status == 200
    status = await live_api.wait_reconciled()
    assert status["files"] == 4
    assert (await live_api.get("/v1/openapi.json")).json["openapi"].startswith("3.1")
    found = await live_api.post("/v1/search", {"query": "wild yeast dough", "k": 1})
    assert found.json["results"][0]["path"] == "Resources/Sourdough.md"
    lint = await live_api.post("/v1/lint", {"path": "x.md", "text": "no frontmatter\n"})
    assert [d["code"] for d in lint.json["diagnostics"]] == ["frontmatter-missing"]
    fixed = await live_api.post("/v1/lint/fix", {"path": "Inbox/No dates.md"})
    assert fixed.json["changed"] is True
    assert "date created:" in (vault / "Inbox/No dates.md").read_text()
    assert (await live_api.post("/v1/reindex", {})).status == 202
    await live_api.wait_reconciled()
    async with live_api.stream("/v1/events/stream") as stream:
        assert (await live_api.next_event(stream))[0] == "progress"
    assert (await live_api.get("/v1/contradictions")).status == 200


async def test_an_edit_posted_through_events_becomes_searchable(
    live_api: Any
) -> None:
    vault = live_api.served.config.vault
    await live_api.wait_reconciled()
    note = vault / "Engrams/Forgetting curve.md"
    note.write_text(note.read_text() + "\nAxolotls regrow their limbs.\n")
    events = {"events": [{"kind": "modified", "path": "Engrams/Forgetting curve.md"}]}
    answer = await live_api.post("/v1/events", events)
    assert answer.json["accepted"] + answer.json["deduplicated"] == 1  # the watcher may be first
    found = await live_api.post("/v1/search", {"query": "axolotls regrow limbs", "k": 1})
    assert found.json["results"][0]["path"] == "Engrams/Forgetting curve.md"
    assert found.json["results"][0]["why"]["bm25_rank"] == 1


@pytest.mark.parametrize(
    ("headers", "token", "status"),
    [
        ({}, None, 401),
        ({}, "wrong", 401),
        ({"Origin": "https://evil.example"}, "", 403),
        ({"Host": "evil.example"}, "", 403),
        ({"Host": "127.0.0.1:1"}, "", 403),
        ({"Origin": OBSIDIAN}, "", 200),
    ],
)
async def test_a_live_server_guards_its_door(
    live_api: Any, headers: dict[str, str], token: str | None, status: int
) -> None:
    answer = await live_api.get("/v1/status", headers=headers, token=token)
    assert answer.status == status
    if status != 200:
        assert set(answer.json["error"]) == {"code", "message"}


async def test_a_live_server_answers_bad_requests_with_json_errors(live_api: Any) -> None:
    assert (await live_api.get("/v1/unknown")).status == 404
    assert (await live_api.get("/v1/search")).status == 405
    bad = await live_api.request("POST", "/v1/search", data=b"{oops",
                                 headers={"Content-Type": "application/json"})
    assert bad.status == 400
    big = await live_api.request("POST", "/v1/lint", data=b"x" * (5 * 1024 * 1024),
                                 headers={"Content-Type": "application/json"})
    assert big.status == 413


async def test_status_reports_the_vault_and_the_process_as_recorded(live_api: Any) -> None:
    config = live_api.served.config
    status = (await live_api.get("/v1/status")).json
    record = json.loads((config.data / "server.json").read_text())
    assert status["vault"] == str(config.vault) == record["vault"]
    assert Path(status["vault"]).is_absolute()
    assert status["pid"] == record["pid"] == live_api.served.proc.pid
    assert record["port"] == live_api.port and record["parent_pid"] is None
