"""`ora models pull` against a loopback hub: the real download code, the hub's URL layout."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sidecar.cli import main
from sidecar.errors import Conflict, ModelUnavailable
from sidecar.index import open_index
from sidecar.index.reembed import describe
from sidecar.index_params import load_params
from sidecar.models.catalogue import catalogue, pull
from sidecar.models.choice import load_embedder
from sidecar.models.embedder import Embedder, OnnxEmbedder
from sidecar.models.hub import Offline, UnsafeRedirect
from sidecar.models.nli import load_nli
from sidecar.models.report import models_report
from sidecar.models.reranker import OnnxCrossEncoder, build_reranker
from sidecar.settings import Config, make_config

from ..index.conftest import KETTLE, stored_models, write
from .loopback_hub import LoopbackHub, RunningApp, repo_files

RERANKER_REPO = "cross-encoder/ms-marco-MiniLM-L-6-v2"
NLI_REPO = "cross-encoder/nli-deberta-v3-xsmall"
BGE_REPO = "BAAI/bge-small-en-v1.5"
ONNX = "onnx/model.onnx"


@pytest.fixture
def hub(tiny_reranker_dir: Path, tiny_nli_dir: Path) -> LoopbackHub:
    return LoopbackHub({RERANKER_REPO: repo_files(tiny_reranker_dir),
                        NLI_REPO: repo_files(tiny_nli_dir)})


@pytest.fixture
def endpoint(hub: LoopbackHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
             ) -> Iterator[str]:
    for env in ("ORA_RERANKER_DIR", "ORA_NLI_DIR", "ORA_COHERE_API_KEY", "ORA_EMBED_MODEL"):
        monkeypatch.delenv(env, raising=False)
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))
    with RunningApp(hub.app()) as url:
        monkeypatch.setenv("ORA_HF_ENDPOINT", url)
        yield url


def _config(tmp_path: Path) -> Config:
    return make_config(tmp_path)


def _pull(config: Config, name: str) -> dict[str, Any]:
    seen: list[tuple[str, int, int | None]] = []
    result = asyncio.run(pull(config, name, lambda f, d, t: seen.append((f, d, t))))
    result["progress"] = seen
    return result


def test_pulled_reranker_and_nli_are_found_without_settings_and_reported(
    endpoint: str, tmp_path: Path, tiny_reranker_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "pull", "ms-marco-minilm-l6", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    folder = tmp_path / "models" / "reranker"
    assert result["folder"] == str(folder)
    assert (folder / "model.onnx").read_bytes() == (tiny_reranker_dir / "model.onnx").read_bytes()
    assert result["files"]["model.onnx"]["sha256"] and result["files"]["tokenizer.json"]["git-sha1"]
    reranker, reason = build_reranker(_config(tmp_path))
    assert isinstance(reranker, OnnxCrossEncoder) and str(folder) in reason
    assert main(["models", "pull", "nli-deberta-v3-xsmall"]) == 0
    probs = load_nli(_config(tmp_path)).predict([("a cat", "an animal")])[0]
    assert max(probs, key=probs.__getitem__) == "entailment"
    capsys.readouterr()
    assert main(["models", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["reranker"]["available"] and report["nli"]["available"]
    installed = {row["name"]: row["installed"] for row in report["catalogue"]}
    assert installed == {"ms-marco-minilm-l6": True, "nli-deberta-v3-xsmall": True,
                         "bge-small-en-v1.5": False, "multilingual-e5-small": False}


def test_progress_is_reported_up_to_each_files_size(endpoint: str, tmp_path: Path) -> None:
    result = _pull(_config(tmp_path), "ms-marco-minilm-l6")
    last = {name: (done, total) for name, done, total in result["progress"]}
    for name, info in result["files"].items():
        assert last[name] == (info["size"], info["size"])


def test_a_truncated_transfer_resumes_with_a_range_request(
    endpoint: str, hub: LoopbackHub, tmp_path: Path, tiny_reranker_dir: Path
) -> None:
    hub.truncate[ONNX] = 1
    _pull(_config(tmp_path), "ms-marco-minilm-l6")
    size = len(hub.repos[RERANKER_REPO][ONNX])
    ranges = [r for method, path, r in hub.requests if method == "GET" and path.startswith("/cdn/")]
    assert ranges == [None, f"bytes={size // 2}-"]
    pulled = tmp_path / "models" / "reranker" / "model.onnx"
    assert pulled.read_bytes() == (tiny_reranker_dir / "model.onnx").read_bytes()


def test_an_interrupted_pull_installs_nothing_and_the_next_run_resumes(
    endpoint: str, hub: LoopbackHub, tmp_path: Path
) -> None:
    config = _config(tmp_path)
    hub.truncate[ONNX] = 10  # more than the attempts of one run
    with pytest.raises(ModelUnavailable, match="resume"):
        _pull(config, "ms-marco-minilm-l6")
    assert not (tmp_path / "models" / "reranker").exists()
    part = tmp_path / "models" / ".pull-ms-marco-minilm-l6" / "model.onnx.part"
    kept = part.stat().st_size
    assert kept > 0
    hub.truncate.clear()
    hub.requests.clear()
    _pull(config, "ms-marco-minilm-l6")
    ranges = [r for method, path, r in hub.requests if method == "GET" and path.startswith("/cdn/")]
    assert ranges == [f"bytes={kept}-"]
    assert build_reranker(config)[0] is not None
    assert not (tmp_path / "models" / ".pull-ms-marco-minilm-l6").exists()


def test_a_file_with_the_wrong_checksum_is_refused(
    endpoint: str, hub: LoopbackHub, tmp_path: Path
) -> None:
    hub.corrupt.add(ONNX)
    with pytest.raises(ModelUnavailable, match="refused"):
        _pull(_config(tmp_path), "ms-marco-minilm-l6")
    assert not (tmp_path / "models" / "reranker").exists()
    assert not list((tmp_path / "models").rglob("*.part"))


def test_a_renamed_repository_redirect_is_followed(
    endpoint: str, hub: LoopbackHub, tmp_path: Path
) -> None:
    hub.repos["old-org/reranker"] = hub.repos.pop(RERANKER_REPO)
    hub.renamed[RERANKER_REPO] = "old-org/reranker"
    _pull(_config(tmp_path), "ms-marco-minilm-l6")
    assert any(path.startswith("/old-org/") for _m, path, _r in hub.requests)


@pytest.mark.parametrize("where", ["redirect", "cdn_redirect"])
@pytest.mark.parametrize("target", ["file:///etc/passwd", "ftp://127.0.0.1/model.onnx"])
def test_a_redirect_to_a_non_http_url_is_refused_with_a_clear_error(
    endpoint: str, hub: LoopbackHub, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    where: str, target: str
) -> None:
    """Issue 25 item 17: a mirror's redirect to file:// gave a traceback."""
    getattr(hub, where)[ONNX] = target
    with pytest.raises(UnsafeRedirect, match=r"only http and https URLs are followed"):
        _pull(_config(tmp_path), "ms-marco-minilm-l6")
    assert main(["models", "pull", "ms-marco-minilm-l6"]) == 2  # one message, no traceback
    err = capsys.readouterr().err
    assert target in err and "Traceback" not in err
    assert not (tmp_path / "models" / "reranker").exists()


def test_a_non_http_endpoint_is_refused_before_any_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("ORA_HF_ENDPOINT", "file:///etc")
    with pytest.raises(UnsafeRedirect, match="set ORA_HF_ENDPOINT"):
        _pull(_config(tmp_path), "ms-marco-minilm-l6")


@pytest.mark.parametrize("declared", [False, True])
def test_a_file_longer_than_announced_is_stopped_at_the_announced_size(
    endpoint: str, hub: LoopbackHub, tmp_path: Path, declared: bool
) -> None:
    """Issue 25 item 17: a file announced at 100 bytes that sent 30 MB was written whole before
    the size check. Now nothing past the announced size is written."""
    hub.repos[RERANKER_REPO][ONNX] = b"o" * 100
    hub.oversize[ONNX] = 30 << 20
    hub.oversize_declared = declared  # a Content-Length of 30 MB, or a chunked body
    config = _config(tmp_path)
    seen: list[int] = []
    with pytest.raises(ModelUnavailable, match=r"more than the size the hub announced \(100 "):
        asyncio.run(pull(config, "ms-marco-minilm-l6", lambda f, done, t: seen.append(done)))
    assert max(seen, default=0) <= 100  # progress counts what was written
    assert not list((tmp_path / "models").rglob("model.onnx*"))
    assert not (tmp_path / "models" / "reranker").exists()


def test_a_new_pull_replaces_an_installed_model_whole(
    endpoint: str, hub: LoopbackHub, tmp_path: Path, tiny_nli_dir: Path
) -> None:
    config = _config(tmp_path)
    _pull(config, "ms-marco-minilm-l6")
    hub.repos[RERANKER_REPO] = repo_files(tiny_nli_dir)  # a new revision upstream
    _pull(config, "ms-marco-minilm-l6")
    folder = tmp_path / "models" / "reranker"
    assert (folder / "model.onnx").read_bytes() == (tiny_nli_dir / "model.onnx").read_bytes()
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["reranker"]


def test_an_unreachable_hub_says_the_machine_is_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("ORA_HF_ENDPOINT", "http://127.0.0.1:9")  # discard port: refused
    with pytest.raises(Offline, match="offline"):
        _pull(_config(tmp_path), "ms-marco-minilm-l6")
    assert main(["models", "pull", "ms-marco-minilm-l6"]) == 2
    assert "offline" in capsys.readouterr().err


def test_an_unknown_name_lists_the_catalogue(endpoint: str, tmp_path: Path) -> None:
    with pytest.raises(Exception, match="ms-marco-minilm-l6"):
        _pull(_config(tmp_path), "no-such-model")


def test_nothing_contacts_the_hub_unless_asked(
    endpoint: str, hub: LoopbackHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "--json"]) == 0
    build_reranker(_config(tmp_path))
    assert hub.requests == []


def test_a_pulled_embedder_is_chosen_by_name_and_the_index_re_embeds_with_it(
    endpoint: str, hub: LoopbackHub, tmp_path: Path, write_tiny: Any, embedder: Embedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hub.repos[BGE_REPO] = repo_files(write_tiny(tmp_path / "tiny-bge", seed=5))
    vault = tmp_path / "vault"
    write(vault, "Engrams/Kettle.md", KETTLE)
    with open_index(make_config(vault), writer=True, embedder=embedder) as index:
        index.reconcile()
    monkeypatch.setenv("ORA_EMBED_MODEL", "bge-small-en-v1.5")
    with pytest.raises(ModelUnavailable, match=r"ora models pull bge-small-en-v1\.5"):
        load_embedder(make_config(vault))
    _pull(_config(tmp_path), "bge-small-en-v1.5")
    config = make_config(vault)
    pulled = load_embedder(config)
    assert isinstance(pulled, OnnxEmbedder)
    assert pulled.model_id.startswith("bge-small-en-v1.5:onnx:") and pulled.dim == 32
    # As the server opens it (loaded at first use): its width read from its own config.json,
    # not the catalogue's 384, so the first embedding does not refuse the model.
    deferred = load_embedder(config, defer=True)
    assert not deferred.loaded and deferred.dim == 32
    assert deferred.embed(["kettle"]).shape == (1, 32)
    report = models_report(config)  # what GET /v1/models answers once the switch took effect
    assert (report["embedder"]["chosen"], report["embedder"]["model_id"]) == (
        "bge-small-en-v1.5", pulled.model_id)
    assert {r["name"]: r["active"] for r in report["catalogue"]}["bge-small-en-v1.5"]
    spec = catalogue()["bge-small-en-v1.5"].embedder or {}
    query = "how do I descale a kettle"
    np.testing.assert_allclose(pulled.embed_queries([query]),
                               pulled.embed([spec["query_prefix"] + query]))
    assert not np.allclose(pulled.embed_queries([query]), pulled.embed([query]))
    with open_index(config, writer=True, embedder=pulled) as index:
        estimate = index.reembedding
        assert estimate is not None
        assert (estimate["from"], estimate["to"]) == (embedder.model_id, pulled.model_id)
        assert estimate["chunks"] >= 1 and estimate["estimate_s"] >= 0
        assert "re-embedding" in describe(estimate)
        index.reconcile()
        assert stored_models(index) == {pulled.model_id}
    assert load_params(config.data)["namespaces"]["default"]["dim"] == 32


def test_pulled_multilingual_e5_marks_queries_and_passages_with_their_prefixes(
    endpoint: str, hub: LoopbackHub, tmp_path: Path, write_tiny: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Its repository keeps the tokenizer and config beside the ONNX export, under onnx/.
    hub.repos["intfloat/multilingual-e5-small"] = {
        f"onnx/{name}": data for name, data in
        ((path.rsplit("/", 1)[-1], data)
         for path, data in repo_files(write_tiny(tmp_path / "tiny-e5", seed=7)).items())}
    _pull(_config(tmp_path), "multilingual-e5-small")
    monkeypatch.setenv("ORA_EMBED_MODEL", "multilingual-e5-small")
    pulled = load_embedder(make_config(tmp_path / "vault"))
    assert isinstance(pulled, OnnxEmbedder)
    plain = OnnxEmbedder(pulled.model_file, pulled.variant,
                         tokenizer_file=pulled.model_file.with_name("tokenizer.json"))
    text, query = "Mit Hinweisblöcken hebst du Inhalte hervor.", "farbige Hinweise"
    np.testing.assert_allclose(pulled.embed([text]), plain.embed(["passage: " + text]),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(pulled.embed_queries([query]), plain.embed(["query: " + query]),
                               rtol=1e-5, atol=1e-6)


def test_cls_pooling_takes_the_first_tokens_state(
    endpoint: str, hub: LoopbackHub, tmp_path: Path, write_tiny: Any,
) -> None:
    hub.repos[BGE_REPO] = repo_files(write_tiny(tmp_path / "tiny-bge", seed=5))
    result = _pull(_config(tmp_path), "bge-small-en-v1.5")
    folder = Path(result["folder"])
    cls = OnnxEmbedder(folder / "model.onnx", "x", tokenizer_file=folder / "tokenizer.json",
                       pooling="cls")
    mean = OnnxEmbedder(folder / "model.onnx", "x", tokenizer_file=folder / "tokenizer.json")
    texts = ["a kettle", "limescale dissolves in vinegar slowly"]
    hidden = cls._hidden_states(texts)
    expected = np.zeros((2, 32), dtype=np.float32)
    for positions, states, _mask in hidden:
        first = states[:, 0]
        expected[positions] = first / np.linalg.norm(first, axis=1, keepdims=True)
    np.testing.assert_allclose(cls.embed(texts), expected, rtol=1e-5)
    assert not np.allclose(mean.embed(texts), expected)


def test_a_second_pull_of_the_same_model_meanwhile_is_refused_and_the_first_installs(
    endpoint: str, hub: LoopbackHub, tmp_path: Path, tiny_reranker_dir: Path
) -> None:
    """Two sidecars (two vaults) or the CLI and a sidecar share the models folder: a pull of a
    model another process is pulling must not write into the same partial files."""
    import asyncio

    hub.throttle = 0.01
    config = _config(tmp_path)

    async def both() -> list[Any]:
        found: list[Any] = await asyncio.gather(
            *(pull(config, "ms-marco-minilm-l6", lambda *_: None) for _ in range(2)),
            return_exceptions=True)
        return found

    first, second = asyncio.run(both())
    assert isinstance(first, dict), first
    assert isinstance(second, Conflict) and "being pulled" in second.message
    pulled = tmp_path / "models" / "reranker" / "model.onnx"
    assert pulled.read_bytes() == (tiny_reranker_dir / "model.onnx").read_bytes()
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["reranker"]
    _pull(config, "ms-marco-minilm-l6")  # once it is done, pulling again works


def test_an_unwritable_models_folder_is_a_clear_error(
    endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "file" / "models"))
    with pytest.raises(ModelUnavailable, match="cannot write the model into"):
        _pull(_config(tmp_path), "ms-marco-minilm-l6")
    assert main(["models", "pull", "ms-marco-minilm-l6"]) == 2
    assert "ORA_MODELS_DIR" in capsys.readouterr().err


def test_a_pull_that_cannot_check_its_staging_folder_leaves_no_descriptor_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    config = _config(tmp_path).with_values(models_dir=str(tmp_path / "models"))
    staging = tmp_path / "models" / ".pull-ms-marco-minilm-l6"
    stat = Path.stat

    def refused(self: Path, **kwargs: Any) -> os.stat_result:
        if self == staging:
            raise PermissionError(13, "Permission denied", str(self))
        return stat(self, **kwargs)

    monkeypatch.setattr(Path, "stat", refused)
    before = len(os.listdir("/proc/self/fd"))
    with pytest.raises(ModelUnavailable, match="cannot write the model into"):
        _pull(config, "ms-marco-minilm-l6")
    assert len(os.listdir("/proc/self/fd")) == before
