"""An endpoint ignoring `max_tokens`: `complete` reads its reply up to a bound, never whole, and
the answer it returns is cut there (`models/chat.py` `reply_chars`, `reply_bytes`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from aiohttp import web

from sidecar.models.chat import complete, reply_bytes, reply_chars
from sidecar.settings import Config, make_config
from tests.loopback import LoopbackServer

MAX_TOKENS = 64
TOTAL = 64 * 1024 * 1024  # what the endpoint would send, far past any bound
CHUNK = 256 * 1024
# Loopback socket buffers hold a few MB the client never reads; the whole reply is far more.
MOST_SENT = TOTAL // 4


class HugeReply(LoopbackServer):
    """Answers every request with TOTAL bytes of text, counting the bytes it managed to send."""

    def __init__(self) -> None:
        super().__init__()
        self.sent = 0
        self.done = asyncio.Event()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        streamed = bool(body.get("stream"))
        kind = "text/event-stream" if streamed else "application/json"
        response = web.StreamResponse(headers={"Content-Type": kind})
        await response.prepare(request)
        try:
            if not streamed:
                await self._send(response, b'{"choices":[{"message":{"content":"')
            while self.sent < TOTAL:
                await self._send(response, self._piece(streamed))
            await self._send(response, b"data: [DONE]\n\n" if streamed else b'"}}]}')
            await response.write_eof()
        except ConnectionError:  # the client stopped reading and closed: what we want
            pass
        finally:
            self.done.set()
        return response

    @staticmethod
    def _piece(streamed: bool) -> bytes:
        if not streamed:
            return b"a" * CHUNK
        chunk = {"choices": [{"index": 0, "delta": {"content": "a" * 4096}}]}
        return f"data: {json.dumps(chunk)}\n\n".encode() * (CHUNK // 4200)

    async def _send(self, response: web.StreamResponse, data: bytes) -> None:
        await response.write(data)
        self.sent += len(data)

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self._handle)


def _config(tmp_path: Path, url: str) -> Config:
    (tmp_path / "vault").mkdir(exist_ok=True)
    return make_config(tmp_path / "vault", tmp_path / "data", llm_url=url, llm_model="m",
                       llm_timeout=120.0)


async def _reply(tmp_path: Path, *, streamed: bool) -> tuple[str, int]:
    """The reply `complete` returns, and the bytes the endpoint sent before the client left."""
    server = await HugeReply().start()
    pieces: list[str] = []

    async def on_delta(piece: str) -> None:
        pieces.append(piece)

    try:
        text = await complete(_config(tmp_path, server.url), [{"role": "user", "content": "q"}],
                              private=False, max_tokens=MAX_TOKENS,
                              on_delta=on_delta if streamed else None)
        await asyncio.wait_for(server.done.wait(), 60)  # a bound, not a timing assertion
        return text, server.sent
    finally:
        await server.stop()


async def test_a_huge_json_reply_is_read_only_up_to_its_bound(tmp_path: Path) -> None:
    text, sent = await _reply(tmp_path, streamed=False)
    assert reply_bytes(MAX_TOKENS) < MOST_SENT
    assert set(text) == {"a"} and len(text) == reply_chars(MAX_TOKENS)
    assert sent < MOST_SENT


async def test_a_huge_streamed_reply_is_read_only_up_to_its_bound(tmp_path: Path) -> None:
    text, sent = await _reply(tmp_path, streamed=True)
    assert set(text) == {"a"} and len(text) == reply_chars(MAX_TOKENS)
    assert sent < MOST_SENT
