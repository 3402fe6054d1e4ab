"""`POST /v1/models/pull` when the hub misbehaves: a stalled transfer the client cancels, and a
hub that drops the connection before answering (the real app, the loopback hub)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp

from sidecar.settings import Config, make_config

from ..answers.test_ask_stream import _events
from ..conftest import AppClient
from ..models.loopback_hub import LoopbackHub, RunningApp, repo_files
from .conftest import Api, Served

AppFactory = Callable[[Config], Awaitable[AppClient]]
REPO = "cross-encoder/ms-marco-MiniLM-L-6-v2"
ONNX = "onnx/model.onnx"
PULL = {"name": "ms-marco-minilm-l6"}


def _config(tmp_path: Path, url: str) -> Config:
    (tmp_path / "vault").mkdir(exist_ok=True)
    return make_config(tmp_path / "vault", tmp_path / "data", hf_endpoint=url,
                       models_dir=str(tmp_path / "models"))


def _post_pull(session: aiohttp.ClientSession, base: str, token: str) -> Any:
    return session.post(f"{base}/v1/models/pull", json=PULL,
                        headers={"Authorization": f"Bearer {token}"})


async def _pull_once_free(base: str, token: str) -> list[tuple[str, Any]]:
    """The events of the next pull the server accepts (409 while another one holds it)."""
    async with aiohttp.ClientSession() as session:
        for _ in range(200):
            async with _post_pull(session, base, token) as resp:
                if resp.status != 409:
                    events: list[tuple[str, Any]] = _events(await resp.read())
                    return events
            await asyncio.sleep(0.05)
    raise AssertionError("the cancelled pull still holds the models lock")


async def test_closing_the_stream_while_the_hub_stalls_cancels_the_pull_at_once(
    tmp_path: Path, tiny_reranker_dir: Path, vault: Path, configure: Callable[..., Config],
    serve: Callable[[Config], Served],
    connect: Callable[[Served], contextlib.AbstractAsyncContextManager[Api]],
) -> None:
    """QA: with the hub silent, the cancelled pull went on until the hub's 60 s read timeout
    (the next pull got 409 meanwhile) and could still install the model afterwards. A live
    `ora serve`: the in-process test server cancels a handler whose client hangs up, which
    `ora serve` (as aiohttp by default) does not."""
    hub = LoopbackHub({REPO: repo_files(tiny_reranker_dir)}, stall={ONNX: 1})
    size = len((tiny_reranker_dir / "model.onnx").read_bytes())
    with RunningApp(hub.app()) as url:
        config = configure(vault, tmp_path / "data", hf_endpoint=url)
        models = config.models_path
        try:
            async with connect(serve(config)) as api, aiohttp.ClientSession() as session:
                resp = await _post_pull(session, api.base, api.token)
                while b"event: progress" not in await resp.content.readline():
                    pass  # half of model.onnx arrived; the hub sends nothing more
                resp.close()  # what the plugin's Cancel does
                # The server hangs up on the stalled hub: its pull was cancelled. The bound is
                # only a failure's deadline, half the hub's read timeout that held it before.
                assert await asyncio.to_thread(hub.hung_up.wait, 30)
                assert not (models / "reranker").exists()
                part = models / ".pull-ms-marco-minilm-l6" / "model.onnx.part"
                kept = part.stat().st_size
                assert 0 < kept < size  # kept for the next pull to resume
                events = await _pull_once_free(api.base, api.token)
        finally:
            hub.unstall.set()  # the stalled handler (if still there) may end
    assert events[-1][0] == "installed"
    assert (models / "reranker" / "model.onnx").read_bytes() == (
        tiny_reranker_dir / "model.onnx").read_bytes()
    ranges = [r for method, path, r in hub.requests if method == "GET" and path.startswith("/cdn/")]
    assert ranges == [None, f"bytes={kept}-"]  # the next pull resumed the cancelled one's part


async def test_a_hub_that_drops_every_head_ends_the_stream_with_one_clear_error(
    tmp_path: Path, tiny_reranker_dir: Path, app_client: AppFactory
) -> None:
    """QA: the stream ended with code `internal` (aiohttp's ServerDisconnectedError)."""
    hub = LoopbackHub({REPO: repo_files(tiny_reranker_dir)}, drop_head=1000)
    with RunningApp(hub.app()) as url:
        api = await app_client(_config(tmp_path, url))
        events = await _pull_once_free(str(api.client.make_url("")).rstrip("/"), api.token)
    event, data = events[-1]
    assert event == "error" and data["error"]["code"] == "model_unavailable"
    assert "kept failing" in data["error"]["message"]
    assert "run the same command again" in data["error"]["message"]
