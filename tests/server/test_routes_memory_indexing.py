"""An answer does not wait on the indexing of its chat note for long: a note an editor saves
again and again keeps the index reading it, and the asker has the answer meanwhile."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from sidecar.server import routes_memory
from sidecar.server.resources import LANE


async def test_an_answer_is_sent_while_its_chat_note_is_still_being_indexed(
    api: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    await api.wait_reconciled()
    lane = api.app[LANE]
    apply, indexed = lane.apply, asyncio.Event()

    async def endless(events: Any) -> dict[str, Any]:  # the note keeps changing
        await indexed.wait()
        result: dict[str, Any] = await apply(events)
        return result

    monkeypatch.setattr(routes_memory, "INDEX_WAIT_S", 0.05, raising=False)
    monkeypatch.setattr(lane, "apply", endless)
    ask = api.post("/v1/ask", {"question": "What leavens sourdough bread?",
                               "conversation": "busy", "rerank": False})
    answer = await asyncio.wait_for(ask, timeout=60)
    assert answer.status == 200 and answer.json["conversation_note"] == "Chats/Ora/busy.md"
    assert not indexed.is_set()
    indexed.set()  # the saves stop: the note is indexed after all
    deadline = asyncio.get_running_loop().time() + 60
    while api.app[routes_memory.MEMORY].indexing:
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(0.05)
