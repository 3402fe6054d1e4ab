"""A chat note that cannot be read (one Latin-1 byte, or grown past `max_file_bytes`) may carry
a private tag no one can see: its conversation is private for every non-private request (its
turns, its summary, recall into other conversations, the prompt of the next answer), through the
real server, until the note can be read again."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import settings
from .test_cli_and_routes import missing

SECRET = "My heron sketchbook hides under the loose floorboard of the attic."
LIMIT = 40_000


def _latin1(data: bytes) -> bytes:
    return data.replace(b"tags: []", b"tags: [private]", 1) + b"\nCaf\xe9 notes.\n"


def _oversize(data: bytes) -> bytes:
    return data.replace(b"tags: []", b"tags: [private]", 1) + b"\n" + b"padding " * 6_000


UNREADABLE: dict[str, Callable[[bytes], bytes]] = {"latin1": _latin1, "oversize": _oversize}


def _words(calls: list[dict[str, Any]]) -> str:
    return json.dumps(calls)


@pytest.mark.parametrize("form", sorted(UNREADABLE))
async def test_a_conversation_whose_note_cannot_be_read_is_private_outside_private_mode(
    tmp_path: Path, vault: Path, llm: Any, app_client: Any, form: str,
) -> None:
    api = await app_client(settings(tmp_path, llm_url=llm.url, max_file_bytes=LIMIT))
    await api.reconciled()
    llm.reply = lambda body: "Noted: the heron sketchbook is under the attic floorboard."
    status, doc = await api.call("POST", "/v1/ask", {"question": SECRET, "conversation": "attic"})
    assert status == 200
    note = vault / doc["conversation_note"]
    note.write_bytes(UNREADABLE[form](note.read_bytes()))  # its owner tags it private
    status, _ = await api.call("POST", "/v1/events", {  # as the plugin reports it: the index
        "events": [{"kind": "modified", "path": doc["conversation_note"]}]})  # drops the note
    assert status == 200

    status, conv = await api.call("GET", "/v1/conversations/attic")
    assert (status, conv) == (404, missing("attic"))
    status, listed = await api.call("GET", "/v1/conversations")
    assert status == 200 and listed["conversations"] == []

    llm.requests.clear()
    status, _ = await api.call(
        "POST", "/v1/ask",
        # Asked with a question the vault matches, so the model is asked (and shown nothing).
        {"question": "Where does the heron sketchbook hide in the attic, and what leavens "
                     "sourdough bread?", "conversation": "new"})
    assert status == 200
    assert llm.requests and "floorboard" not in _words(llm.requests)  # neither recalled nor sent

    # The private view still has every turn, and the note, once readable again, is the truth.
    status, mine = await api.call("GET", "/v1/conversations/attic?private=true")
    assert status == 200 and mine["turns"][0]["content"] == SECRET
    note.write_text(note.read_bytes()[:note.read_bytes().index(b"\n# attic")].decode(
        "utf-8", "replace").replace("tags: [private]", "tags: []") + "\n# attic\n\n"
        "## You · 2026-11-30 08:40:12 UTC\n\nA plain question again.\n", encoding="utf-8")
    status, conv = await api.call("GET", "/v1/conversations/attic")
    assert status == 200 and [t["content"] for t in conv["turns"]] == ["A plain question again."]
