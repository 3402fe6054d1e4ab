from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from sidecar.errors import ModelUnavailable
from sidecar.models.nli import OnnxNLI, load_nli
from sidecar.settings import make_config


def test_predict_gives_three_probabilities_per_pair(tiny_nli_dir: Path) -> None:
    nli = OnnxNLI(tiny_nli_dir)
    out = nli.predict([("The sky is blue.", "The sky is not blue."), ("a", "b" * 40)])
    assert len(out) == 2
    for probs in out:
        assert set(probs) == {"contradiction", "entailment", "neutral"}
        assert sum(probs.values()) == pytest.approx(1.0, abs=1e-6)
        assert max(probs, key=probs.__getitem__) == "entailment"  # the head's bias favours it


def test_label_order_comes_from_config_id2label(
    tmp_path: Path, write_tiny: Callable[..., Path]
) -> None:
    folder = write_tiny(tmp_path / "nli", labels=("entailment", "contradiction", "neutral"),
                        classifier_bias=(0.0, 3.0, -1.0))
    (probs,) = OnnxNLI(folder).predict([("a", "b")])
    assert max(probs, key=probs.__getitem__) == "contradiction"


def test_model_without_id2label_is_refused(tiny_nli_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "copy"
    folder.mkdir()
    for name in ("model.onnx", "tokenizer.json"):
        (folder / name).write_bytes((tiny_nli_dir / name).read_bytes())
    config = json.loads((tiny_nli_dir / "config.json").read_text(encoding="utf-8"))
    del config["id2label"]
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ModelUnavailable, match="id2label"):
        OnnxNLI(folder)


def test_reranker_model_is_not_an_nli_model(tiny_reranker_dir: Path) -> None:
    with pytest.raises(ModelUnavailable, match="labels"):
        OnnxNLI(tiny_reranker_dir)


def test_load_nli_reads_nli_dir_setting(tmp_path: Path, tiny_nli_dir: Path) -> None:
    nli = load_nli(make_config(tmp_path, nli_dir=str(tiny_nli_dir)))
    assert nli.name.startswith("onnx-nli:")


def test_load_nli_missing_model_points_to_instructions(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable, match="ora models"):
        load_nli(make_config(tmp_path, models_dir=str(tmp_path)))


def test_an_idle_nli_model_is_released_and_predicts_the_same_after(tiny_nli_dir: Path) -> None:
    nli = OnnxNLI(tiny_nli_dir)
    pairs = [("The sky is blue.", "The sky is not blue.")]
    before = nli.predict(pairs)
    assert nli.release(0.0)
    assert nli.predict(pairs) == before
