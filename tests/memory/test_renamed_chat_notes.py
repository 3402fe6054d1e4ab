"""A chat note renamed inside the chats folder while an answer is being generated (no sync and
no rename event between the question and the answer) keeps its conversation: the next turn goes
into the renamed note, and the history stays whole. Before, the append took the note for deleted,
forgot the conversation and started a new note holding the new turn alone, which sync then
counted as the conversation while the renamed note was passed over as "a copy"."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from sidecar.memory import ChatNotes
from sidecar.settings import Config, make_config
from tests.notes import write_notes

from ..conftest import AppClient
from .test_memory import CHAT

NOTE = "Chats/Ora/c1.md"
RENAMED = "Chats/Ora/c1 bread and bikes.md"


def _notes(opened: Any) -> ChatNotes:
    return ChatNotes(opened.config, opened.store, opened.index.chroma, opened.embedder)


def test_a_turn_after_the_note_was_renamed_goes_into_the_renamed_note(
    open_memory: Callable[..., Any],
) -> None:
    opened = open_memory()
    memory = opened.memory()
    for role, content in CHAT[:3]:
        memory.remember(role, content)
    (opened.config.vault / NOTE).rename(opened.config.vault / RENAMED)
    memory.remember("assistant", CHAT[3][1])  # the answer, generated while the user renamed

    assert memory.note_path == RENAMED
    assert not (opened.config.vault / NOTE).exists()
    text = (opened.config.vault / RENAMED).read_text(encoding="utf-8")
    assert all(content in text for _, content in CHAT[:4])
    assert [t.content for t in memory.turns()] == [c for _, c in CHAT[:4]]
    report = _notes(opened).sync()  # the log matches the note: nothing to read again
    assert report.imported == [] and report.dropped == []
    assert [t.content for t in opened.memory().turns()] == [c for _, c in CHAT[:4]]


def test_a_renamed_note_edited_too_is_read_back_before_the_turn_is_logged(
    open_memory: Callable[..., Any],
) -> None:
    opened = open_memory()
    memory = opened.memory()
    for role, content in CHAT[:2]:
        memory.remember(role, content)
    old, new = opened.config.vault / NOTE, opened.config.vault / RENAMED
    new.write_text(old.read_text(encoding="utf-8").replace("twelve hours", "eight hours"),
                   encoding="utf-8")
    old.unlink()
    memory.remember("user", CHAT[2][1])
    assert memory.note_path == RENAMED and not old.exists()
    assert [t.content for t in memory.turns()] == [
        CHAT[0][1].replace("twelve hours", "eight hours"), CHAT[1][1], CHAT[2][1]]


def test_a_note_deleted_rather_than_renamed_still_starts_the_conversation_afresh(
    open_memory: Callable[..., Any],
) -> None:
    opened = open_memory()
    memory = opened.memory()
    for role, content in CHAT[:2]:
        memory.remember(role, content)
    other = opened.memory("c2")
    other.remember("user", CHAT[4][1])
    (opened.config.vault / NOTE).unlink()
    memory.remember("user", "A new start.")
    assert memory.note_path == NOTE
    assert [t.content for t in memory.turns()] == ["A new start."]
    assert [t.content for t in other.turns()] == [CHAT[4][1]]


def _settings(tmp_path: Path, llm_url: str) -> Config:
    """Deterministic settings: the int8 embedder, no re-ranker, no Cohere, the fake LLM."""
    models = tmp_path / "models"
    return make_config(tmp_path / "vault", tmp_path / "data", embed_model="int8",
                       models_dir=str(models), cohere_api_key="",
                       reranker_dir=str(models / "absent"), llm_url=llm_url,
                       llm_model="test-model")


async def test_renaming_the_note_while_the_answer_is_generated_keeps_the_conversation(
    tmp_path: Path, llm: Any, app_client: Callable[[Config], Awaitable[AppClient]],
) -> None:
    vault = write_notes(tmp_path / "vault", {"Engrams/Sourdough starter.md": (
        "---\nnexus: []\ntype: engram\ntags: []\n---\n# Sourdough starter\n\n"
        "A sourdough starter needs feeding every twelve hours at room temperature.\n")})
    api = await app_client(_settings(tmp_path, llm.url))
    await api.reconciled()
    llm.reply = lambda body: "First answer [1]."
    status, first = await api.call("POST", "/v1/ask", {"question": "What is a sourdough starter?",
                                                       "conversation": "r1"})
    assert status == 200 and first["conversation_note"] == "Chats/Ora/r1.md"

    def rename_then_answer(body: dict[str, Any]) -> str:
        note = vault / "Chats/Ora/r1.md"
        if note.exists():  # the user renames the note while the model is still answering
            note.rename(vault / "Chats/Ora/r1 renamed.md")
        return "Second answer [1]."

    llm.reply = rename_then_answer
    status, second = await api.call("POST", "/v1/ask", {"question": "Rye flour for a starter?",
                                                        "conversation": "r1"})
    assert status == 200 and second["conversation_note"] == "Chats/Ora/r1 renamed.md"
    assert sorted(p.name for p in (vault / "Chats/Ora").iterdir()) == ["r1 renamed.md"]
    status, conversation = await api.call("GET", "/v1/conversations/r1")
    assert status == 200 and conversation["note"] == "Chats/Ora/r1 renamed.md"
    assert [(t["role"], t["content"]) for t in conversation["turns"]] == [
        ("user", "What is a sourdough starter?"), ("assistant", "First answer [1]."),
        ("user", "Rye flour for a starter?"), ("assistant", "Second answer [1].")]
