"""An answer whose chat note another program holds (an editor mid-save) is never thrown away:
the append is tried again while the save lasts, and a turn that still cannot be written is kept
and written at the next chance; the asker gets the answer either way."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.errors import Conflict
from sidecar.memory import notes as chat_notes
from sidecar.settings import Config

from ..conftest import AppClient
from .conftest import settings

QUESTION, ANSWER = "What leavens sourdough bread?", "Wild yeast [1]."
# A question the vault matches (one that matches nothing is answered without the model).
GREETING = "Hello? Which starter leavens sourdough?"


async def test_an_answer_the_chat_note_refuses_is_returned_and_written_at_the_next_chance(
    tmp_path: Path, vault: Path, llm: Any, app_client: Callable[[Config], Awaitable[AppClient]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    api = await app_client(settings(tmp_path, llm_url=llm.url))
    await api.reconciled()
    llm.reply = lambda body: ANSWER
    status, doc = await api.call("POST", "/v1/ask", {"question": GREETING, "conversation": "b"})
    assert status == 200
    append = chat_notes.append_to_note

    def held(*args: Any, **kwargs: Any) -> tuple[str, str]:
        raise Conflict("b.md is open for writing in another program; try again")

    monkeypatch.setattr(chat_notes, "WRITE_RETRY_S", 0.0, raising=False)
    monkeypatch.setattr(chat_notes, "append_to_note", held)
    for path in ("/v1/ask", "/v1/ask/stream"):
        async with api.client.post(path, json={"question": QUESTION, "conversation": "b"},
                                   headers={"Authorization": f"Bearer {api.token}"}) as resp:
            body = await resp.text()
        assert resp.status == 200 and ANSWER in body and "conflict" not in body
    monkeypatch.setattr(chat_notes, "append_to_note", append)  # the save is over

    status, conv = await api.call("GET", "/v1/conversations/b")
    assert status == 200
    assert [(t["role"], t["content"]) for t in conv["turns"]] == [
        ("user", GREETING), ("assistant", ANSWER), *[("user", QUESTION), ("assistant", ANSWER)] * 2]
    assert (vault / doc["conversation_note"]).read_text("utf-8").count(QUESTION) == 2
