"""Server fixtures: a small vault, the app built by `init_app` (in-process), a live `ora serve`.

Both clients go through `Api`, which sends the token and checks every answer against
openapi.json (tests/server/contract.py), so every response the suite produces is validated.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from sidecar.server.app import init_app
from sidecar.settings import SETTINGS, Config, make_config
from tests.notes import write_notes

_spec = importlib.util.spec_from_file_location(
    "server_contract", Path(__file__).with_name("contract.py")
)
assert _spec is not None and _spec.loader is not None
contract = importlib.util.module_from_spec(_spec)
sys.modules["server_contract"] = contract
_spec.loader.exec_module(contract)
Answer = contract.Answer

ORA = Path(sys.executable).with_name("ora")
OBSIDIAN = "app://obsidian.md"

NOTES: dict[str, str] = {
    "Engrams/Spaced repetition.md": (
        "---\nnexus: []\ntype: engram\ntags:\n  - learning\n  - memory\n"
        "date created: 2024-01-02\ndate modified: 2024-03-04\n---\n"
        "# Spaced repetition\n\nReviewing a card just before it is forgotten strengthens memory.\n"
        "The intervals grow each time the recall succeeds, see [[Forgetting curve]].\n"
    ),
    "Engrams/Forgetting curve.md": (
        "---\nnexus: []\ntype: engram\ntags:\n  - memory\n"
        "date created: 2024-01-05\ndate modified: 2024-01-05\n---\n"
        "# Forgetting curve\n\nEbbinghaus measured how recall decays exponentially over days.\n"
    ),
    "Resources/Sourdough.md": (
        "---\nnexus: []\ntype: resource\ntags:\n  - science\n"
        "date created: 2023-06-01\ndate modified: 2023-06-01\n---\n"
        "# Sourdough\n\nA starter of wild yeast and lactobacilli leavens the bread dough.\n"
    ),
    "Inbox/No dates.md": (
        "---\nnexus: []\ntype: engram\ntags:\n  - writing\n---\n"
        "# No dates\n\nA note whose linter-managed dates are missing.\n"
    ),
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_notes(tmp_path / "vault", NOTES)


def server_config(vault: Path, data: Path, **overrides: Any) -> Config:
    """Deterministic settings: the packaged int8 embedder, no re-ranker files, no Cohere, and
    no background contradiction scans unless a test asks (`scan_delay`)."""
    models = data.parent / "models"
    return make_config(
        vault, data, embed_model="int8", models_dir=str(models), cohere_api_key="",
        reranker_dir=str(models / "absent-reranker"), **{"scan_delay": -1.0, **overrides},
    )


@pytest.fixture
def config(vault: Path, tmp_path: Path) -> Config:
    return server_config(vault, tmp_path / "data")


@pytest.fixture
def configure() -> Callable[..., Config]:
    """`server_config` for tests that build their own vault."""
    return server_config


class Api:
    """Requests with the token; every answer is checked against the OpenAPI document."""

    def __init__(self, send: Callable[..., Awaitable[aiohttp.ClientResponse]], base: str,
                 token: str, port: int) -> None:
        self._send = send
        self.base = base
        self.token = token
        self.port = port
        self.app: web.Application | None = None
        self.client: TestClient[Any, Any] | None = None  # in-process: closing it stops the app
        self.served: Served | None = None

    async def request(
        self, method: str, path: str, *, json: Any = None, data: bytes | None = None,
        headers: dict[str, str] | None = None, token: str | None = "",
    ) -> Any:
        sent = dict(headers or {})
        given = self.token if token == "" else token
        if given is not None:
            sent.setdefault("Authorization", f"Bearer {given}")
        async with await self._send(method, self.base + path, json=json, data=data,
                                    headers=sent) as response:
            answer = Answer(response.status, response.headers, await response.read())
        contract.check_response(method, path.split("?")[0], answer)
        return answer

    @contextlib.asynccontextmanager
    async def stream(self, path: str) -> AsyncIterator[aiohttp.ClientResponse]:
        """An open event stream (status and media type checked against the document)."""
        headers = {"Authorization": f"Bearer {self.token}"}
        async with await self._send("GET", self.base + path, headers=headers) as response:
            body = b"" if response.status == 200 else await response.read()
            contract.check_response("GET", path, Answer(response.status, response.headers, body))
            yield response

    @staticmethod
    async def next_event(
        response: aiohttp.ClientResponse, timeout: float = 30.0
    ) -> tuple[str, Any]:
        """The next server-sent event as (event, data); a `: ping` comment is ("ping", None)."""
        event, data = "", None
        while True:
            line = (await asyncio.wait_for(response.content.readline(), timeout)).decode()
            assert line, "the stream ended"
            line = line.rstrip("\n")
            if line == "" and event:
                return event, data
            if line.startswith(": ping"):
                return "ping", None
            if line.startswith("event: "):
                event = line.removeprefix("event: ")
            elif line.startswith("data: "):
                data = json.loads(line.removeprefix("data: "))

    async def get(self, path: str, **kw: Any) -> Any:
        return await self.request("GET", path, **kw)

    async def post(self, path: str, json: Any = None, **kw: Any) -> Any:
        return await self.request("POST", path, json=json, **kw)

    async def wait_reconciled(self, timeout: float = 120.0) -> dict[str, Any]:
        """The status document once the start-up reconcile has finished."""
        deadline = time.monotonic() + timeout
        while True:
            status: dict[str, Any] = (await self.get("/v1/status")).json
            if not status["reconcile"]["running"] and status["reconcile"]["phase"] != "pending":
                return status
            assert time.monotonic() < deadline, f"reconcile did not finish: {status}"
            await asyncio.sleep(0.1)


def _token(config: Config) -> str:
    return (config.data / "token").read_text(encoding="utf-8").strip()


@pytest.fixture
def api_for(aiohttp_client: Any) -> Callable[..., Awaitable[Api]]:
    """Build the in-process app from the same `init_app` that `ora serve` runs, and an Api."""

    async def make(config: Config, **kwargs: Any) -> Api:
        app = init_app(config, **kwargs)
        client: TestClient[Any, Any] = await aiohttp_client(app)
        assert client.port is not None
        base = str(client.make_url("")).rstrip("/")
        api = Api(client.session.request, base, _token(config), client.port)
        api.app, api.client = app, client
        return api

    return make


@pytest.fixture
async def api(config: Config, api_for: Callable[..., Awaitable[Api]]) -> Api:
    return await api_for(config)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_api(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Api]:
    """One app per module, for tests that only read (mark the module with loop_scope="module")."""
    root = tmp_path_factory.mktemp("shared")
    config = server_config(write_notes(root / "vault", NOTES), root / "data")
    app = init_app(config)
    async with TestClient(TestServer(app)) as client:
        assert client.port is not None
        base = str(client.make_url("")).rstrip("/")
        api = Api(client.session.request, base, _token(config), client.port)
        api.app = app
        yield api


class Served:
    """A live `ora serve` subprocess on a free loopback port; stderr goes to a file."""

    def __init__(self, config: Config, log: Path, args: tuple[str, ...] = (),
                 nofile: int | None = None) -> None:
        self.config = config
        self.log = log
        self._stderr = log.open("w")

        def limit() -> None:  # a lowered descriptor limit (RLIMIT_NOFILE), when asked for
            if nofile is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        self.proc = subprocess.Popen(
            [str(ORA), "serve", str(config.vault), "--data", str(config.data), "--port", "0",
             *args],
            stdout=subprocess.DEVNULL, stderr=self._stderr, env=_env(config), preexec_fn=limit,
        )
        self.port = self._wait_listening()

    def _wait_listening(self, timeout: float = 120.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(r"listening on http://127\.0\.0\.1:(\d+)", self.log.read_text())
            if found:
                return int(found.group(1))
            if self.proc.poll() is not None:
                raise AssertionError(f"ora serve exited early:\n{self.log.read_text()}")
            time.sleep(0.05)
        raise AssertionError(f"ora serve did not start:\n{self.log.read_text()}")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        finally:
            self._stderr.close()


def _env(config: Config) -> dict[str, str]:
    """The settings of `config` as ORA_* variables, so the subprocess runs the same way."""
    env = dict(os.environ)
    env.update({s.env: str(config.values[s.name]) for s in SETTINGS if s.name != "port"})
    return env


@contextlib.contextmanager
def _serving(folder: Path) -> Iterator[Callable[[Config], Served]]:
    started: list[Served] = []

    def start(config: Config, *args: str, nofile: int | None = None) -> Served:
        served = Served(config, folder / f"serve-{len(started)}.log", args, nofile)
        started.append(served)
        return served

    yield start
    for served in started:
        if served.proc.poll() is None:
            served.stop(signal.SIGKILL)


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[[Config], Served]]:
    """Start `ora serve` subprocesses; any still running are killed at the end of the test."""
    with _serving(tmp_path) as start:
        yield start


@contextlib.asynccontextmanager
async def _connected(served: Served) -> AsyncIterator[Api]:
    async with aiohttp.ClientSession() as session:
        api = Api(session.request, served.url, _token(served.config), served.port)
        api.served = served
        yield api


@pytest.fixture
def connect() -> Callable[[Served], contextlib.AbstractAsyncContextManager[Api]]:
    """`async with connect(served) as api`: an Api talking to a live server."""
    return _connected


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_live_api(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Api]:
    """One live `ora serve` per module (mark the module with loop_scope="module")."""
    root = tmp_path_factory.mktemp("live")
    config = server_config(write_notes(root / "vault", NOTES), root / "data")
    with _serving(root) as start:
        async with _connected(start(config)) as api:
            yield api
