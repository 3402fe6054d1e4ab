"""A streamed answer's pieces carry only the citation markers the model was given
(`prompt.GivenDeltas`), a marker split across pieces included: what the asker sees while the
answer streams is what the final document holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sidecar.answers import answer
from sidecar.answers.prompt import OPEN_MARKER_CHARS, GivenDeltas, given_refs
from sidecar.index import Index
from sidecar.models.embedder import Embedder
from sidecar.retrieval.search import SearchOptions

from .conftest import settings

QUESTION = "What leavens sourdough bread?"


async def _streamed(pieces: list[str], count: int) -> list[str]:
    """The pieces GivenDeltas sends for `pieces`, its held-back tail flushed at the end."""
    sent: list[str] = []

    async def on_delta(piece: str) -> None:
        sent.append(piece)

    deltas = GivenDeltas(count, on_delta)
    for piece in pieces:
        await deltas(piece)
    await deltas.flush()
    return sent


async def test_streamed_pieces_never_carry_a_marker_the_model_was_not_given() -> None:
    pieces = ["Yeast [", "1, ", "3] and cheese [", "7", "]. Flour [1", "2] and", " water [2]."]
    sent = await _streamed(pieces, 4)
    raw = "".join(pieces)
    assert "".join(sent) == given_refs(raw, 4) == "Yeast [1][3] and cheese. Flour and water [2]."
    assert not any(m in piece for piece in sent for m in ("7", "12", "[1,"))


async def test_an_open_bracket_that_is_no_marker_is_released_after_a_bounded_length() -> None:
    sent: list[str] = []

    async def on_delta(piece: str) -> None:
        sent.append(piece)

    deltas = GivenDeltas(4, on_delta)
    await deltas("Options [")
    assert "".join(sent) == "Options"
    await deltas("1 " * OPEN_MARKER_CHARS)  # not a marker still being written: sent unflushed
    assert "".join(sent).startswith("Options [1 1 ")
    await deltas.flush()
    assert "".join(sent) == "Options [" + "1 " * OPEN_MARKER_CHARS


async def test_a_streamed_answer_streams_only_the_given_markers(
    tmp_path: Path, indexed: Index, embedder: Embedder, llm: Any,
) -> None:
    llm.reply = lambda body: "Yeast [1] and cheese [9]."
    llm.streams = True
    llm.pieces = ["Yeast [", "1] and cheese [", "9", "]."]
    sent: list[str] = []

    async def on_delta(piece: str) -> None:
        sent.append(piece)

    doc = await answer(settings(tmp_path, llm_url=llm.url), indexed, embedder, None, QUESTION,
                       SearchOptions(k=4, rerank=False), on_delta=on_delta)
    assert doc["answer"] == "Yeast [1] and cheese."
    assert "".join(sent) == doc["answer"]
    assert not any("9" in piece for piece in sent)
