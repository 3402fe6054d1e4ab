"""Outside private mode an ask naming a private conversation is answered from the vault alone:
nothing of it is written into the private chat note, and its answer names no note."""

from __future__ import annotations

from pathlib import Path
from typing import Any

NOTE = "Chats/Ora/divorce-2026.md"


async def _ask(api: Any, conversation: str, question: str, *, private: bool = False
               ) -> dict[str, Any]:
    answer = await api.post("/v1/ask", {"question": question, "conversation": conversation,
                                        "private": private, "rerank": False})
    assert answer.status == 200
    doc: dict[str, Any] = answer.json
    return doc


async def test_a_non_private_ask_on_a_private_conversation_writes_nothing_into_its_note(
    api: Any, tmp_path: Path,
) -> None:
    await api.wait_reconciled()
    await _ask(api, "divorce-2026", "What leavens sourdough bread?", private=True)
    before = (tmp_path / "vault" / NOTE).read_bytes()
    doc = await _ask(api, "divorce-2026", "Which flour makes the crust darker?")
    assert (tmp_path / "vault" / NOTE).read_bytes() == before
    # A public conversation of that id, kept apart, as for an id no conversation holds.
    assert doc["conversation"] == "divorce-2026"
    assert doc["conversation_note"] == "Chats/Ora/divorce-2026 2.md"
    assert list(doc)[list(doc).index("conversation") + 1] == "conversation_note"
    twin = await api.get("/v1/conversations/divorce-2026")
    assert twin.status == 200
    assert [t["content"] for t in twin.json["turns"] if t["role"] == "user"] == [
        "Which flour makes the crust darker?"]
    mine = await api.get("/v1/conversations/divorce-2026?private=true")
    assert [t["content"] for t in mine.json["turns"]] == ["What leavens sourdough bread?"]
