"""The relevance floor of answers (`pipeline.answer_floor`): a question the vault cannot answer gets
"nothing in your notes matches" without the model being asked, and a passage that does not match
the question is neither sent nor cited; search results themselves keep their top k."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sidecar.answers import answer
from sidecar.answers.pipeline import NO_PASSAGES, answer_floor
from sidecar.index import Index
from sidecar.memory import ConversationMemory, Episodic, open_store
from sidecar.models.embedder import Embedder
from sidecar.retrieval.search import SearchOptions, search
from sidecar.schema import load_json

from .conftest import settings

UNANSWERABLE = "what is the boiling point of tungsten"
NO_MATCH = "no passage in the vault matches the question"


async def test_a_question_the_vault_cannot_answer_asks_no_model_and_cites_nothing(
    tmp_path: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    config = settings(tmp_path, llm_url=llm.url)
    doc = await answer(config, indexed, embedder, None, UNANSWERABLE,
                       SearchOptions(k=4, rerank=False))
    assert doc["citations"] == []
    assert doc["answer"] == NO_PASSAGES
    assert (doc["generator"], doc["generator_reason"]) == ("none", NO_MATCH)
    assert llm.requests == []  # nothing sent: no passage, no question


async def test_in_a_conversation_the_model_still_answers_told_that_no_passage_matches(
    tmp_path: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    """A follow-up or a thank-you matches no note, but the conversation's turns may hold what is
    asked: the model is asked with no passage, and cites none."""
    config = settings(tmp_path, llm_url=llm.url)
    store = open_store(config.data)
    try:
        memory = ConversationMemory(config, store, Episodic(indexed.chroma, "default"),
                                    embedder, "follow-up")
        llm.reply = lambda body: "Wild yeast [1]."
        await answer(config, indexed, embedder, None, "What leavens sourdough bread?",
                     SearchOptions(k=4, rerank=False), memory=memory)
        llm.requests.clear()
        llm.reply = lambda body: "You are welcome [1]."
        doc = await answer(config, indexed, embedder, None, UNANSWERABLE,
                           SearchOptions(k=4, rerank=False), memory=memory)
    finally:
        store.close()
    assert doc["citations"] == [] and doc["generator"] != "none"
    assert doc["answer"] == "You are welcome."  # a number it was not given goes
    (request,) = llm.requests
    assert "Passages: none" in request["messages"][-1]["content"]
    assert any("Wild yeast" in m["content"] for m in request["messages"][:-1])


async def test_a_new_conversation_asks_no_model_though_another_one_asked_the_same(
    tmp_path: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    """Review: turns recalled from another conversation counted as this one's earlier turns, so
    a question matching no note went to the model in a brand-new conversation."""
    config = settings(tmp_path, llm_url=llm.url)
    store = open_store(config.data)
    try:
        for name in ("first", "second"):
            memory = ConversationMemory(config, store, Episodic(indexed.chroma, "default"),
                                        embedder, name)
            doc = await answer(config, indexed, embedder, None, UNANSWERABLE,
                               SearchOptions(k=4, rerank=False), memory=memory)
            assert (doc["generator"], doc["answer"]) == ("none", NO_PASSAGES), name
    finally:
        store.close()
    assert llm.requests == []


async def test_without_a_model_an_unanswerable_question_quotes_no_passage(
    tmp_path: Path, indexed: Index, embedder: Embedder,
) -> None:
    doc = await answer(settings(tmp_path), indexed, embedder, None, UNANSWERABLE,
                       SearchOptions(k=4, rerank=False))
    assert doc["citations"] == []
    assert doc["answer"] == NO_PASSAGES
    assert "[1]" not in doc["answer"]


async def test_search_itself_still_returns_its_top_k_for_that_question(
    indexed: Index, embedder: Embedder,
) -> None:
    found = await search(indexed, embedder, None, UNANSWERABLE, SearchOptions(k=3, rerank=False))
    assert len(found["results"]) == 3


async def test_passages_that_do_not_match_the_question_are_neither_sent_nor_cited(
    tmp_path: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    llm.reply = lambda body: "Wild yeast [1]."
    config = settings(tmp_path, llm_url=llm.url)
    doc = await answer(config, indexed, embedder, None, "What leavens sourdough bread?",
                       SearchOptions(k=4, rerank=False))
    paths = [c["path"] for c in doc["citations"]]
    assert "Resources/Sourdough.md" in paths
    assert "Engrams/Spaced repetition.md" not in paths
    sent = llm.requests[0]["messages"][-1]["content"]
    assert "Sourdough" in sent and "Spaced repetition" not in sent


def test_the_floor_is_the_embedders_measured_calibration_and_none_for_a_server() -> None:
    floor = float(load_json("ranking.json")["fusion"]["answer_floor"])
    assert answer_floor("all-MiniLM-L6-v2:int8:0123456789ab") == floor
    assert answer_floor("all-MiniLM-L6-v2:q8:0123456789ab") == floor
    # A server's vectors, even of a catalogued model: its scale is not known, so no floor.
    assert answer_floor("remote:bge-small-en-v1.5@localhost:8080") is None
    assert answer_floor("remote:all-MiniLM-L6-v2@localhost:8080") is None
    assert answer_floor("bge-small-en-v1.5:onnx:0123456789ab") is None  # not measured
