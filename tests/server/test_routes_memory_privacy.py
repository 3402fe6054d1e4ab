"""Outside private mode nothing of the conversation routes tells that a private conversation
exists or names its chat note; and an ask's request is checked before its stream begins, by the
one namespace rule the OpenAPI document states too."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from sidecar.errors import BadRequest
from sidecar.index.names import check_namespace
from sidecar.server.openapi import openapi_document


async def _ask(api: Any, conversation: str, *, private: bool = False) -> dict[str, Any]:
    answer = await api.post("/v1/ask", {"question": "What leavens sourdough bread?",
                                        "conversation": conversation, "private": private,
                                        "rerank": False})
    assert answer.status == 200
    doc: dict[str, Any] = answer.json
    return doc


@pytest.mark.parametrize("how", ["tag", "folder"])
async def test_a_non_private_ask_never_names_a_private_chat_note(
    api: Any, tmp_path: Path, how: str,
) -> None:
    vault = tmp_path / "vault"
    await api.wait_reconciled()
    note = (await _ask(api, "d-1"))["conversation_note"]
    assert note == "Chats/Ora/d-1.md"
    if how == "tag":  # tagged by hand, and renamed to a telling title
        text = (vault / note).read_text("utf-8").replace("tags: []", "tags:\n  - private", 1)
        (vault / "Chats/Ora/Divorce lawyer notes.md").write_text(text, "utf-8")
        (vault / note).unlink()
        await api.post("/v1/events", {"events": [{
            "kind": "renamed", "path": "Chats/Ora/Divorce lawyer notes.md", "old_path": note}]})
    else:
        (vault / "ora.yaml").write_text("private: [Chats/]\n", "utf-8")
    # Tagged: a public twin of that id, in its own note; a private folder holds the twin too.
    assert (await _ask(api, "d-1"))["conversation_note"] == (
        "Chats/Ora/d-1.md" if how == "tag" else None)
    assert (await api.get("/v1/conversations/d-1?private=true")).json["note"] is not None


async def test_a_private_conversation_is_not_found_outside_private_mode_as_a_missing_one(
    api: Any,
) -> None:
    await api.wait_reconciled()
    await _ask(api, "divorce-2026", private=True)
    hidden = await api.get("/v1/conversations/divorce-2026")
    missing = await api.get("/v1/conversations/divorce-2027")
    assert (hidden.status, json.dumps(hidden.json).replace("2026", "2027")) == (
        missing.status, json.dumps(missing.json))
    assert missing.status == 404
    mine = await api.get("/v1/conversations/divorce-2026?private=true")
    assert mine.status == 200 and len(mine.json["turns"]) == 1


@pytest.mark.parametrize("body", [{"namespace": "mem"}, {"namespace": "a__b"},
                                  {"conversation": "-not-an-id"}])
async def test_a_bad_streamed_ask_is_a_400_before_the_stream_begins(
    api: Any, body: dict[str, Any],
) -> None:
    answer = await api.post("/v1/ask/stream", {"question": "Anything?", **body})
    assert answer.status == 400
    assert answer.headers["Content-Type"].startswith("application/json")
    assert answer.json["error"]["code"] == "bad_request"


def _valid(namespace: str) -> bool:
    try:
        check_namespace(namespace)
    except BadRequest:
        return False
    return True


def _namespace_patterns(node: Any) -> set[str]:
    """The pattern of every namespace the OpenAPI document declares: properties and parameters."""
    found: set[str] = set()
    if isinstance(node, dict):
        if node.get("name") == "namespace" and "schema" in node:
            found.add(node["schema"]["pattern"])
        if isinstance(node.get("namespace"), dict) and "pattern" in node["namespace"]:
            found.add(node["namespace"]["pattern"])
        for value in node.values():
            found |= _namespace_patterns(value)
    elif isinstance(node, list):
        for value in node:
            found |= _namespace_patterns(value)
    return found


@pytest.mark.parametrize("namespace", ["default", "a", "A-b_c", "x" * 48, "x" * 49, "x" * 63,
                                       "x" * 64, "mem", "memo", "a__b", "-a", "_a", "a.b", ""])
def test_the_openapi_namespace_pattern_is_check_namespace(namespace: str) -> None:
    patterns = _namespace_patterns(openapi_document())
    assert len(patterns) == 1, patterns
    assert (re.search(patterns.pop(), namespace) is not None) == _valid(namespace)
