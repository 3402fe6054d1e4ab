"""Grounded answers: [n] maps to the passage given, honest extractive answers without a model,
private notes kept out of non-private answers, conversation memory used and extended."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sidecar.answers import answer
from sidecar.answers.pipeline import NO_PASSAGES
from sidecar.answers.prompt import SYSTEM_PROMPT
from sidecar.index import Index
from sidecar.memory import ConversationMemory, Episodic, open_store
from sidecar.models.embedder import Embedder
from sidecar.retrieval.search import SearchOptions
from sidecar.settings import Config

from .conftest import PRIVATE_PATH, settings

QUESTION = "What leavens sourdough bread?"
SOURDOUGH = "Resources/Sourdough.md"
# One numbered passage of the prompt: [n] (path, lines a-b) then its text.
_BLOCK = re.compile(
    r"^\[(\d+)\] \(([^,]+), lines (\d+)-(\d+)\)\n(.*?)(?=\n\n\[\d+\] |\n\nQuestion: )", re.S | re.M)


def cite_the_passage_with(word: str) -> Any:
    """A model that answers by citing the numbered passage containing `word`."""
    def reply(body: dict[str, Any]) -> str:
        blocks = _BLOCK.findall(body["messages"][-1]["content"])
        n = next(n for n, _, _, _, text in blocks if word in text)
        return f"Wild yeast and {word} leaven the dough [{n}]."
    return reply


async def _ask(config: Config, index: Index, embedder: Embedder, question: str = QUESTION,
               *, private: bool = False, memory: ConversationMemory | None = None
               ) -> dict[str, Any]:
    options = SearchOptions(k=4, private=private, rerank=False)
    return await answer(config, index, embedder, None, question, options, memory=memory)


def _line_of(vault: Path, rel: str, fragment: str) -> int:
    lines = (vault / rel).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, start=1) if fragment in line)


async def test_a_cited_answer_maps_n_to_the_right_file_and_lines(
    tmp_path: Path, vault: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    llm.reply = cite_the_passage_with("lactobacilli")
    doc = await _ask(settings(tmp_path, llm_url=llm.url), indexed, embedder)
    assert doc["generator"] == "llm:test-model" and "generator_reason" not in doc
    (cited,) = [c for c in doc["citations"] if c["cited"]]
    assert f"[{cited['n']}]" in doc["answer"]
    assert cited["path"] == SOURDOUGH and "lactobacilli" in cited["text"]
    line = _line_of(vault, SOURDOUGH, "lactobacilli")
    assert cited["line_start"] <= line <= cited["line_end"]
    # The citations are exactly the passages the model was given, in the same numbering.
    (request,) = llm.requests
    assert request["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    given = _BLOCK.findall(request["messages"][-1]["content"])
    assert [(int(n), p, int(a), int(b)) for n, p, a, b, _ in given] == [
        (c["n"], c["path"], c["line_start"], c["line_end"]) for c in doc["citations"]]


async def test_without_a_model_the_answer_is_extractive_and_says_so(
    tmp_path: Path, indexed: Index, embedder: Embedder,
) -> None:
    doc = await _ask(settings(tmp_path), indexed, embedder)
    assert doc["generator"] == "none"
    assert "no language model is configured" in doc["generator_reason"]
    assert doc["answer"].startswith("No answer was generated: no language model is configured")
    for c in doc["citations"]:
        assert c["cited"] and f"[{c['n']}] {c['path']}:{c['line_start']}-{c['line_end']}" in (
            doc["answer"])
    assert doc["citations"][0]["path"] == SOURDOUGH


async def test_a_failing_model_falls_back_to_an_extractive_answer(
    tmp_path: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    llm.mode = "error"
    doc = await _ask(settings(tmp_path, llm_url=llm.url), indexed, embedder)
    assert doc["generator"] == "none" and "HTTP 500" in doc["generator_reason"]
    assert doc["answer"].startswith("No answer was generated: the language model at")


async def test_a_question_nothing_matches_is_answered_without_a_model_call(
    tmp_path: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    options = SearchOptions(k=4, rerank=False, namespace="empty")  # a namespace with no notes
    doc = await answer(settings(tmp_path, llm_url=llm.url), indexed, embedder, None, QUESTION,
                       options)
    assert doc["citations"] == [] and doc["answer"] == NO_PASSAGES
    assert doc["generator"] == "none" and "no passage" in doc["generator_reason"]
    assert llm.requests == []


async def test_a_non_private_answer_never_sees_private_notes(
    tmp_path: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    llm.reply = lambda body: "Flour and water [1]."
    config = settings(tmp_path, llm_url=llm.url)
    question = "What is my sourdough starter secret?"
    public = await _ask(config, indexed, embedder, question)
    assert PRIVATE_PATH not in {c["path"] for c in public["citations"]}
    assert "honey" not in str(llm.requests)
    private = await _ask(config, indexed, embedder, question, private=True)
    assert any(c["path"] == PRIVATE_PATH and c["private"] for c in private["citations"])
    assert "honey" in str(llm.requests[-1])


async def test_asking_in_a_conversation_uses_and_extends_its_memory(
    tmp_path: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    llm.reply = cite_the_passage_with("lactobacilli")
    config = settings(tmp_path, llm_url=llm.url)
    store = open_store(config.data)
    try:
        memory = ConversationMemory(config, store, Episodic(indexed.chroma, "default"),
                                    embedder, "kitchen")
        first = await _ask(config, indexed, embedder, memory=memory)
        second = await _ask(config, indexed, embedder, "And how often do I feed it?",
                            memory=memory)
        assert first["conversation"] == second["conversation"] == "kitchen"
        messages = llm.requests[-1]["messages"]
        assert {"role": "user", "content": QUESTION} in messages
        assert {"role": "assistant", "content": first["answer"]} in messages
        assert [(t.role, t.content) for t in memory.turns()] == [
            ("user", QUESTION), ("assistant", first["answer"]),
            ("user", "And how often do I feed it?"), ("assistant", second["answer"])]
    finally:
        store.close()
