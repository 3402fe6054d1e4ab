"""`GET /v1/models` and `POST /v1/models/pull` (progress as server-sent events) on the real app,
pulling from the loopback hub."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from sidecar.settings import Config, make_config

from ..answers.test_ask_stream import _events
from ..conftest import AppClient
from ..models.loopback_hub import LoopbackHub, RunningApp, repo_files

AppFactory = Callable[[Config], Awaitable[AppClient]]


async def test_a_pull_streams_progress_then_the_installed_manifest(
    tmp_path: Path, tiny_reranker_dir: Path, app_client: AppFactory
) -> None:
    hub = LoopbackHub({"cross-encoder/ms-marco-MiniLM-L-6-v2": repo_files(tiny_reranker_dir)})
    (tmp_path / "vault").mkdir()
    with RunningApp(hub.app()) as url:
        config = make_config(tmp_path / "vault", tmp_path / "data", hf_endpoint=url,
                             models_dir=str(tmp_path / "models"))
        api = await app_client(config)
        headers = {"Authorization": f"Bearer {api.token}"}
        async with api.client.post("/v1/models/pull", json={"name": "ms-marco-minilm-l6"},
                                   headers=headers) as resp:
            assert resp.status == 200
            assert resp.headers["Content-Type"].startswith("text/event-stream")
            events = _events(await resp.read())
    kinds = [kind for kind, _ in events]
    assert kinds[-1] == "installed" and set(kinds[:-1]) == {"progress"}
    size = len(tiny_reranker_dir.joinpath("model.onnx").read_bytes())
    assert {"file": "model.onnx", "done": size, "total": size} in [d for _k, d in events]
    assert events[-1][1]["folder"] == str(tmp_path / "models" / "reranker")
    assert events[-1][1]["restart"] is True
    status, report = await api.call("GET", "/v1/models")
    assert status == 200 and report["reranker"]["available"]
    assert {r["name"]: r["installed"] for r in report["catalogue"]}["ms-marco-minilm-l6"]


async def test_an_unknown_model_is_refused_before_the_stream(
    tmp_path: Path, app_client: AppFactory
) -> None:
    (tmp_path / "vault").mkdir()
    api = await app_client(make_config(tmp_path / "vault", tmp_path / "data",
                                       models_dir=str(tmp_path / "models")))
    status, err = await api.call("POST", "/v1/models/pull", {"name": "no-such-model"})
    assert status == 400 and "ms-marco-minilm-l6" in err["error"]["message"]


async def test_an_unreachable_hub_ends_the_stream_with_an_error(
    tmp_path: Path, app_client: AppFactory
) -> None:
    (tmp_path / "vault").mkdir()
    api = await app_client(make_config(tmp_path / "vault", tmp_path / "data",
                                       hf_endpoint="http://127.0.0.1:9",
                                       models_dir=str(tmp_path / "models")))
    headers = {"Authorization": f"Bearer {api.token}"}
    async with api.client.post("/v1/models/pull", json={"name": "ms-marco-minilm-l6"},
                               headers=headers) as resp:
        events = _events(await resp.read())
    assert events[-1][0] == "error" and "offline" in events[-1][1]["error"]["message"]
