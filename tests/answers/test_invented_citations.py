"""Citation markers the model invents: only the passages it was given can be cited, in the answer
returned, in a streamed answer's final document and in the chat note (`prompt.given_refs`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sidecar.answers import answer
from sidecar.answers.prompt import given_refs
from sidecar.index import Index
from sidecar.memory import ConversationMemory, Episodic, open_store
from sidecar.models.embedder import Embedder
from sidecar.retrieval.search import SearchOptions
from sidecar.settings import Config

from .conftest import settings

QUESTION = "What leavens sourdough bread?"
INVENTED = ("Sourdough uses wild yeast [1]. Also the moon is cheese [7]. "
            "And [0] and [3, 9] and [12].")
CLEANED = "Sourdough uses wild yeast [1]. Also the moon is cheese. And and [3] and."


async def _ask(config: Config, index: Index, embedder: Embedder,
               memory: ConversationMemory | None = None, streamed: list[str] | None = None,
               ) -> dict[str, Any]:
    async def on_delta(piece: str) -> None:
        assert streamed is not None
        streamed.append(piece)

    options = SearchOptions(k=4, private=False, rerank=False)
    return await answer(config, index, embedder, None, QUESTION, options, memory=memory,
                        on_delta=on_delta if streamed is not None else None)


def test_invented_numbers_leave_the_answer_and_groups_become_single_markers() -> None:
    assert given_refs(INVENTED, 4) == CLEANED
    assert given_refs("Both [1, 3] and [2; 2].", 4) == "Both [1][3] and [2]."
    assert given_refs("[7] Starts here.\nEnds [9]\n[W2] stays [8].", 4) == (
        "Starts here.\nEnds\n[W2] stays.")


async def test_invented_citation_numbers_reach_neither_the_asker_nor_the_chat_note(
    tmp_path: Path, vault: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    llm.reply = lambda body: INVENTED
    config = settings(tmp_path, llm_url=llm.url)
    store = open_store(config.data)
    try:
        memory = ConversationMemory(config, store, Episodic(indexed.chroma, "default"),
                                    embedder, "invented")
        doc = await _ask(config, indexed, embedder, memory)
        # The passages below the relevance floor are not given: their numbers go too.
        given = len(doc["citations"])
        assert 1 <= given <= 4
        assert doc["answer"] == given_refs(INVENTED, given)
        assert [c["n"] for c in doc["citations"] if c["cited"]] == [
            n for n in (1, 3) if n <= given]
        note_path = memory.note_path
        assert note_path is not None
        note = (vault / note_path).read_text(encoding="utf-8")
        assert doc["answer"] in note
        assert not any(m in note for m in ("[7]", "[0]", "[12]", "9]"))
    finally:
        store.close()


async def test_a_streamed_answer_ends_with_the_cleaned_answer(
    tmp_path: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    llm.reply = lambda body: "Yeast [1, 3] and cheese [7]."
    llm.streams = True
    streamed: list[str] = []
    doc = await _ask(settings(tmp_path, llm_url=llm.url), indexed, embedder, streamed=streamed)
    # The pieces carry only the numbers given, as the final document does.
    given = len(doc["citations"])
    assert doc["answer"] == given_refs("Yeast [1, 3] and cheese [7].", given)
    assert "".join(streamed) == doc["answer"]
    assert [c["n"] for c in doc["citations"] if c["cited"]] == [n for n in (1, 3) if n <= given]
