"""Which connection gives way when `ora serve` is at its connection limit, so the plugin's own
requests always get through.

Every open connection is in one class, judged by what it has done, never by what it claims:

- *waiting*: its first request's headers have not all arrived (closed after `header_timeout`);
- *anonymous*: it has never sent the valid token (only `GET /v1/health` and 401s so far);
- *trusted*: it has sent the valid token at least once;

and, at any moment, *busy* with a request, or *idle* between keep-alive requests. An event
stream (`text/event-stream`: the events stream, ask and pull streams) is a busy trusted one.

Budgets, each evicting the class's oldest connection rather than refusing the newest:

- at most `max_anonymous` connections that never sent the token (waiting ones included), never
  more than half the limit: a new one beyond it closes the oldest of them that is not busy;
- at most `max_streams` event streams at once: a new one beyond it ends the oldest stream
  (its client sees the stream end; the plugin reconnects its events stream);
- at the connection limit a new connection closes, in this order, the oldest waiting
  connection, the longest-idle anonymous one, the longest-idle trusted one; only when every
  open connection is busy is the new one closed instead.

So 256 idle keep-alive connections after a public `GET /v1/health`, or 300 event streams with
the token, hold at most their budget, and a fresh authenticated request always finds room.
(Before, only half-sent connections could be evicted: both floods made the plugin's requests
fail with resets, issue 25 item 12.)
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_server import Server


@dataclass
class Connection:
    """One open connection's class (module docstring), as the guard sees it."""

    guard: ConnectionGuard
    handler: RequestHandler
    transport: asyncio.Transport
    timer: asyncio.TimerHandle | None  # the header deadline while waiting
    trusted: bool = False
    busy: bool = False
    stream: bool = False
    idle_since: float = field(default_factory=lambda: asyncio.get_running_loop().time())
    stream_since: float = 0.0

    @property
    def waiting(self) -> bool:
        return self.timer is not None

    def sent_the_token(self) -> None:
        """Called by the security middleware once the token checked out."""
        self.trusted = True

    def streaming(self) -> None:
        """Called when this connection's response turns out to be an event stream."""
        if not self.stream:
            self.stream = True
            self.stream_since = asyncio.get_running_loop().time()
            self.guard.stream_opened(self)


CONNECTION = web.RequestKey("ora_connection", Connection)


def connection_of(request: web.BaseRequest) -> Connection | None:
    """The guard's record of the connection `request` came on (None without a guard: tests
    that build the app alone)."""
    return request.get(CONNECTION)


async def note_stream(request: web.BaseRequest, response: web.StreamResponse) -> None:
    """on_response_prepare: tell the guard that this response is an event stream."""
    conn = connection_of(request)
    if conn is not None and response.content_type == "text/event-stream":
        conn.streaming()


class ConnectionGuard:
    """Installed on an aiohttp `Server`: counts connections by class and evicts by the budgets
    of the module docstring; `evicted` counts every connection it closed."""

    def __init__(self, server: Server, limit: int, header_timeout: float, *,
                 max_anonymous: int, max_streams: int) -> None:
        self.limit, self.header_timeout = limit, header_timeout
        self.max_anonymous = max(1, min(max_anonymous, limit // 2))
        self.max_streams = max(1, max_streams)
        self.evicted = 0
        self._conns: dict[RequestHandler, Connection] = {}  # oldest first
        self._made, self._lost = server.connection_made, server.connection_lost
        self._factory, self._handler = server.request_factory, server.request_handler
        server.connection_made = self._connection_made  # type: ignore[method-assign]
        server.connection_lost = self._connection_lost  # type: ignore[method-assign]
        server.request_factory = self._request
        server.request_handler = self._handle

    @property
    def open(self) -> int:
        return len(self._conns)

    def _connection_made(self, handler: RequestHandler, transport: asyncio.Transport) -> None:
        self._made(handler, transport)
        loop = asyncio.get_running_loop()
        timer = loop.call_later(self.header_timeout, self._drop_waiting, handler)
        conn = Connection(self, handler, transport, timer)
        if len(self._conns) >= self.limit:
            victim = self._victim()
            if victim is None:
                timer.cancel()
                transport.abort()  # every open connection is busy with a request
                return
            self._evict(victim)
        self._conns[handler] = conn
        if sum(not c.trusted for c in self._conns.values()) > self.max_anonymous:
            oldest = next((c for c in self._idle() if not c.trusted and c is not conn), None)
            if oldest is not None:
                self._evict(oldest)

    def _idle(self) -> list[Connection]:
        """The connections not busy with a request, oldest first."""
        return [c for c in self._conns.values() if not c.busy]

    def _victim(self) -> Connection | None:
        """Who gives way to a new connection at the limit (module docstring), or None."""
        idle = self._idle()
        waiting = [c for c in idle if c.waiting]
        if waiting:
            return waiting[0]
        for trusted in (False, True):
            group = [c for c in idle if c.trusted is trusted]
            if group:
                return min(group, key=lambda c: c.idle_since)
        return None

    def _evict(self, conn: Connection) -> None:
        # Forgotten now, not at connection_lost: a burst of new connections accepted in one go
        # must each free a different slot.
        self._conns.pop(conn.handler, None)
        if conn.timer is not None:
            conn.timer.cancel()
            conn.timer = None
        self.evicted += 1
        conn.transport.abort()

    def _drop_waiting(self, handler: RequestHandler) -> None:
        conn = self._conns.get(handler)
        if conn is not None and conn.waiting:
            self._evict(conn)

    def stream_opened(self, conn: Connection) -> None:
        """Within `max_streams`: the oldest streams end, never the one just opened."""
        streams = sorted((c for c in self._conns.values() if c.stream and c is not conn),
                         key=lambda c: c.stream_since)
        for oldest in streams[: max(0, len(streams) + 1 - self.max_streams)]:
            self._evict(oldest)

    def _connection_lost(self, handler: RequestHandler, exc: BaseException | None = None) -> None:
        conn = self._conns.pop(handler, None)
        if conn is not None and conn.timer is not None:
            conn.timer.cancel()
        self._lost(handler, exc)

    def _request(self, message: Any, payload: Any, protocol: RequestHandler, writer: Any,
                 task: Any) -> web.BaseRequest:
        request: web.BaseRequest = self._factory(message, payload, protocol, writer, task)
        conn = self._conns.get(protocol)
        if conn is not None:
            if conn.timer is not None:  # its headers are complete
                conn.timer.cancel()
                conn.timer = None
            request[CONNECTION] = conn
        return request

    async def _handle(self, request: web.BaseRequest) -> web.StreamResponse:
        conn = connection_of(request)
        if conn is None:
            return await self._handler(request)
        conn.busy = True
        try:
            return await self._handler(request)
        finally:
            conn.busy = conn.stream = False
            conn.idle_since = asyncio.get_running_loop().time()

