"""What an idle server gives back (`sidecar/server/resources.py`, `routes_claims.py`): the
embedder, the Chroma client and a local judge's model, reloaded by the next use; and what a
stopped one does."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from sidecar.cleaning.judges import NliJudge
from sidecar.index import idle
from sidecar.models.embedder import OnnxEmbedder
from sidecar.models.session import LazySession
from sidecar.server.app import init_app
from sidecar.server.resources import INDEX, MODELS
from sidecar.server.routes_claims import CLAIMS

from .conftest import Api, _token


async def _found(api: Api) -> list[tuple[str, float]]:
    answer = await api.post("/v1/search", {"query": "how does reviewing cards help memory",
                                           "k": 3, "rerank": False})
    assert answer.status == 200
    return [(r["path"], r["score"]) for r in answer.json["results"]]


async def _embedder_session(api: Api) -> LazySession:
    await api.wait_reconciled()
    assert api.app is not None
    embedder = api.app[MODELS].embedder
    assert isinstance(embedder, OnnxEmbedder)
    return embedder._session


async def test_an_idle_server_releases_the_embedder_and_chroma_and_searches_the_same_after(
    vault: Path, tmp_path: Path, configure: Callable[..., Any],
    api_for: Callable[..., Awaitable[Api]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(idle, "CHECK_S", 0.05)
    api = await api_for(configure(vault, tmp_path / "data", idle_release_s=0.2))
    session = await _embedder_session(api)
    assert api.app is not None
    chroma = api.app[INDEX].chroma
    before = await _found(api)
    deadline = time.monotonic() + 30
    while session.loaded or chroma.loaded:
        assert time.monotonic() < deadline, "the embedder or the Chroma client stayed loaded"
        await asyncio.sleep(0.05)
    opened = session.opens, chroma.opens  # a loaded machine may have released them before, too
    assert await _found(api) == before
    assert (session.opens, chroma.opens) == (opened[0] + 1, opened[1] + 1)


async def test_a_server_with_no_idle_period_keeps_the_embedder(
    vault: Path, tmp_path: Path, configure: Callable[..., Any],
    api_for: Callable[..., Awaitable[Api]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(idle, "CHECK_S", 0.05)
    api = await api_for(configure(vault, tmp_path / "data", idle_release_s=0.0))
    session = await _embedder_session(api)
    await _found(api)
    await asyncio.sleep(0.5)
    assert session.loaded and session.opens == 1
    assert api.app is not None and api.app[INDEX].chroma.opens == 1


async def test_an_idle_server_releases_its_nli_judge(
    vault: Path, tmp_path: Path, configure: Callable[..., Any], tiny_nli_dir: Path,
    api_for: Callable[..., Awaitable[Api]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(idle, "CHECK_S", 0.05)
    config = configure(vault, tmp_path / "data", idle_release_s=0.2, nli_dir=str(tiny_nli_dir),
                       llm_url="")
    api = await api_for(config)
    await api.wait_reconciled()
    assert api.app is not None
    judge = api.app[CLAIMS].judge
    assert isinstance(judge, NliJudge)
    session = judge._model._model.session
    deadline = time.monotonic() + 30
    while session.loaded:
        assert time.monotonic() < deadline, "the judge's model stayed loaded"
        await asyncio.sleep(0.05)


async def test_a_stopped_server_holds_no_model_session(
    vault: Path, tmp_path: Path, configure: Callable[..., Any], tiny_nli_dir: Path,
) -> None:
    """aiohttp's middleware cache keeps an app after its cleanup, and with it every object the
    app holds: a process that runs app after app (the tests did, 100 MiB each) must not keep
    their models loaded."""
    config = configure(vault, tmp_path / "data", nli_dir=str(tiny_nli_dir), llm_url="")
    app = init_app(config)
    async with TestClient(TestServer(app)) as client:
        assert client.port is not None
        api = Api(client.session.request, str(client.make_url("")).rstrip("/"), _token(config),
                  client.port)
        api.app = app
        embedder = await _embedder_session(api)
        await _found(api)
        judge = app[CLAIMS].judge
        assert isinstance(judge, NliJudge)
        with judge._model._model.session.use():
            pass
        assert embedder.loaded and judge._model._model.session.loaded
    assert not embedder.loaded
    assert not judge._model._model.session.loaded
