"""A reply longer than `answer_max_tokens` allows is cut with one line, the same in the streamed
pieces and the final answer (the pieces join to it), saying only what Ora knows: where it cut,
never a count of what the model sent (the rest of the reply is not read)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sidecar.answers import AnswerLimits, answer
from sidecar.index import Index
from sidecar.models.embedder import Embedder
from sidecar.retrieval.search import SearchOptions

from .conftest import settings

QUESTION = "What leavens sourdough bread?"


async def test_a_cut_streamed_answer_joins_to_the_final_answer_and_its_cut_line(
    tmp_path: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    # Before: the pieces' line said "the model sent 9,219", the answer's "9,216", and neither
    # was what the model sent: only what was read of it.
    words = ["  Wild yeast [1]"] + [" word"] * 3000
    llm.reply = lambda body: "".join(words)
    llm.streams = True
    llm.pieces = words
    config = settings(tmp_path, llm_url=llm.url)
    most = AnswerLimits.load(config).max_chars
    streamed: list[str] = []

    async def on_delta(piece: str) -> None:
        streamed.append(piece)

    doc = await answer(config, indexed, embedder, None, QUESTION,
                       SearchOptions(k=4, rerank=False), on_delta=on_delta)
    assert doc["answer"].startswith("Wild yeast [1] word")
    assert doc["answer"].endswith(f"\n\n[Ora cut this answer at {most:,} characters: the "
                                  "model's reply was longer, more than answer_max_tokens allows.]")
    assert "".join(streamed) == doc["answer"]
    assert "sent" not in doc["answer"]
