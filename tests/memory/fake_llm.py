"""A real loopback aiohttp server speaking the OpenAI chat-completions format.

Tests set `mode` ("ok", "error", "slow", "garbled") and `reply` (request body → content) and read
`requests`, the bodies received, to count and inspect the calls the sidecar makes. With `streams`,
`pieces` (when set) are the streamed pieces exactly (JSON-escaped: a lone surrogate goes as
`\\ud83d`), `piece_delay` seconds apart; `sent` counts the pieces written.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from aiohttp import web

from tests.loopback import LoopbackServer

Body = dict[str, Any]


def echo_reply(body: Body) -> str:
    return f"reply to: {body['messages'][-1]['content'][:40]}"


class FakeLLM(LoopbackServer):
    def __init__(self) -> None:
        super().__init__()
        self.requests: list[Body] = []
        self.headers: list[dict[str, str]] = []
        self.mode = "ok"
        self.delay = 3.0
        self.reply: Callable[[Body], str] = echo_reply
        # Answer requests asking for a stream with server-sent chunks (else one JSON document).
        self.streams = False
        self.pieces: list[str] | None = None
        self.piece_delay = 0.0
        self.sent = 0

    async def _handle(self, request: web.Request) -> web.Response:
        body: Body = await request.json()
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        if self.mode == "error":
            return web.json_response({"error": {"message": "model overloaded"}}, status=500)
        if self.mode == "slow":
            await asyncio.sleep(self.delay)
        if self.mode == "garbled":
            return web.json_response({"object": "chat.completion", "choices": []})
        if self.streams and body.get("stream"):
            return await self._stream(request, self.reply(body))
        message = {"role": "assistant", "content": self.reply(body)}
        return web.json_response({"id": f"c{len(self.requests)}", "object": "chat.completion",
                                  "model": body.get("model"), "choices": [
                                      {"index": 0, "message": message, "finish_reason": "stop"}]})

    async def _stream(self, request: web.Request, content: str) -> web.StreamResponse:
        """The reply as OpenAI-style server-sent chunks, one per word (`streams` mode)."""
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        words = content.split(" ")
        pieces = self.pieces if self.pieces is not None else [
            word if n == len(words) - 1 else f"{word} " for n, word in enumerate(words)]
        try:
            for piece in pieces:
                chunk = {"choices": [{"index": 0, "delta": {"content": piece}}]}
                await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.sent += 1
                await asyncio.sleep(self.piece_delay)
            await response.write(b"data: [DONE]\n\n")
            await response.write_eof()
        except ConnectionError:  # the sidecar abandoned the call
            pass
        return response

    def with_system(self, prompt: str) -> list[Body]:
        """The requests whose first message is the system prompt `prompt`."""
        return [b for b in self.requests if b["messages"][0]["content"] == prompt]

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self._handle)
