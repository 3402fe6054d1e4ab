"""Server-sent events: one hub fans progress, index and contradiction news out to every stream.

Each subscriber has a small bounded queue; a slow reader loses its oldest events rather than
holding memory or back-pressuring the publisher (every event carries a full state, not a delta,
so the newest one is enough).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any

from aiohttp import web

EVENT_KINDS = ("progress", "index", "contradictions", "cleaning")
PING_SECONDS = 15.0
_BACKLOG = 64

Event = tuple[str, dict[str, Any]]
Snapshot = Callable[[], list[Event]]


def format_event(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


class EventHub:
    """Publish/subscribe for the SSE stream; `close()` ends every open stream (shutdown)."""

    def __init__(self, ping_seconds: float = PING_SECONDS) -> None:
        self.ping_seconds = ping_seconds
        self._queues: set[asyncio.Queue[Event | None]] = set()
        self._closed = False

    @property
    def subscribers(self) -> int:
        return len(self._queues)

    def publish(self, event: str, data: dict[str, Any]) -> None:
        if event not in EVENT_KINDS:
            raise ValueError(f"unknown event {event!r}; choose from {', '.join(EVENT_KINDS)}")
        for queue in self._queues:
            if queue.full():
                queue.get_nowait()
            queue.put_nowait((event, data))

    @contextlib.contextmanager
    def subscribe(self) -> Iterator[asyncio.Queue[Event | None]]:
        queue: asyncio.Queue[Event | None] = asyncio.Queue(_BACKLOG)
        if self._closed:
            queue.put_nowait(None)
        self._queues.add(queue)
        try:
            yield queue
        finally:
            self._queues.discard(queue)

    def close(self) -> None:
        self._closed = True
        for queue in self._queues:
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(None)

    async def stream(
        self, request: web.Request, snapshot: Snapshot
    ) -> web.StreamResponse:
        """Answer one `GET /v1/events/stream`: the current state first, then live events."""
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        with self.subscribe() as queue:
            try:
                for event, data in snapshot():
                    await response.write(format_event(event, data))
                while True:
                    try:
                        item = await asyncio.wait_for(queue.get(), self.ping_seconds)
                    except TimeoutError:
                        await response.write(b": ping\n\n")
                        continue
                    if item is None:
                        break
                    await response.write(format_event(*item))
            except ConnectionResetError:
                return response  # the client went away; nothing left to tell it
        with contextlib.suppress(ConnectionResetError):  # it may go away while we close
            await response.write_eof()
        return response
