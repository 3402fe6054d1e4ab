"""A question in a conversation is in its chat note before the model is asked, so a crash while
the answer is generated (SIGKILL, a power cut) never loses it; the note still reads question,
answer, question, answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from sidecar.settings import Config

from ..conftest import AppClient
from .conftest import settings

NOTE = "Chats/Ora/q-1.md"


async def test_the_question_is_in_the_chat_note_before_the_model_answers(
    tmp_path: Path, vault: Path, llm: Any, app_client: Callable[[Config], Awaitable[AppClient]],
) -> None:
    api = await app_client(settings(tmp_path, llm_url=llm.url))
    await api.reconciled()
    seen: list[str] = []

    def reply(body: Any) -> str:  # what the note holds while the model is answering
        note = vault / NOTE
        seen.append(note.read_text("utf-8") if note.exists() else "")
        return f"Wild yeast [1], answer {len(seen)}."

    llm.reply = reply
    for question in ("What leavens sourdough bread?", "How often do I feed the starter?"):
        status, doc = await api.call("POST", "/v1/ask",
                                     {"question": question, "conversation": "q-1"})
        assert status == 200 and doc["generator"] == "llm:test-model"
        assert question in seen[-1]
    text = (vault / NOTE).read_text("utf-8")
    order = [text.index(s) for s in ("What leavens", "answer 1.", "How often", "answer 2.")]
    assert order == sorted(order)
    _, conv = await api.call("GET", "/v1/conversations/q-1")
    assert [t["role"] for t in conv["turns"]] == ["user", "assistant", "user", "assistant"]
