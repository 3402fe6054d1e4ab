"""Answers in a conversation live in its chat note: `ora ask --conversation` end to end against a
loopback OpenAI-compatible server, recall after `.ora/` is deleted, conversations citing earlier
ones (never themselves), failed generations kept out of memory, flags the model is told."""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from sidecar.answers import answer
from sidecar.cli import main
from sidecar.index import Index
from sidecar.memory import ConversationMemory, Episodic, open_store
from sidecar.models.embedder import Embedder
from sidecar.retrieval.search import SearchOptions
from sidecar.settings import SETTINGS

from ..memory.test_chat_notes import delete_data
from .conftest import settings

QUESTION = "What leavens sourdough bread?"
NOTE = "Chats/Ora/bread.md"


def _ask_cli(vault: Path, data: Path, question: str, conversation: str,
             capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    argv = ["ask", str(vault), question, "--data", str(data), "--json", "--no-rerank",
            "--conversation", conversation]
    assert main(argv) == 0
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return document


async def test_ora_ask_keeps_the_conversation_in_a_chat_note_that_outlives_the_data_folder(
    tmp_path: Path, vault: Path, embedder: Embedder, llm: Any, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = replace(settings(tmp_path, llm_url=llm.url), data=vault / ".ora")  # the default
    for s in SETTINGS:
        monkeypatch.setenv(s.env, str(config.values[s.name]))
    assert await asyncio.to_thread(main, ["index", str(vault), "--data", str(config.data)]) == 0
    capsys.readouterr()
    llm.reply = lambda body: "A starter of wild yeast and lactobacilli [1]."
    first = await asyncio.to_thread(_ask_cli, vault, config.data, QUESTION, "bread", capsys)
    assert first["conversation_note"] == NOTE

    # The note reads as a conversation: who said what, when, and what the answer cited.
    text = (vault / NOTE).read_text(encoding="utf-8")
    body = text.split("---\n", 2)[2]
    assert re.fullmatch(
        r"# bread\n\n## You · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\n\nWhat leavens sourdough bread\?"
        r"\n\n## Ora · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\n\n"
        r"A starter of wild yeast and lactobacilli \[1\]\.\n\nSources:\n"
        r"- \[1\] \[\[Resources/Sourdough\|Sourdough\]\], lines \d+-\d+\n", body), body
    assert "type: chat" in text and 'conversation: "bread"' in text

    # Deleting .ora/ loses nothing: after re-indexing, the next question in the conversation
    # is sent with the earlier turns, rebuilt from the note.
    delete_data(config.data)
    assert await asyncio.to_thread(main, ["index", str(vault), "--data", str(config.data)]) == 0
    capsys.readouterr()
    llm.reply = lambda body: "Feed it daily [1]."
    second = await asyncio.to_thread(_ask_cli, vault, config.data, "How often do I feed it?",
                                     "bread", capsys)
    messages = llm.requests[-1]["messages"]
    assert {"role": "user", "content": QUESTION} in messages
    assert {"role": "assistant",
            "content": "A starter of wild yeast and lactobacilli [1]."} in messages
    assert NOTE not in {c["path"] for c in second["citations"]}  # never cites itself

    # A new conversation can cite the earlier one, found as a chat note (P3).
    llm.reply = lambda body: "You were told about lactobacilli [1]."
    other = await asyncio.to_thread(
        _ask_cli, vault, config.data, "What did Ora tell me about lactobacilli in a starter?",
        "later", capsys)
    chats = [c for c in other["citations"] if c["path"] == NOTE]
    assert chats and "lactobacilli" in chats[0]["text"]


async def test_a_failed_generation_is_noted_but_never_remembered_as_an_answer(
    tmp_path: Path, vault: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    llm.mode = "error"
    config = settings(tmp_path, llm_url=llm.url)
    store = open_store(config.data)
    try:
        memory = ConversationMemory(config, store, Episodic(indexed.chroma, "default"),
                                    embedder, "bread")
        doc = await answer(config, indexed, embedder, None, QUESTION,
                           SearchOptions(k=3, rerank=False), memory=memory)
        assert doc["generator"] == "none" and doc["answer"].startswith("No answer was generated")
        assert [(t.role, t.content) for t in memory.turns()] == [("user", QUESTION)]
        text = (vault / NOTE).read_text(encoding="utf-8")
        assert re.search(r"## Ora · .* UTC · no answer\n\nNo answer was generated: the language "
                         r"model at .* answered HTTP 500", text)
        memory.notes.sync()  # reading the note back does not turn the notice into a turn
        assert [(t.role, t.content) for t in memory.turns()] == [("user", QUESTION)]
    finally:
        store.close()


async def test_the_prompt_and_the_citations_mark_an_incubating_passage(
    tmp_path: Path, vault: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    rel = "Engrams/Rye starter.md"
    (vault / rel).write_text(
        "---\nnexus: []\ntype: engram\ntags:\n  - incubating\n---\n# Rye starter\n\n"
        "A rye sourdough starter leavens bread faster than a wheat one.\n", encoding="utf-8")
    indexed.apply_paths([rel])
    llm.reply = lambda body: "Rye leavens faster [1]."
    config = settings(tmp_path, llm_url=llm.url)
    doc = await answer(config, indexed, embedder, None, "Which sourdough starter leavens bread?",
                       SearchOptions(k=4, rerank=False))
    (flagged,) = [c for c in doc["citations"] if c["path"] == rel]
    assert flagged["flags"] == ["incubating"]
    assert all(c["flags"] == [] for c in doc["citations"] if c["path"] != rel)
    prompt = llm.requests[-1]["messages"][-1]["content"]
    assert (f"[{flagged['n']}] ({rel}, lines {flagged['line_start']}-{flagged['line_end']}) "
            "(incubating: provisional, mid-review") in prompt

    extractive = await answer(settings(tmp_path), indexed, embedder, None,
                              "Which sourdough starter leavens bread?",
                              SearchOptions(k=4, rerank=False))
    assert f"{rel}:{flagged['line_start']}-{flagged['line_end']} (incubating)\n>" in (
        extractive["answer"])


async def test_the_conversation_routes_name_the_chat_note(
    tmp_path: Path, vault: Path, llm: Any, app_client: Any,
) -> None:
    api = await app_client(settings(tmp_path, llm_url=llm.url))
    await api.reconciled()
    llm.reply = lambda body: "Wild yeast [1]."
    status, doc = await api.call("POST", "/v1/ask", {"question": QUESTION, "conversation": "w-2"})
    assert status == 200 and doc["conversation_note"] == "Chats/Ora/w-2.md"
    assert (vault / "Chats/Ora/w-2.md").is_file()
    status, conv = await api.call("GET", "/v1/conversations/w-2")
    assert status == 200 and conv["note"] == "Chats/Ora/w-2.md"
    (vault / "Chats/Ora/w-2.md").unlink()  # the note is the truth: the conversation is gone
    status, err = await api.call("GET", "/v1/conversations/w-2")
    assert status == 404 and err["error"]["code"] == "not_found"


async def test_in_private_mode_the_model_is_told_which_passage_is_private(
    tmp_path: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    llm.reply = lambda body: "Honey [1]."
    config = settings(tmp_path, llm_url=llm.url)
    doc = await answer(config, indexed, embedder, None, "What is my sourdough starter secret?",
                       SearchOptions(k=4, rerank=False, private=True))
    (secret,) = [c for c in doc["citations"] if c["private"]]
    assert secret["flags"] == ["private"]
    assert all(c["flags"] == [] for c in doc["citations"] if not c["private"])
    assert (f"[{secret['n']}] ({secret['path']}, lines {secret['line_start']}-"
            f"{secret['line_end']}) (private: from a private note") in (
        llm.requests[-1]["messages"][-1]["content"])
