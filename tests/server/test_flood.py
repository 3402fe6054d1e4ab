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

import pytest

from .conftest import NOTES, write_vault

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
    config = configure(write_vault(tmp_path / "vault", NOTES), tmp_path / "data",
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
