"""`ora serve --host 0.0.0.0 --allow-remote` accepts as Host the loopback names, the machine's
own names and the address a request arrived on, never any name (DNS rebinding)."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer

from sidecar.server.app import init_app
from sidecar.settings import Config
from tests.server.conftest import Api, server_config

# Linux routes all of 127.0.0.0/8 to the loopback interface: a second address of this machine
# that is not one of the loopback Host names, as a LAN address would be.
OTHER_ADDRESS = "127.0.0.2"


@pytest.fixture
async def wildcard(vault: Path, tmp_path: Path, aiohttp_client: Any) -> AsyncIterator[Api]:
    """The app as `ora serve --host 0.0.0.0 --allow-remote` builds it, listening on every
    IPv4 address; requests go to OTHER_ADDRESS."""
    config: Config = server_config(vault, tmp_path / "data", host="0.0.0.0")
    client = await aiohttp_client(TestServer(init_app(config, allow_remote=True),
                                             host="0.0.0.0"))
    token = (config.data / "token").read_text(encoding="utf-8").strip()
    yield Api(client.session.request, f"http://{OTHER_ADDRESS}:{client.port}", token,
              client.port)


async def _statuses(api: Any, host: str) -> tuple[int, int]:
    """(health, status with the token) for requests naming `host`."""
    health = await api.get("/v1/health", headers={"Host": host})
    status = await api.get("/v1/status", headers={"Host": host})
    return health.status, status.status


async def test_a_wildcard_remote_bind_refuses_any_other_host_name(wildcard: Any) -> None:
    # Before: a wildcard bind switched the Host check off: evil.com was served.
    port = wildcard.port
    for host in ("evil.com", f"evil.com:{port}", f"127.0.0.3:{port}", f"{OTHER_ADDRESS}:1"):
        assert await _statuses(wildcard, host) == (403, 403), host
    answer = await wildcard.get("/v1/status", headers={"Host": "evil.com"})
    assert answer.json["error"]["code"] == "forbidden"


async def test_a_wildcard_remote_bind_accepts_its_own_names_and_address(wildcard: Any) -> None:
    port = wildcard.port
    hosts = [f"{OTHER_ADDRESS}:{port}", f"127.0.0.1:{port}", f"localhost:{port}"]
    name = socket.gethostname().lower()
    if name and name != "localhost":
        hosts += [name, f"{name}:{port}"]
    for host in hosts:
        assert await _statuses(wildcard, host) == (200, 200), host
