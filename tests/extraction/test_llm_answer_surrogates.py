"""A model's answer is text from outside: a JSON escape of a lone UTF-16 surrogate inside it
(`\\ud83d`, half an emoji) becomes U+FFFD when the answer is decoded, so the gate's embedder,
the JSON answer and a note can all hold the claim."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sidecar.extraction import IndexEngrams, load_source, plan_extraction
from sidecar.extraction.llm import parse_answer
from sidecar.extraction.proposals import Source, Turn
from sidecar.index import Index, open_index
from sidecar.models.embedder import Embedder

from .conftest import chat_text, chat_vault, settings

CLAIM = "Rye flour ferments faster than white flour because it holds more enzymes"
NOTE = "Chats/Ora/rye.md"
# the model's answer as it sends it: the escape is inside the JSON document it writes
ANSWER = ('{"proposals": [{"turn": 2, "text": "' + CLAIM + ' \\ud83d.", '
          '"title": "Rye flour \\udc00 ferments faster"}]}')


@pytest.fixture
def indexed(tmp_path: Path, embedder: Embedder) -> Iterator[tuple[Path, Index]]:
    vault = chat_vault(tmp_path / "vault", NOTE, chat_text("rye", [
        ("user", "Why does rye ferment fast?"), ("assistant", CLAIM + ".")]))
    index = open_index(settings(vault), embedder=embedder)
    index.reconcile()
    yield vault, index
    index.close()


async def test_a_lone_surrogate_escaped_in_the_answer_is_replaced_not_a_crash(
    indexed: tuple[Path, Index], embedder: Embedder, llm: Any,
) -> None:
    # Before: TypeError ("TextEncodeInput must be …") in the embedder, a traceback from
    # `ora extract` and a 500 from POST /v1/extract.
    vault, index = indexed
    llm.reply = lambda body: ANSWER
    config = settings(vault, llm_url=llm.url)
    plan = await plan_extraction(config, load_source(config, conversation="rye"),
                                 IndexEngrams(index, embedder, private=False))
    assert plan.extractor == "llm:test-model" and plan.fallback is None
    (proposal,) = plan.proposals
    assert proposal.text == CLAIM + " \ufffd."
    assert proposal.title == "Rye flour \ufffd ferments faster"
    json.dumps(plan.as_json(), ensure_ascii=False).encode("utf-8")  # no surrogate left


def test_a_surrogate_pair_escaped_in_the_answer_is_joined() -> None:
    source = Source("rye", NOTE, "h", [Turn(1, "user", "I love rye bread with butter.",
                                            False, 1, 1)], [], False, frozenset())
    (candidate,) = parse_answer('{"proposals": [{"turn": 1, "text": '
                                '"I love rye bread with butter \\ud83d\\ude00."}]}', source)
    assert candidate.text == "I love rye bread with butter \U0001f600."
