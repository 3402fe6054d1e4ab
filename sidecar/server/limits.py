"""Bounds on what connections may hold, so that a descriptor flood cannot kill the server.

Every connection costs a file descriptor, and the process needs descriptors of its own: SQLite
connections (one per thread), Chroma's files, the watcher, schema files. 1,100 half-sent loopback
connections at a 1,024-descriptor limit took them all: the API timed out, a file event was lost
(`unable to open database file`) and half-sent connections were held forever. So:

- at most `max_connections` connections are open, and never more than a quarter of the
  descriptor limit (`RLIMIT_NOFILE`; the listen backlog takes at most an eighth); at the limit
  a new connection evicts the oldest one that has not finished its request headers (a flood of
  half-sent connections cannot starve a real client, whose headers arrive at once), or is
  closed when every open one is busy;
- a connection must finish its first request's headers within `header_timeout` seconds; an idle
  keep-alive connection is closed after `keepalive_timeout` (aiohttp's own timer, which also
  ends a half-sent later request);
- a request body must arrive within `body_timeout` seconds (`body_deadline`, else 408).
"""

from __future__ import annotations

import asyncio
import resource
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_server import Server

from sidecar.errors import OraError


def connection_limits(configured: int) -> tuple[int, int]:
    """(most connections open, listen backlog) within the soft descriptor limit: a quarter of
    it for open connections, an eighth for the backlog (asyncio accepts up to a backlog's worth
    of connections in one go, before any can be closed), the rest for the process itself."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return configured, 128
    return max(1, min(configured, soft // 4)), max(8, min(128, soft // 8))


class ConnectionGuard:
    """Installed on an aiohttp `Server`: counts connections, evicts and times out half-sent
    ones (module docstring)."""

    def __init__(self, server: Server, limit: int, header_timeout: float) -> None:
        self.limit, self.header_timeout = limit, header_timeout
        self.open = 0
        self.evicted = 0
        # connections whose first request's headers have not arrived yet, oldest first
        self._waiting: dict[RequestHandler, tuple[asyncio.Transport, asyncio.TimerHandle]] = {}
        self._made, self._lost = server.connection_made, server.connection_lost
        self._factory = server.request_factory
        server.connection_made = self._connection_made  # type: ignore[method-assign]
        server.connection_lost = self._connection_lost  # type: ignore[method-assign]
        server.request_factory = self._request

    def _connection_made(self, handler: RequestHandler, transport: asyncio.Transport) -> None:
        self._made(handler, transport)
        self.open += 1
        if self.open > self.limit:
            if not self._waiting:
                transport.abort()  # every open connection is busy with a request
                return
            self._drop(next(iter(self._waiting)))
        timer = asyncio.get_running_loop().call_later(self.header_timeout, self._drop, handler)
        self._waiting[handler] = (transport, timer)

    def _drop(self, handler: RequestHandler) -> None:
        found = self._waiting.pop(handler, None)
        if found is not None:
            transport, timer = found
            timer.cancel()
            self.evicted += 1
            transport.abort()

    def _connection_lost(self, handler: RequestHandler, exc: BaseException | None = None) -> None:
        found = self._waiting.pop(handler, None)
        if found is not None:
            found[1].cancel()
        self.open -= 1
        self._lost(handler, exc)

    def _request(self, message: Any, payload: Any, protocol: RequestHandler, writer: Any,
                 task: Any) -> web.BaseRequest:
        found = self._waiting.pop(protocol, None)  # its headers are complete
        if found is not None:
            found[1].cancel()
        request: web.BaseRequest = self._factory(message, payload, protocol, writer, task)
        return request


class RequestTimeout(OraError):
    """The request body did not arrive in time."""

    code = "request_timeout"
    status = 408


def body_deadline(timeout: float) -> Callable[..., Awaitable[web.StreamResponse]]:
    """A middleware that reads the whole body first, within `timeout` seconds (the handler then
    reads it from memory; `client_max_size` still applies)."""

    @web.middleware
    async def middleware(request: web.Request,
                         handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                         ) -> web.StreamResponse:
        if request.body_exists:
            try:
                async with asyncio.timeout(timeout):
                    await request.read()
            except TimeoutError:
                raise RequestTimeout(
                    f"the request body did not arrive within {timeout:g} s") from None
        return await handler(request)

    return middleware
