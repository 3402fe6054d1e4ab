"""Malformed requests a hostile local program can send answer 4xx with the error shape, never
500: a JSON body nested 100,000 deep, an `Authorization` header that is not ASCII. Sent as raw
bytes to a live `ora serve`, since a polite client would refuse to send them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def live_api(shared_live_api: Any) -> Any:
    return shared_live_api


async def _raw(port: int, head: bytes, body: bytes = b"") -> tuple[int, Any]:
    """(status, JSON body) of one raw HTTP/1.1 exchange with the server."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(head + b"\r\n" + body)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 30)
    finally:
        writer.close()
    status_line, _, rest = answer.partition(b"\r\n")
    payload = rest.split(b"\r\n\r\n", 1)[1]
    return int(status_line.split()[1]), json.loads(payload)


def _head(port: int, path: str, headers: list[bytes], length: int = 0) -> bytes:
    lines = [f"POST {path} HTTP/1.1".encode(), f"Host: 127.0.0.1:{port}".encode(),
             b"Content-Type: application/json", f"Content-Length: {length}".encode(),
             b"Connection: close", *headers]
    return b"\r\n".join(lines) + b"\r\n"


@pytest.mark.parametrize("shape", [b"[" * 100_000 + b"]" * 100_000,
                                   b'{"a":' * 100_000 + b"1" + b"}" * 100_000])
async def test_a_body_nested_100000_deep_is_400(live_api: Any, shape: bytes) -> None:
    auth = f"Authorization: Bearer {live_api.token}".encode()
    status, body = await _raw(live_api.port, _head(live_api.port, "/v1/search", [auth],
                                                   len(shape)), shape)
    assert status == 400, body
    assert body["error"]["code"] == "bad_request"
    assert "nested" in body["error"]["message"]


@pytest.mark.parametrize("token", ["Bearer tök€n".encode(), b"Bearer \xff\xfe",
                                   "Bearer 令牌".encode()])
async def test_a_non_ascii_authorization_header_is_401(live_api: Any, token: bytes) -> None:
    status, body = await _raw(live_api.port, _head(live_api.port, "/v1/status",
                                                   [b"Authorization: " + token]))
    assert status == 401, body
    assert body["error"]["code"] == "unauthorized"
