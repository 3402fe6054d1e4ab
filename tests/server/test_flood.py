"""A descriptor flood does not kill the server (issue 10 item 5), against a real `ora serve`.

Before: 1,100 half-sent connections at a 1,024-descriptor limit made the API time out, a note
written meanwhile was never indexed (`unable to open database file`), and half-sent connections
were held forever. Here the limit is lowered to 256 and 400 loopback connections each send half
a request: the server keeps a quarter of its descriptors for connections, evicts the oldest
half-sent one when a real client arrives, closes the rest after `header_timeout`, and keeps
indexing.
"""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.notes import write_notes

from .conftest import NOTES

LIMIT, FLOOD = 256, 400
NEW = "Engrams/Zebra.md"


def _half_sent(port: int, n: int) -> list[socket.socket]:
    out = []
    for _ in range(n):
        conn = socket.create_connection(("127.0.0.1", port), timeout=5)
        conn.sendall(b"GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
        out.append(conn)
    return out


def _closed_by_server(conn: socket.socket) -> bool:
    conn.settimeout(0.01)
    try:
        return conn.recv(1) == b""
    except TimeoutError:
        return False
    except OSError:  # reset
        return True


async def _searchable(api: Any, word: str, path: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        found = (await api.post("/v1/search", {"query": word, "rerank": False})).json
        if path in [r["path"] for r in found["results"]]:
            return
        assert time.monotonic() < deadline, found
        await asyncio.sleep(0.1)


@pytest.mark.slow
async def test_half_sent_connections_beyond_the_descriptor_limit_are_survived(
    tmp_path: Path, serve: Any, connect: Any, configure: Any
) -> None:
    config = configure(write_notes(tmp_path / "vault", NOTES), tmp_path / "data",
                       header_timeout=2.0)
    served = serve(config, nofile=LIMIT)
    async with connect(served) as api:
        await api.wait_reconciled()
        flood = await asyncio.to_thread(_half_sent, served.port, FLOOD)
        try:
            status = (await api.get("/v1/status")).json  # a real client still gets through
            assert status["last_error"] is None
            (config.vault / NEW).write_text(
                "---\nnexus: []\ntype: engram\ntags: []\n---\n# Zebra\n\nQuagga stripes.\n")
            await _searchable(api, "quagga stripes", NEW)  # indexed during the flood
            await asyncio.sleep(3)  # > header_timeout: every half-sent one is closed
            closed = sum(_closed_by_server(c) for c in flood)
        finally:
            for conn in flood:
                conn.close()
        status = (await api.get("/v1/status")).json
    assert closed == FLOOD
    assert status["last_error"] is None and status["tasks"]["watcher"]["running"]
    assert status["tasks"]["watcher"]["failures"] == 0
    log = served.log.read_text()
    assert "Too many open files" not in log and "Traceback" not in log


# Issue 25 item 12: connections that are not half-sent. With a 1,024-descriptor limit the server
# holds 256 connections; before, 256 idle keep-alive connections after a public GET /v1/health,
# or 300 event streams with the token, filled them all and the plugin's own requests were reset.
DEFAULT_NOFILE, KEEPALIVE, STREAMS, PLUGIN_REQUESTS = 1024, 256, 300, 8


def _open_flood(port: int, n: int, request: bytes) -> list[socket.socket]:
    """`n` connections that each send `request` and read the start of its answer, then stay
    open without a word more (an idle keep-alive connection, or a stream left unread)."""
    out = []
    for _ in range(n):
        conn = socket.create_connection(("127.0.0.1", port), timeout=5)
        out.append(conn)
        try:
            conn.sendall(request)
            conn.recv(4096)
        except OSError:  # closed by the server: the flood is what is being bounded
            continue
    return out


def _still_open(conn: socket.socket) -> bool:
    """Whether the server kept `conn` open (what it already sent is read and dropped)."""
    conn.settimeout(0.05)
    try:
        while conn.recv(65536):
            pass
    except TimeoutError:
        return True
    except OSError:  # reset
        return False
    return False  # an orderly close


async def _plugin_requests(port: int, token: str, n: int) -> list[int | str]:
    """`n` authenticated requests, each on a fresh connection as a restarted plugin makes them;
    the status of each, or the error that ended it."""
    outcomes: list[int | str] = []
    connector = aiohttp.TCPConnector(force_close=True)
    async with aiohttp.ClientSession(connector=connector) as session:
        for _ in range(n):
            try:
                async with session.get(f"http://127.0.0.1:{port}/v1/status",
                                       headers={"Authorization": f"Bearer {token}"},
                                       timeout=aiohttp.ClientTimeout(total=60)) as resp:
                    await resp.read()
                    outcomes.append(resp.status)
            except (aiohttp.ClientError, TimeoutError) as exc:
                outcomes.append(type(exc).__name__)
    return outcomes


@pytest.mark.slow
@pytest.mark.parametrize("with_token", [False, True])
async def test_idle_keep_alive_connections_do_not_lock_the_plugin_out(
    tmp_path: Path, serve: Any, connect: Any, configure: Any, with_token: bool
) -> None:
    """Without the token (a public GET /v1/health): at most the anonymous budget stays open.
    With it (a client that leaks keep-alive connections): the longest-idle ones give way."""
    config = configure(write_notes(tmp_path / "vault", NOTES), tmp_path / "data",
                       keepalive_timeout=120.0)  # the flood stays idle for the whole test
    served = serve(config, nofile=DEFAULT_NOFILE)
    async with connect(served) as api:
        await api.wait_reconciled()
        route, auth = (("/v1/status", f"Authorization: Bearer {api.token}\r\n") if with_token
                       else ("/v1/health", ""))
        request = (f"GET {route} HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n"
                   f"{auth}\r\n").encode()
        flood = await asyncio.to_thread(_open_flood, served.port, KEEPALIVE, request)
        try:
            outcomes = await _plugin_requests(served.port, api.token, PLUGIN_REQUESTS)
            kept = sum(_still_open(c) for c in flood)
        finally:
            for conn in flood:
                conn.close()
    assert outcomes == [200] * PLUGIN_REQUESTS
    if not with_token:
        assert kept <= int(config.max_anonymous_connections)  # the anonymous budget, not 256
    assert "Traceback" not in served.log.read_text()


@pytest.mark.slow
async def test_event_streams_beyond_their_budget_end_the_oldest_and_the_plugin_gets_through(
    tmp_path: Path, serve: Any, connect: Any, configure: Any
) -> None:
    config = configure(write_notes(tmp_path / "vault", NOTES), tmp_path / "data")
    served = serve(config, nofile=DEFAULT_NOFILE)
    async with connect(served) as api:
        await api.wait_reconciled()
        stream = (f"GET /v1/events/stream HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n"
                  f"Authorization: Bearer {api.token}\r\n\r\n").encode()
        flood = await asyncio.to_thread(_open_flood, served.port, STREAMS, stream)
        try:
            outcomes = await _plugin_requests(served.port, api.token, PLUGIN_REQUESTS)
            open_now = [_still_open(c) for c in flood]
            # and a stream opened now, as the plugin reconnects its own, is served
            mine = await asyncio.to_thread(_open_flood, served.port, 1, stream)
            served_mine = _still_open(mine[0])
            mine[0].close()
        finally:
            for conn in flood:
                conn.close()
    assert outcomes == [200] * PLUGIN_REQUESTS
    budget = int(config.max_streams)
    assert sum(open_now) == budget and all(open_now[-budget:])  # the newest ones live on
    assert served_mine
    assert "Traceback" not in served.log.read_text()
