"""A marker naming a source the model was not given leaves the answer, the streamed pieces and
the chat note: a web result's `[Wn]` as a passage's `[n]` does (docs/http-api.md). A reply left
with nothing but such markers answers nothing: the answer is extractive, as when the model
fails, and no empty assistant turn is written or remembered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sidecar.answers import answer
from sidecar.index import Index
from sidecar.memory import ConversationMemory, Episodic, open_store
from sidecar.models.embedder import Embedder
from sidecar.retrieval.search import SearchOptions
from sidecar.settings import Config

from .conftest import settings

QUESTION = "What leavens sourdough bread?"


async def _ask(config: Config, index: Index, embedder: Embedder,
               memory: ConversationMemory | None = None,
               streamed: list[str] | None = None) -> dict[str, Any]:
    """The answer to QUESTION, its streamed pieces appended to `streamed` when given."""
    async def on_delta(piece: str) -> None:
        assert streamed is not None
        streamed.append(piece)

    return await answer(config, index, embedder, None, QUESTION,
                        SearchOptions(k=4, rerank=False), memory=memory,
                        on_delta=on_delta if streamed is not None else None)


def test_web_markers_not_given_are_taken_out_as_passage_markers_are() -> None:
    from sidecar.answers.web_sources import given_web_refs  # here: it is new with the fix

    assert given_web_refs("Sun [W1] and rain [W3].\n[W4] Wind [W2].", 2) == (
        "Sun [W1] and rain.\nWind [W2].")
    assert given_web_refs("Sun [W3].", 0) == "Sun."


async def test_a_web_marker_not_given_leaves_the_answer_and_the_chat_note(
    tmp_path: Path, vault: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    # Before: `[W3]` with no web result given stayed in the answer and the note.
    llm.reply = lambda body: "Wild yeast leavens it [1][W3]."
    config = settings(tmp_path, llm_url=llm.url)
    store = open_store(config.data)
    try:
        memory = ConversationMemory(config, store, Episodic(indexed.chroma, "default"),
                                    embedder, "web-marker")
        doc = await _ask(config, indexed, embedder, memory)
        assert doc["answer"] == "Wild yeast leavens it [1]."
        assert memory.note_path is not None
        assert "[W3]" not in (vault / memory.note_path).read_text(encoding="utf-8")
    finally:
        store.close()


async def test_streamed_pieces_carry_no_web_marker_not_given(
    tmp_path: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    llm.reply = lambda body: "Yeast [1] [W3] and flour [W"
    llm.streams = True
    llm.pieces = ["Yeast [1] [W", "3] and flour [W", "12]."]
    streamed: list[str] = []
    doc = await _ask(settings(tmp_path, llm_url=llm.url), indexed, embedder, streamed=streamed)
    assert doc["answer"] == "Yeast [1] and flour."
    assert "".join(streamed) == doc["answer"]
    assert not any("W" in piece for piece in streamed)


async def test_a_reply_of_only_markers_not_given_falls_back_to_the_extractive_answer(
    tmp_path: Path, vault: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    # Before: the answer was "" reported as generated, and an empty assistant turn was kept.
    llm.reply = lambda body: "[9][10] [W2]"
    config = settings(tmp_path, llm_url=llm.url)
    store = open_store(config.data)
    try:
        memory = ConversationMemory(config, store, Episodic(indexed.chroma, "default"),
                                    embedder, "only-markers")
        doc = await _ask(config, indexed, embedder, memory)
        assert doc["generator"] == "none"
        assert "citation markers" in doc["generator_reason"]
        assert doc["answer"].startswith("No answer was generated:")
        assert [t.role for t in memory.turns()] == ["user"]
        assert memory.note_path is not None
        note = (vault / memory.note_path).read_text(encoding="utf-8")
        assert "no answer" in note
    finally:
        store.close()


async def test_a_streamed_reply_of_only_markers_not_given_streams_nothing(
    tmp_path: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    llm.reply = lambda body: "[9][10]"
    llm.streams = True
    llm.pieces = ["[9", "][10]"]
    streamed: list[str] = []
    doc = await _ask(settings(tmp_path, llm_url=llm.url), indexed, embedder, streamed=streamed)
    assert doc["generator"] == "none" and doc["answer"].startswith("No answer was generated:")
    assert "".join(streamed) == ""
