"""`ora ask` end to end, and `POST /v1/ask` / `GET /v1/conversations/{id}` through the app that
`ora serve` runs, every answer checked against openapi.json by the server suite's checker
(`app_client`, tests/conftest.py)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main
from sidecar.index import open_index
from sidecar.models.embedder import Embedder
from sidecar.settings import SETTINGS, Config

from ..conftest import AppClient
from .conftest import settings

QUESTION = "What leavens sourdough bread?"


def missing(conversation: str) -> dict[str, Any]:
    """The answer to GET /v1/conversations/{id} for a conversation that does not exist."""
    return {"error": {"code": "not_found",
                      "message": f"no conversation {conversation!r} in namespace 'default'"}}


async def test_ora_ask_prints_one_json_document_and_remembers_the_conversation(
    tmp_path: Path, vault: Path, embedder: Embedder, llm: Any, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = settings(tmp_path, llm_url=llm.url)
    for s in SETTINGS:
        monkeypatch.setenv(s.env, str(config.values[s.name]))
    with open_index(config, writer=True, embedder=embedder) as index:
        index.reconcile()
    llm.reply = lambda body: "A starter of wild yeast [1]."
    argv = ["ask", str(vault), QUESTION, "--data", str(config.data), "--json"]
    for _ in range(2):
        assert await asyncio.to_thread(main, [*argv, "--conversation", "cli-1"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["generator"] == "llm:test-model" and doc["conversation"] == "cli-1"
        assert doc["citations"][0]["cited"] and doc["answer"] == "A starter of wild yeast [1]."
    assert {"role": "user", "content": QUESTION} in llm.requests[-1]["messages"]

    monkeypatch.setenv("ORA_LLM_URL", "")
    assert await asyncio.to_thread(main, argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["generator"] == "none" and doc["conversation"] is None


async def _answering(tmp_path: Path, llm: Any,
                     app_client: Callable[[Config], Awaitable[AppClient]]) -> AppClient:
    """A reconciled app whose LLM answers every question "Wild yeast [1]."."""
    api = await app_client(settings(tmp_path, llm_url=llm.url))
    await api.reconciled()
    llm.reply = lambda body: "Wild yeast [1]."
    return api


async def test_the_ask_and_conversation_routes(
    tmp_path: Path, vault: Path, llm: Any, app_client: Callable[[Config], Awaitable[AppClient]],
) -> None:
    api = await _answering(tmp_path, llm, app_client)
    status, doc = await api.call("POST", "/v1/ask", {"question": QUESTION, "conversation": "w-1"})
    assert status == 200 and doc["conversation"] == "w-1"
    assert doc["generator"] == "llm:test-model" and doc["citations"][0]["cited"]
    status, doc = await api.call("POST", "/v1/ask", {"question": "my sourdough starter secret?",
                                                     "conversation": "w-1", "private": True})
    assert status == 200 and any(c["private"] for c in doc["citations"])

    status, conv = await api.call("GET", "/v1/conversations/w-1")
    # The private turn made the conversation's note private, and with it every turn: outside
    # private mode it is as one that does not exist.
    assert (status, conv) == (404, missing("w-1"))
    status, conv = await api.call("GET", "/v1/conversations/w-1?private=true")
    assert [(t["role"], t["content"]) for t in conv["turns"][:2]] == [
        ("user", QUESTION), ("assistant", "Wild yeast [1].")]
    assert len(conv["turns"]) == 4 and all(t["private"] for t in conv["turns"])

    status, doc = await api.call("POST", "/v1/ask", {"question": QUESTION})
    assert status == 200 and doc["conversation"] is None
    status, err = await api.call("GET", "/v1/conversations/nobody")
    assert status == 404 and err["error"]["code"] == "not_found"
    status, err = await api.call("POST", "/v1/ask", {"question": "", "k": 0})
    assert status == 400 and err["error"]["code"] == "bad_request"


async def test_a_chat_note_renamed_out_of_the_chats_folder_keeps_its_conversation(
    tmp_path: Path, vault: Path, llm: Any, app_client: Callable[[Config], Awaitable[AppClient]],
) -> None:
    api = await _answering(tmp_path, llm, app_client)
    status, doc = await api.call("POST", "/v1/ask", {"question": QUESTION, "conversation": "m-1"})
    note = doc["conversation_note"]
    (vault / "Projects").mkdir()
    (vault / note).rename(vault / "Projects" / "Bread.md")
    status, _ = await api.call("POST", "/v1/events", {"events": [
        {"kind": "renamed", "path": "Projects/Bread.md", "old_path": note}]})
    assert status == 200
    status, doc = await api.call("POST", "/v1/ask", {"question": "How often do I feed it?",
                                                     "conversation": "m-1"})
    assert status == 200 and doc["conversation_note"] == "Projects/Bread.md"
    assert not (vault / note).exists()
    assert "How often do I feed it?" in (vault / "Projects" / "Bread.md").read_text("utf-8")
    assert {"role": "user", "content": QUESTION} in llm.requests[-1]["messages"]


async def test_conversation_notes_are_listed_where_memory_last_saw_them_even_once_moved(
    tmp_path: Path, vault: Path, llm: Any, app_client: Callable[[Config], Awaitable[AppClient]],
) -> None:
    api = await _answering(tmp_path, llm, app_client)
    _, open_doc = await api.call("POST", "/v1/ask", {"question": QUESTION, "conversation": "l-1"})
    _, secret = await api.call("POST", "/v1/ask", {"question": QUESTION, "conversation": "l-2",
                                                    "private": True})
    status, listed = await api.call("GET", "/v1/conversations")
    assert status == 200 and listed["conversations"] == [
        {"conversation": "l-1", "namespace": "default", "note": open_doc["conversation_note"]}]
    _, listed = await api.call("GET", "/v1/conversations?private=true")
    assert [c["conversation"] for c in listed["conversations"]] == ["l-1", "l-2"]
    assert listed["conversations"][1]["note"] == secret["conversation_note"]
    # Moved out of the chats folder while nothing watched: still listed at its old path (a sync
    # would forget it), and the renamed event the plugin then sends relinks it.
    (vault / "Archive").mkdir()
    (vault / open_doc["conversation_note"]).rename(vault / "Archive" / "Bread chat.md")
    _, listed = await api.call("GET", "/v1/conversations")
    assert listed["conversations"][0]["note"] == open_doc["conversation_note"]
    await api.call("POST", "/v1/events", {"events": [
        {"kind": "renamed", "path": "Archive/Bread chat.md",
         "old_path": open_doc["conversation_note"]}]})
    status, conv = await api.call("GET", "/v1/conversations/l-1")
    assert status == 200 and conv["note"] == "Archive/Bread chat.md" and len(conv["turns"]) == 2


@pytest.mark.parametrize("how", ["tag", "folder"])
async def test_a_chat_note_made_private_by_hand_is_not_listed_outside_private_mode(
    tmp_path: Path, vault: Path, llm: Any, app_client: Callable[[Config], Awaitable[AppClient]],
    how: str,
) -> None:
    """The list reads no note into memory (that would forget a moved one), so it showed a note
    the user had just tagged private (or whose folder ora.yaml made private), by its path, to a
    non-private request. Nor do its turns or path reach a non-private answer, or the model."""
    api = await _answering(tmp_path, llm, app_client)
    _, doc = await api.call("POST", "/v1/ask", {"question": QUESTION, "conversation": "p-1"})
    note = vault / doc["conversation_note"]
    if how == "tag":
        note.write_text(note.read_text("utf-8") + "\n#private\n", "utf-8")
    else:
        (vault / "ora.yaml").write_text("private: [Chats/]\n", "utf-8")
    _, listed = await api.call("GET", "/v1/conversations")
    assert listed["conversations"] == []
    _, listed = await api.call("GET", "/v1/conversations?private=true")
    assert [c["note"] for c in listed["conversations"]] == [doc["conversation_note"]]
    status, conv = await api.call("GET", "/v1/conversations/p-1")
    assert (status, conv) == (404, missing("p-1"))
    status, conv = await api.call("GET", "/v1/conversations/p-1?private=true")
    assert len(conv["turns"]) == 2 and conv["note"] == doc["conversation_note"]
    status, _ = await api.call("POST", "/v1/extract", {"conversation": "p-1"})
    assert status == 404
    # A non-private question in it gets none of its earlier turns as context.
    await api.call("POST", "/v1/ask", {"question": "And rye?", "conversation": "p-1"})
    assert {"role": "user", "content": QUESTION} not in llm.requests[-1]["messages"]
