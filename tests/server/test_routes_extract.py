"""`POST /v1/extract`, `/v1/extract/accept` and `/v1/extract/undo` through the in-process app:
plan, keep (indexed and queued at once), refuse stale ids, undo byte for byte, and keep a private
conversation out of non-private answers word for word as a missing one."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.notes import write_notes

from ..extraction.conftest import CAFFEINE, NOTES, chat_text
from .conftest import Api

TURNS = [
    ("user", "Which flour ferments fastest?"),
    ("assistant", "Rye flour ferments faster than wheat flour."),
    ("user", "Does coffee help me bake at night?"),
    ("assistant", "Caffeine does not improve alertness in adults."),
]
KITCHEN = "Chats/Ora/kitchen.md"
SECRET = "Chats/Ora/secret.md"


async def _app(tmp_path: Path, configure: Callable[..., Any],
               api_for: Callable[..., Awaitable[Api]], how: str = "tag") -> tuple[Api, Path]:
    """`how` the secret conversation is private: its tag, or its folder (ora.yaml)."""
    folder = {"ora.yaml": "private: [Chats/]\n"} if how == "folder" else {}
    vault = write_notes(tmp_path / "vault", {
        **NOTES, **folder, KITCHEN: chat_text("kitchen", TURNS),
        SECRET: chat_text("secret", [("user", "My zqx recipe uses honey in the starter.")],
                          private=how == "tag")})
    api = await api_for(configure(vault, tmp_path / "data", llm_url=""))
    await api.wait_reconciled()
    return api, vault


async def test_extract_plans_keeps_indexes_queues_and_undoes(
    tmp_path: Path, configure: Callable[..., Any], api_for: Callable[..., Awaitable[Api]],
) -> None:
    api, vault = await _app(tmp_path, configure, api_for)
    before = (vault / KITCHEN).read_bytes()
    plan = (await api.post("/v1/extract", {"conversation": "kitchen"})).json
    assert plan["extractor"] == "rules" and plan["note"] == KITCHEN
    texts = {p["text"]: p for p in plan["proposals"]}
    assert set(texts) == {TURNS[1][1], TURNS[3][1]}
    assert texts[TURNS[3][1]]["contradicts"] == [CAFFEINE]
    assert (await api.post("/v1/extract", {"note": KITCHEN})).json == plan

    kept = await api.post("/v1/extract/accept", {"conversation": "kitchen", "accept": "all"})
    assert kept.status == 200 and len(kept.json["written"]) == 2, kept.json
    assert kept.json["queued_contradictions"] == 1
    status = (await api.get("/v1/status")).json
    assert status["contradictions_open"] == 1
    pairs = (await api.get("/v1/contradictions?status=open")).json["pairs"]
    assert {pairs[0]["a"]["path"], pairs[0]["b"]["path"]} & set(kept.json["written"])
    found = (await api.post("/v1/search", {"query": TURNS[1][1], "rerank": False})).json
    assert found["results"][0]["path"] in kept.json["written"]

    # Kept ids are no longer proposed: accepting them again is a conflict, and writes nothing.
    stale = await api.post("/v1/extract/accept", {"conversation": "kitchen",
                                                  "accept": [plan["proposals"][0]["id"]]})
    assert stale.status == 409
    assert (await api.post("/v1/extract", {"conversation": "kitchen"})).json["proposals"] == []

    undone = await api.post("/v1/extract/undo", {})
    assert undone.status == 200 and sorted(undone.json["removed"]) == sorted(
        kept.json["written"]) and undone.json["restored"] == [KITCHEN]
    assert (vault / KITCHEN).read_bytes() == before
    assert not any((vault / rel).exists() for rel in kept.json["written"])
    assert (await api.get("/v1/status")).json["contradictions_open"] == 0
    assert (await api.post("/v1/extract/undo", {})).status == 404


@pytest.mark.parametrize("how", ["tag", "folder"])
async def test_a_private_conversation_is_not_found_outside_private_mode(
    tmp_path: Path, configure: Callable[..., Any], api_for: Callable[..., Awaitable[Api]],
    how: str,
) -> None:
    api, _ = await _app(tmp_path, configure, api_for, how)
    hidden = await api.post("/v1/extract", {"conversation": "secret"})
    missing = await api.post("/v1/extract", {"conversation": "nothing"})
    assert hidden.status == missing.status == 404
    assert hidden.json["error"]["message"] == missing.json["error"]["message"].replace(
        "nothing", "secret")
    assert b"zqx" not in hidden.body
    by_path = await api.post("/v1/extract", {"note": SECRET})
    no_path = await api.post("/v1/extract", {"note": "Chats/Ora/none.md"})
    assert by_path.status == no_path.status == 404
    assert by_path.json["error"]["message"] == no_path.json["error"]["message"].replace(
        "none.md", "secret.md")
    refused = await api.post("/v1/extract/accept", {"conversation": "secret", "accept": "all"})
    assert refused.status == 404

    plan = (await api.post("/v1/extract", {"conversation": "secret", "private": True})).json
    assert [p["text"] for p in plan["proposals"]] == ["My zqx recipe uses honey in the starter."]
    kept = (await api.post("/v1/extract/accept", {"conversation": "secret", "accept": "all",
                                                   "private": True})).json
    (written,) = kept["written"]
    assert "  - private\n" in (tmp_path / "vault" / written).read_text(encoding="utf-8")
    public = (await api.post("/v1/search", {"query": "zqx recipe honey starter"})).json
    assert "zqx" not in json.dumps(public["results"])
    # Outside private mode the private extraction is not there: nothing to undo, word for word,
    # and the engram and the chat note stay; in private mode it is undone.
    hidden_undo = await api.post("/v1/extract/undo", {})
    assert hidden_undo.status == 404 and hidden_undo.json["error"]["message"] == (
        "no extraction to undo in .ora-journal/")
    assert (tmp_path / "vault" / written).is_file()
    undone = (await api.post("/v1/extract/undo", {"private": True})).json
    assert undone["removed"] == [written] and undone["private_hidden"] == 0


async def test_extract_bodies_name_exactly_one_conversation(
    tmp_path: Path, configure: Callable[..., Any], api_for: Callable[..., Awaitable[Api]],
) -> None:
    api, _ = await _app(tmp_path, configure, api_for)
    for body in ({}, {"conversation": "kitchen", "note": KITCHEN},
                 {"conversation": "kitchen", "path": "../etc/passwd"}):
        assert (await api.post("/v1/extract", body)).status == 400
    assert (await api.post("/v1/extract/accept", {"conversation": "kitchen"})).status == 400
    for note in ("../outside.md", "Chats/a\x00b.md", "/etc/passwd.md", ".obsidian/x.md"):
        assert (await api.post("/v1/extract", {"note": note})).status == 400
    assert (await api.post("/v1/extract", {"conversation": "a\x00b"})).status == 400


async def test_an_accept_keeps_the_reviews_own_wording(
    tmp_path: Path, configure: Callable[..., Any], api_for: Callable[..., Awaitable[Api]],
) -> None:
    api, vault = await _app(tmp_path, configure, api_for)
    plan = (await api.post("/v1/extract", {"conversation": "kitchen"})).json
    rye = next(p["id"] for p in plan["proposals"] if p["text"].startswith("Rye"))
    wrong = await api.post("/v1/extract/accept", {"conversation": "kitchen", "accept": [rye],
                                                   "edits": {"0123456789abcdef": {"text": "x"}}})
    assert wrong.status == 400 and not (vault / "Engrams" / "Rye flour.md").exists()
    kept = (await api.post("/v1/extract/accept", {
        "conversation": "kitchen", "accept": [rye],
        "edits": {rye: {"text": "Rye flour ferments faster than wheat flour at room "
                                "temperature."}}})).json
    (written,) = kept["written"]
    text = (vault / written).read_text(encoding="utf-8")
    assert text.endswith("# Rye flour ferments faster than wheat flour at room temperature\n\n"
                         "Rye flour ferments faster than wheat flour at room temperature.\n")
    plan = (await api.post("/v1/extract", {"conversation": "kitchen"})).json
    assert rye not in {p["id"] for p in plan["proposals"]}
