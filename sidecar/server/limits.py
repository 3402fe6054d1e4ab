"""Bounds on what connections may hold, so that a descriptor flood cannot kill the server.

Every connection costs a file descriptor, and the process needs descriptors of its own: SQLite
connections (one per thread), Chroma's files, the watcher, schema files. 1,100 half-sent loopback
connections at a 1,024-descriptor limit took them all: the API timed out, a file event was lost
(`unable to open database file`) and half-sent connections were held forever. So:

- at most `max_connections` connections are open, and never more than a quarter of the
  descriptor limit (`RLIMIT_NOFILE`; the listen backlog takes at most an eighth); at the limit
  a new connection evicts a half-sent or idle one, by the budgets of
  `sidecar/server/connections.py` (`ConnectionGuard`), or is closed when every open one is busy;
- a connection must finish its first request's headers within `header_timeout` seconds; an idle
  keep-alive connection is closed after `keepalive_timeout` (aiohttp's own timer, which also
  ends a half-sent later request);
- a request body must arrive within `body_timeout` seconds (`body_deadline`, else 408).
"""

from __future__ import annotations

import asyncio
import resource
from collections.abc import Awaitable, Callable

from aiohttp import web

from sidecar.errors import OraError


def connection_limits(configured: int) -> tuple[int, int]:
    """(most connections open, listen backlog) within the soft descriptor limit: a quarter of
    it for open connections, an eighth for the backlog (asyncio accepts up to a backlog's worth
    of connections in one go, before any can be closed), the rest for the process itself."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return configured, 128
    return max(1, min(configured, soft // 4)), max(8, min(128, soft // 8))


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
