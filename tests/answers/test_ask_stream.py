"""Streamed answers: the chat client hands on each streamed piece, and `POST /v1/ask/stream`
sends them as server-sent events before the whole answer document."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from sidecar.models.chat import complete
from sidecar.settings import Config

from ..conftest import AppClient
from .conftest import settings

QUESTION = "What leavens sourdough bread?"


def _events(body: bytes) -> list[tuple[str, Any]]:
    """(event, data) of a text/event-stream body."""
    out = []
    for block in body.decode().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            out.append((fields["event"], json.loads(fields["data"])))
    return out


async def test_complete_hands_on_each_streamed_piece_and_returns_the_whole(
    tmp_path: Path, llm: Any
) -> None:
    llm.streams = True
    llm.reply = lambda body: "Wild yeast and lactobacilli [1]."
    pieces: list[str] = []

    async def on_delta(piece: str) -> None:
        pieces.append(piece)

    config = settings(tmp_path, llm_url=llm.url)
    text = await complete(config, [{"role": "user", "content": "q"}], private=False,
                          max_tokens=50, on_delta=on_delta)
    assert text == "Wild yeast and lactobacilli [1]."
    assert pieces == ["Wild ", "yeast ", "and ", "lactobacilli ", "[1]."]
    assert llm.requests[-1]["stream"] is True
    # An endpoint that ignores "stream" and answers one document is handed on whole.
    llm.streams = False
    pieces.clear()
    assert await complete(config, [{"role": "user", "content": "q"}], private=False, max_tokens=50,
                          on_delta=on_delta) == "Wild yeast and lactobacilli [1]."
    assert pieces == ["Wild yeast and lactobacilli [1]."]
    # Without on_delta nothing asks for a stream.
    await complete(config, [{"role": "user", "content": "q"}], private=False, max_tokens=50)
    assert "stream" not in llm.requests[-1]


async def test_the_stream_route_sends_deltas_then_the_answer_document(
    tmp_path: Path, vault: Path, llm: Any, app_client: Callable[[Config], Awaitable[AppClient]],
) -> None:
    api = await app_client(settings(tmp_path, llm_url=llm.url))
    await api.reconciled()
    llm.streams = True
    llm.reply = lambda body: "A starter of wild yeast leavens it [1]."
    headers = {"Authorization": f"Bearer {api.token}"}
    async with api.client.post("/v1/ask/stream", json={"question": QUESTION},
                               headers=headers) as resp:
        assert resp.status == 200
        assert resp.headers["Content-Type"].startswith("text/event-stream")
        events = _events(await resp.read())
    kinds = [kind for kind, _ in events]
    assert kinds[-1] == "answer" and kinds[:-1] == ["delta"] * (len(kinds) - 1) and len(kinds) > 2
    streamed = "".join(data["text"] for kind, data in events if kind == "delta")
    document = events[-1][1]
    assert streamed == document["answer"] == "A starter of wild yeast leavens it [1]."
    assert document["generator"] == "llm:test-model" and document["citations"][0]["cited"]

    # Bad input is refused before the stream begins, as JSON.
    status, err = await api.call("POST", "/v1/ask/stream", {"question": ""})
    assert status == 400 and err["error"]["code"] == "bad_request"


async def test_a_model_failing_mid_answer_ends_the_stream_with_the_extractive_answer(
    tmp_path: Path, vault: Path, llm: Any, app_client: Callable[[Config], Awaitable[AppClient]],
) -> None:
    api = await app_client(settings(tmp_path, llm_url=llm.url))
    await api.reconciled()
    llm.mode = "error"
    headers = {"Authorization": f"Bearer {api.token}"}
    async with api.client.post("/v1/ask/stream", json={"question": QUESTION},
                               headers=headers) as resp:
        events = _events(await resp.read())
    assert [kind for kind, _ in events] == ["answer"]
    document = events[0][1]
    assert document["generator"] == "none" and "HTTP 500" in document["generator_reason"]
