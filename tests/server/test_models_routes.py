"""`GET /v1/models` and `POST /v1/models/pull` (progress as server-sent events) on the real app,
pulling from the loopback hub."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from sidecar.models import multilingual
from sidecar.models.multilingual import build_multilingual
from sidecar.settings import Config, make_config

from ..answers.test_ask_stream import _events
from ..conftest import AppClient
from ..index.conftest import FERMENT, KETTLE, write
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
    row = {r["name"]: r for r in report["catalogue"]}["ms-marco-minilm-l6"]
    assert row["installed"] and row["active"]
    assert row["size"] == sum(len(b) for b in repo_files(tiny_reranker_dir).values())
    assert {r["name"]: r["size"] for r in report["catalogue"]}["bge-small-en-v1.5"] is None


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


async def _pull(api: AppClient, name: str) -> list[tuple[str, Any]]:
    headers = {"Authorization": f"Bearer {api.token}"}
    async with api.client.post("/v1/models/pull", json={"name": name}, headers=headers) as resp:
        return _events(await resp.read())


async def test_a_file_with_the_wrong_checksum_ends_the_stream_with_its_own_code(
    tmp_path: Path, tiny_reranker_dir: Path, app_client: AppFactory
) -> None:
    hub = LoopbackHub({"cross-encoder/ms-marco-MiniLM-L-6-v2": repo_files(tiny_reranker_dir)},
                      corrupt={"onnx/model.onnx"})
    (tmp_path / "vault").mkdir()
    with RunningApp(hub.app()) as url:
        api = await app_client(make_config(tmp_path / "vault", tmp_path / "data",
                                           hf_endpoint=url, models_dir=str(tmp_path / "models")))
        events = await _pull(api, "ms-marco-minilm-l6")
    assert events[-1][0] == "error"
    assert events[-1][1]["error"]["code"] == "checksum_mismatch"


async def test_switch_estimate_times_a_pulled_embedder_on_the_index_without_switching(
    tmp_path: Path, write_tiny: Any, app_client: AppFactory
) -> None:
    vault = tmp_path / "vault"
    write(vault, "Engrams/Kettle.md", KETTLE)
    write(vault, "Resources/Sourdough.md", FERMENT)
    hub = LoopbackHub({"BAAI/bge-small-en-v1.5": repo_files(write_tiny(tmp_path / "bge", seed=5))})
    with RunningApp(hub.app()) as url:
        api = await app_client(make_config(vault, tmp_path / "data", hf_endpoint=url,
                                           models_dir=str(tmp_path / "models")))
        await api.reconciled()
        status, missing = await api.call("POST", "/v1/models/switch-estimate",
                                         {"name": "bge-small-en-v1.5"})
        assert status == 503 and "ora models pull bge-small-en-v1.5" in missing["error"]["message"]
        assert (await _pull(api, "bge-small-en-v1.5"))[-1][0] == "installed"
    _, before = await api.call("GET", "/v1/status")
    status, estimate = await api.call("POST", "/v1/models/switch-estimate",
                                      {"name": "bge-small-en-v1.5"})
    assert status == 200 and estimate["reembeds"] is True
    assert estimate["from"] == before["model"] and estimate["to"].startswith("bge-small-en-v1.5:")
    assert estimate["chunks"] == before["chunks"] >= 2 and estimate["estimate_s"] >= 0
    _, after = await api.call("GET", "/v1/status")
    assert after["model"] == before["model"] and after["chunks"] == before["chunks"]
    _, report = await api.call("GET", "/v1/models")
    assert not {r["name"]: r["active"] for r in report["catalogue"]}["bge-small-en-v1.5"]
    variant = before["model"].split(":")[1]  # the packaged variant in use
    status, same = await api.call("POST", "/v1/models/switch-estimate", {"name": variant})
    assert status == 200 and same["reembeds"] is False and same["to"] == before["model"]
    status, unknown = await api.call("POST", "/v1/models/switch-estimate", {"name": "nope"})
    assert status == 400 and "int8" in unknown["error"]["message"]


async def test_closing_the_stream_cancels_the_pull_and_the_next_one_resumes(
    tmp_path: Path, tiny_reranker_dir: Path, app_client: AppFactory
) -> None:
    hub = LoopbackHub({"cross-encoder/ms-marco-MiniLM-L-6-v2": repo_files(tiny_reranker_dir)},
                      throttle=0.05)
    (tmp_path / "vault").mkdir()
    with RunningApp(hub.app()) as url:
        api = await app_client(make_config(tmp_path / "vault", tmp_path / "data",
                                           hf_endpoint=url, models_dir=str(tmp_path / "models")))
        headers = {"Authorization": f"Bearer {api.token}"}
        resp = await api.client.post("/v1/models/pull", json={"name": "ms-marco-minilm-l6"},
                                     headers=headers)
        while b"event: progress" not in await resp.content.readline():
            pass
        resp.close()  # what the plugin's Cancel does
        staging = tmp_path / "models" / ".pull-ms-marco-minilm-l6"
        sizes = [-1]
        while len(sizes) < 6 or len(set(sizes[-5:])) > 1:  # until the part stops growing
            await asyncio.sleep(0.1)
            part = staging / "model.onnx.part"
            sizes.append(part.stat().st_size if part.exists() else -1)
            assert len(sizes) < 200, sizes
        assert 0 < sizes[-1] < len(tiny_reranker_dir.joinpath("model.onnx").read_bytes())
        assert not (tmp_path / "models" / "reranker").exists()
        for _ in range(200):  # 409 until the server notices, at its next progress event
            async with api.client.post("/v1/models/pull", json={"name": "ms-marco-minilm-l6"},
                                       headers=headers) as again:
                if again.status != 409:
                    events = _events(await again.read())
                    break
            await asyncio.sleep(0.05)
    assert events[-1][0] == "installed"
    size = len(tiny_reranker_dir.joinpath("model.onnx").read_bytes())
    ranges = [r for method, path, r in hub.requests if method == "GET" and path.startswith("/cdn/")]
    assert len(ranges) == 2 and ranges[0] is None  # the second GET resumed the cancelled one
    kept = int((ranges[1] or "bytes=0-").removeprefix("bytes=").rstrip("-"))
    assert 0 < kept < size


async def test_switch_estimate_times_the_packaged_multilingual_embedder_once_it_is_built(
    tmp_path: Path, app_client: AppFactory
) -> None:
    # The language offer names it: it is not a catalogue model, and the plugin's switch asks
    # this route about it before restarting the sidecar with it.
    vault = tmp_path / "vault"
    write(vault, "Engrams/Kettle.md", KETTLE)
    write(vault, "Resources/Sourdough.md", FERMENT)
    models = tmp_path / "models"
    api = await app_client(make_config(vault, tmp_path / "data", embed_model="int8",
                                       models_dir=str(models)))
    await api.reconciled()
    status, missing = await api.call("POST", "/v1/models/switch-estimate",
                                     {"name": multilingual.NAME})
    assert status == 503 and "ora models build" in missing["error"]["message"]
    build_multilingual(models)
    _, before = await api.call("GET", "/v1/status")
    status, estimate = await api.call("POST", "/v1/models/switch-estimate",
                                      {"name": multilingual.NAME})
    assert status == 200 and estimate["reembeds"] is True
    assert estimate["from"] == before["model"]
    assert estimate["to"].startswith(f"{multilingual.NAME}:onnx:")
    assert estimate["chunks"] == before["chunks"] >= 2 and estimate["estimate_s"] >= 0
    _, after = await api.call("GET", "/v1/status")
    assert after["model"] == before["model"]  # asking switches nothing


async def test_models_report_names_the_packaged_multilingual_embedder_in_use_by_its_vectors_id(
    tmp_path: Path, multilingual_models: Path, app_client: AppFactory
) -> None:
    # The plugin's Models section tells the multilingual embedder from MiniLM by this report.
    vault = tmp_path / "vault"
    write(vault, "Engrams/Kettle.md", KETTLE)
    api = await app_client(make_config(vault, tmp_path / "data", embed_model=multilingual.NAME,
                                       models_dir=str(multilingual_models)))
    await api.reconciled()
    _, status = await api.call("GET", "/v1/status")
    code, report = await api.call("GET", "/v1/models")
    emb = report["embedder"]
    assert code == 200 and emb["chosen"] == multilingual.NAME
    assert emb["model_id"] == status["model"] and status["model"].startswith(
        f"{multilingual.NAME}:onnx:")
    assert emb["multilingual"] == {
        "name": multilingual.NAME, "available": True, "about": multilingual.spec()["about"],
        "file": str(multilingual.model_file(multilingual_models)), "model_id": status["model"]}
    assert emb["file"] == emb["multilingual"]["file"]
    assert emb["available"] == ["int8"]  # MiniLM's variants built here: the way back to English
