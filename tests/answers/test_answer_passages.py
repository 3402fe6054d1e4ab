"""Which passages an answer may quote: never its conversation's own chat note (under any path,
however many places of the top k it would take), and never a note the index holds as it no
longer is on disk (deleted, renamed or edited while no watcher ran)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sidecar.answers import answer
from sidecar.index import Index
from sidecar.memory import ConversationMemory, Episodic, MemoryStore, open_store
from sidecar.models.embedder import Embedder
from sidecar.retrieval.search import SearchOptions

from .conftest import settings

QUESTION = "What leavens sourdough bread?"
SOURDOUGH = "Resources/Sourdough.md"


@pytest.fixture
def store(tmp_path: Path, indexed: Index) -> Iterator[MemoryStore]:
    opened = open_store(settings(tmp_path).data)
    yield opened
    opened.close()


def _memory(tmp_path: Path, indexed: Index, embedder: Embedder, store: MemoryStore, llm: Any,
            conversation: str) -> ConversationMemory:
    return ConversationMemory(settings(tmp_path, llm_url=llm.url), store,
                              Episodic(indexed.chroma, "default"), embedder, conversation)


async def _ask(tmp_path: Path, indexed: Index, embedder: Embedder, llm: Any, question: str,
               memory: ConversationMemory | None = None, k: int = 3) -> dict[str, Any]:
    return await answer(settings(tmp_path, llm_url=llm.url), indexed, embedder, None, question,
                        SearchOptions(k=k, rerank=False), memory=memory)


def _prompt(llm: Any) -> str:
    return str(llm.requests[-1]["messages"][-1]["content"])


async def test_a_long_conversation_still_answers_when_its_own_note_would_fill_the_top_k(
    tmp_path: Path, vault: Path, indexed: Index, embedder: Embedder, store: MemoryStore,
    llm: Any,
) -> None:
    rye = "Resources/Rye.md"
    (vault / rye).write_text("# Rye\n\nRye flour ferments faster than wheat flour.\n",
                             encoding="utf-8")
    indexed.apply_paths([rye])
    memory = _memory(tmp_path, indexed, embedder, store, llm, "long")
    for n in range(12):  # a dozen turns about the same question
        memory.remember("user", f"Question {n} about proofing times and flour type {n}?")
        memory.remember("assistant", f"Reply {n}. Rye flour ferments faster than wheat flour "
                        "[1]. The banneton should be floured.")
    note = memory.note_path
    assert note is not None
    indexed.apply_paths([note])
    question = "Which flour type is best for proofing times?"
    alone = await _ask(tmp_path, indexed, embedder, llm, question, k=4)
    assert {c["path"] for c in alone["citations"]} == {note}  # the note takes the whole top k

    llm.reply = lambda body: "Rye flour [1]."
    doc = await _ask(tmp_path, indexed, embedder, llm, question, memory, k=2)
    assert doc["generator"] != "none", doc.get("generator_reason")
    paths = [c["path"] for c in doc["citations"]]
    # Its places are not refilled by passages below the answer's relevance floor.
    assert rye in paths and note not in paths


async def test_a_renamed_chat_note_is_never_cited_under_its_old_path(
    tmp_path: Path, vault: Path, indexed: Index, embedder: Embedder, store: MemoryStore,
    llm: Any,
) -> None:
    memory = _memory(tmp_path, indexed, embedder, store, llm, "k2")
    memory.remember("user", "My oven is named Brunhilde and my sourdough bread rises in it.")
    memory.remember("assistant", "Your oven Brunhilde bakes your sourdough bread [1].")
    assert memory.note_path == "Chats/Ora/k2.md"
    indexed.apply_paths(["Chats/Ora/k2.md"])
    # The user renames the note in Obsidian while nothing watches the vault.
    (vault / "Chats/Ora/k2.md").rename(vault / "Chats/Ora/Oven chat.md")
    memory.notes.sync()
    assert memory.note_path == "Chats/Ora/Oven chat.md"

    llm.reply = lambda body: "Brunhilde [1]."
    doc = await _ask(tmp_path, indexed, embedder, llm, "What is my oven called?", memory, k=5)
    assert doc["citations"]
    assert not [c["path"] for c in doc["citations"] if c["path"].startswith("Chats/")]
    assert "Brunhilde and my sourdough" not in _prompt(llm)
    assert "[[Chats/Ora/k2" not in (vault / "Chats/Ora/Oven chat.md").read_text(encoding="utf-8")


async def test_a_note_deleted_or_edited_since_it_was_indexed_is_neither_sent_nor_cited(
    tmp_path: Path, vault: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    llm.reply = lambda body: "Wild yeast [1]."
    before = await _ask(tmp_path, indexed, embedder, llm, QUESTION, k=4)
    assert SOURDOUGH in {c["path"] for c in before["citations"]}
    assert "lactobacilli" in _prompt(llm)

    (vault / SOURDOUGH).unlink()  # deleted with no watcher running: its chunks stay indexed
    llm.requests.clear()  # no other note matches: the model may not be asked at all
    gone = await _ask(tmp_path, indexed, embedder, llm, QUESTION, k=4)
    assert SOURDOUGH not in {c["path"] for c in gone["citations"]}
    assert not any("lactobacilli" in str(body) for body in llm.requests)

    curve = "Engrams/Forgetting curve.md"
    query = "How does recall decay over days?"
    await _ask(tmp_path, indexed, embedder, llm, query, k=4)
    assert "Ebbinghaus" in _prompt(llm)
    path = vault / curve
    stamp = path.stat()
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 5_000_000_000))  # touched only
    await _ask(tmp_path, indexed, embedder, llm, query, k=4)
    assert "Ebbinghaus" in _prompt(llm)  # the same bytes: still the indexed note
    path.write_text(path.read_text(encoding="utf-8").replace("Ebbinghaus measured",
                                                             "Someone guessed"),
                    encoding="utf-8")
    llm.requests.clear()
    edited = await _ask(tmp_path, indexed, embedder, llm, query, k=4)
    assert curve not in {c["path"] for c in edited["citations"]}
    assert not any("Ebbinghaus" in str(body) for body in llm.requests)
