"""The hub client's answer to a hub that breaks off: the HEAD that names a file is asked again as
the GET is, and a hub that keeps failing ends the pull with one message, never a traceback."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from sidecar.cli import main
from sidecar.errors import ModelUnavailable
from sidecar.models.catalogue import hub_settings, pull
from sidecar.models.hub import Offline
from sidecar.settings import make_config

from .loopback_hub import LoopbackHub, RunningApp, repo_files

RERANKER_REPO = "cross-encoder/ms-marco-MiniLM-L-6-v2"


@pytest.fixture
def hub(tiny_reranker_dir: Path) -> LoopbackHub:
    return LoopbackHub({RERANKER_REPO: repo_files(tiny_reranker_dir)})


@pytest.fixture
def endpoint(hub: LoopbackHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
             ) -> Iterator[str]:
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))
    with RunningApp(hub.app()) as url:
        monkeypatch.setenv("ORA_HF_ENDPOINT", url)
        yield url


def _heads(hub: LoopbackHub) -> int:
    return sum(method == "HEAD" for method, _path, _range in hub.requests)


def test_a_head_the_hub_drops_is_asked_again_and_the_model_installs(
    endpoint: str, hub: LoopbackHub, tmp_path: Path, tiny_reranker_dir: Path
) -> None:
    hub.drop_head = 2  # aiohttp asks a dropped HEAD again once by itself: the second is ours
    asyncio.run(pull(make_config(tmp_path), "ms-marco-minilm-l6", lambda *_: None))
    assert _heads(hub) == len(hub.repos[RERANKER_REPO]) + 2
    pulled = tmp_path / "models" / "reranker" / "model.onnx"
    assert pulled.read_bytes() == (tiny_reranker_dir / "model.onnx").read_bytes()


def test_a_hub_that_keeps_dropping_the_head_ends_the_pull_with_one_clear_message(
    endpoint: str, hub: LoopbackHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """QA: `ora models pull` printed aiohttp's ServerDisconnectedError traceback."""
    hub.drop_head = 1000
    with pytest.raises(ModelUnavailable, match="kept failing") as raised:
        asyncio.run(pull(make_config(tmp_path), "ms-marco-minilm-l6", lambda *_: None))
    assert not isinstance(raised.value, Offline)  # it answered the connection: not offline
    assert "ServerDisconnectedError" in raised.value.message
    assert "run the same command again" in raised.value.message
    # asked as often as a GET is tried (aiohttp may add a retry of its own on a reused connection)
    assert _heads(hub) >= hub_settings(make_config(tmp_path)).attempts > 1
    assert main(["models", "pull", "ms-marco-minilm-l6"]) == 2
    err = capsys.readouterr().err
    assert "kept failing" in err and "Traceback" not in err
    assert not (tmp_path / "models" / "reranker").exists()
