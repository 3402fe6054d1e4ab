"""A pulled model's files are checked against the digests its pull recorded (`source.json`)
before they are loaded: a file replaced after the pull is refused, naming the file and the
repair, by the re-ranker's, the NLI judge's and a pulled embedder's loaders alike."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.errors import ModelUnavailable
from sidecar.models.catalogue import catalogue, pull
from sidecar.models.choice import load_embedder
from sidecar.models.files import TamperedModel
from sidecar.models.nli import load_nli
from sidecar.models.reranker import OnnxCrossEncoder, build_reranker, reranker_folder
from sidecar.settings import Config, make_config

from .loopback_hub import LoopbackHub, RunningApp, repo_files

LOADERS: dict[str, Callable[[Config], Any]] = {
    "ms-marco-minilm-l6": lambda config: OnnxCrossEncoder(reranker_folder(config)),
    "nli-deberta-v3-xsmall": load_nli,
    "bge-small-en-v1.5": lambda config: load_embedder(
        config.with_values(embed_model="bge-small-en-v1.5"), defer=True),
}
LABELS = {"ms-marco-minilm-l6": ("LABEL_0",),
          "nli-deberta-v3-xsmall": ("contradiction", "entailment", "neutral"),
          "bge-small-en-v1.5": ()}


def _pulled(tmp_path: Path, write_tiny: Any, name: str) -> tuple[Config, Path]:
    """`name` pulled from a loopback hub serving a tiny model of its kind; its folder."""
    tiny = write_tiny(tmp_path / "tiny", labels=LABELS[name], seed=3)
    hub = LoopbackHub({catalogue()[name].repo: repo_files(tiny)})
    (tmp_path / "vault").mkdir()
    with RunningApp(hub.app()) as url:
        config = make_config(tmp_path / "vault", tmp_path / "data", hf_endpoint=url,
                             models_dir=str(tmp_path / "models"), cohere_api_key="",
                             reranker_dir="", nli_dir="")
        manifest = asyncio.run(pull(config, name, lambda *_: None))
    return config, Path(manifest["folder"])


@pytest.mark.parametrize("name", list(LOADERS))
def test_a_model_file_replaced_after_the_pull_is_refused_naming_it_and_the_repair(
    tmp_path: Path, write_tiny: Any, name: str
) -> None:
    """QA: the re-ranker loaded a model.onnx swapped after the pull without any check."""
    config, folder = _pulled(tmp_path, write_tiny, name)
    LOADERS[name](config)  # as pulled, it loads
    other = write_tiny(tmp_path / "other", labels=LABELS[name], seed=99)
    shutil.copy(other / "model.onnx", folder / "model.onnx")  # same size, other weights
    with pytest.raises(TamperedModel) as refused:
        LOADERS[name](config)
    message = refused.value.message
    assert str(folder / "model.onnx") in message and "changed since it was pulled" in message
    recorded = json.loads((folder / "source.json").read_text())["files"]["model.onnx"]["sha256"]
    assert recorded in message and f"run `ora models pull {name}` again" in message
    assert refused.value.code == "model_tampered"


def test_a_changed_tokenizer_is_refused_and_search_says_why_it_has_no_re_ranker(
    tmp_path: Path, write_tiny: Any
) -> None:
    config, folder = _pulled(tmp_path, write_tiny, "ms-marco-minilm-l6")
    tokenizer = folder / "tokenizer.json"
    tokenizer.write_text(tokenizer.read_text(encoding="utf-8").replace("[UNK]", "[UNK!]"),
                         encoding="utf-8")
    reranker, reason = build_reranker(config)
    assert reranker is None
    assert str(tokenizer) in reason and "ora models pull ms-marco-minilm-l6" in reason


def test_a_pulled_file_that_is_gone_is_refused_with_the_repair(
    tmp_path: Path, write_tiny: Any
) -> None:
    config, folder = _pulled(tmp_path, write_tiny, "nli-deberta-v3-xsmall")
    (folder / "config.json").unlink()
    with pytest.raises(ModelUnavailable, match=r"config\.json is gone since it was pulled.*"
                                               r"ora models pull nli-deberta-v3-xsmall"):
        load_nli(config)


def test_a_model_put_in_place_by_hand_has_no_manifest_and_loads(
    tmp_path: Path, tiny_reranker_dir: Path
) -> None:
    folder = tmp_path / "models" / "reranker"
    shutil.copytree(tiny_reranker_dir, folder)  # an optimum export copied in, no source.json
    config = make_config(tmp_path, models_dir=str(tmp_path / "models"), reranker_dir="")
    assert OnnxCrossEncoder(reranker_folder(config)).name.startswith("onnx:reranker:")
