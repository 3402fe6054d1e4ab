from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from sidecar.errors import ModelUnavailable
from sidecar.models.bert_onnx import BertShape, bert_graph, build_bert_onnx, fused, random_weights
from sidecar.models.build import build_fp32_embedder, build_lock, ensure_embedders
from sidecar.models.embedder import (
    Embedder,
    OnnxEmbedder,
    available_variants,
    choose_variant,
    open_embedder,
)
from sidecar.models.files import minilm_source_dir
from sidecar.settings import make_config

REFERENCE = Path(__file__).parent / "data" / "reference_embeddings.json"


def test_fp32_build_matches_sentence_transformers_reference(fp32_embedder: Embedder) -> None:
    items = json.loads(REFERENCE.read_text(encoding="utf-8"))["items"]
    ours = fp32_embedder.embed([item["text"] for item in items])
    for vector, item in zip(ours, items, strict=True):
        assert float(vector @ np.asarray(item["vector"], dtype=np.float32)) > 0.9999


FUSED_OPS = {"Attention", "SkipLayerNormalization", "BiasGelu"}

# Real text of several lengths, so batches are padded: short queries, a paragraph, a long note.
REAL_TEXTS = [
    "Spaced repetition beats massed practice for long-term retention.",
    "zone two training",
    "The hippocampus consolidates episodic memories during slow-wave sleep; disrupting those "
    "oscillations in the first hours after learning impairs recall the next day, while "
    "boosting them with closed-loop auditory stimulation improves it. " * 3,
    "# Weekly review\n\nInbox zero, then the calendar, then the project list. Anything without "
    "a next action goes back to someday/maybe.",
    "Mitochondrial DNA mutations accumulate with age in post-mitotic tissues " * 20,
]


def test_fused_minilm_gives_the_built_embedders_vectors(fp32_models: Path, tmp_path: Path) -> None:
    fused_file = tmp_path / "fused" / "model.onnx"
    build_bert_onnx(minilm_source_dir(), fused_file, fuse=True)
    assert {node.op_type for node in onnx.load(str(fused_file)).graph.node} >= FUSED_OPS
    built = open_embedder("fp32", fp32_models)
    assert "Attention" not in {node.op_type for node in onnx.load(str(built.model_file)).graph.node}
    fast = OnnxEmbedder(fused_file, "fp32")
    assert fast.model_id != built.model_id  # another file: an index would re-embed
    cosines = (fast.embed(REAL_TEXTS) * built.embed(REAL_TEXTS)).sum(axis=1)
    assert (cosines > 0.9999).all(), cosines


def test_fused_tiny_encoder_keeps_outputs_and_ignores_padding() -> None:
    plain = bert_graph(random_weights(TINY, seed=5), TINY)
    model = fused(plain, TINY)
    assert {node.op_type for node in model.graph.node} >= FUSED_OPS
    ids, mask = [[1, 7, 9, 2, 0, 0], [1, 4, 5, 6, 8, 2]], [[1, 1, 1, 1, 0, 0], [1] * 6]
    (ours,) = _run(model.SerializeToString(), ids, mask)
    (reference,) = _run(plain.SerializeToString(), ids, mask)
    np.testing.assert_allclose(ours[0, :4], reference[0, :4], atol=1e-4)
    np.testing.assert_allclose(ours[1], reference[1], atol=1e-4)


def test_fp32_build_agrees_with_packaged_int8_model(
    fp32_embedder: Embedder, embedder: Embedder
) -> None:
    texts = ["Interleaving practice beats blocked practice.", "x " * 300, "Obsidian vault notes"]
    cosines = (fp32_embedder.embed(texts) * embedder.embed(texts)).sum(axis=1)
    assert (cosines > 0.98).all()


def test_fp32_model_id_differs_from_int8(fp32_embedder: Embedder, embedder: Embedder) -> None:
    assert fp32_embedder.model_id.split(":")[1] == "fp32"
    assert fp32_embedder.model_id != embedder.model_id


def test_auto_prefers_fp32_once_built(fp32_models: Path) -> None:
    assert available_variants(fp32_models) == ["fp32", "int8"]
    assert choose_variant("auto", fp32_models) == "fp32"


def test_build_is_skipped_when_source_unchanged(fp32_models: Path) -> None:
    again = build_fp32_embedder(fp32_models)
    assert again["built"] is False and Path(again["path"]).is_file()


def test_build_redone_when_builder_stamp_differs(tmp_path: Path) -> None:
    first = build_fp32_embedder(tmp_path)
    stamp = Path(first["path"]).with_name("build.json")
    stamp.write_text(json.dumps({"source_sha256": "old", "builder_version": 0}), encoding="utf-8")
    assert build_fp32_embedder(tmp_path)["built"] is True
    assert json.loads(stamp.read_text(encoding="utf-8"))["source_sha256"] == first["source_sha256"]


def test_ensure_builds_the_embedders_once_with_a_progress_line(tmp_path: Path) -> None:
    config = make_config(tmp_path, models_dir=str(tmp_path / "models"), embed_model="auto")
    lines: list[str] = []
    assert ensure_embedders(config, lines.append) is True
    assert lines[0].startswith("building the fp32, int8 (q8) and multilingual embedders from the "
                               "packaged")
    assert lines[-1].startswith("embedder built in")
    assert choose_variant("auto", config.models_path) == "q8"
    lines.clear()
    assert ensure_embedders(config, lines.append) is False and lines == []


def test_ensure_builds_only_the_multilingual_embedder_when_it_is_named(tmp_path: Path) -> None:
    config = make_config(tmp_path, models_dir=str(tmp_path / "models"),
                         embed_model="use-multilingual-v3")
    lines: list[str] = []
    assert ensure_embedders(config, lines.append) is True
    assert lines[0].startswith("building the multilingual embedder from the packaged weights")
    assert choose_variant("use-multilingual-v3", config.models_path) == "use-multilingual-v3"
    assert available_variants(config.models_path) == ["int8"]  # no fp32 or q8 built for it
    assert ensure_embedders(config, lines.append) is False


def test_a_second_builder_waits_for_the_first_and_does_not_build_again(
    multilingual_models: Path, tmp_path: Path,
) -> None:
    # Before: both built at once into the same temporary files, and one failed with a traceback.
    models = tmp_path / "models"
    config = make_config(tmp_path, models_dir=str(models), embed_model="use-multilingual-v3")
    lines: list[str] = []
    result: list[bool] = []
    with build_lock(models, print):  # another process building
        worker = threading.Thread(
            target=lambda: result.append(ensure_embedders(config, lines.append)))
        worker.start()
        deadline = time.monotonic() + 60
        while not lines and time.monotonic() < deadline:
            time.sleep(0.05)
        assert lines == [f"waiting for another process building the embedders in {models} …"]
        shutil.copytree(multilingual_models / "use-multilingual-v3",
                        models / "use-multilingual-v3")  # its build, done
    worker.join(60)
    assert result == [False] and len(lines) == 1  # found built: nothing built again


def test_ensure_builds_the_missing_q8_beside_an_older_fp32_build(fp32_models: Path,
                                                                 tmp_path: Path) -> None:
    models = tmp_path / "models"
    shutil.copytree(fp32_models, models)
    config = make_config(tmp_path, models_dir=str(models), embed_model="q8")
    assert ensure_embedders(config, print) is True
    assert available_variants(models) == ["q8", "fp32", "int8"]


def test_ensure_leaves_an_int8_setting_alone(tmp_path: Path) -> None:
    config = make_config(tmp_path, models_dir=str(tmp_path / "models"), embed_model="int8")
    assert ensure_embedders(config, print) is False
    assert not (tmp_path / "models").exists()


def test_ensure_falls_back_to_int8_when_auto_cannot_build(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")
    config = make_config(tmp_path, models_dir=str(blocker), embed_model="auto")
    lines: list[str] = []
    assert ensure_embedders(config, lines.append) is False
    assert "using the best one available" in lines[-1]
    assert choose_variant("auto", blocker) == "int8"
    with pytest.raises(ModelUnavailable, match="cannot build the fp32 embedder"):
        ensure_embedders(make_config(tmp_path, models_dir=str(blocker), embed_model="fp32"),
                             lines.append)


TINY = BertShape(vocab_size=50, hidden_size=16, num_layers=2, num_heads=2, intermediate_size=32)


def _run(model_bytes: bytes, ids: list[list[int]], mask: list[list[int]]) -> list[np.ndarray]:
    session = ort.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
    feed = {
        "input_ids": np.asarray(ids, dtype=np.int64),
        "attention_mask": np.asarray(mask, dtype=np.int64),
        "token_type_ids": np.zeros((len(ids), len(ids[0])), dtype=np.int64),
    }
    return [np.asarray(x) for x in session.run(None, feed)]


def test_tiny_encoder_outputs_last_hidden_state_and_ignores_padding() -> None:
    model = bert_graph(random_weights(TINY, seed=3), TINY).SerializeToString()
    (alone,) = _run(model, [[1, 7, 9, 2]], [[1, 1, 1, 1]])
    (padded,) = _run(model, [[1, 7, 9, 2, 0, 0]], [[1, 1, 1, 1, 0, 0]])
    assert alone.shape == (1, 4, 16)
    np.testing.assert_allclose(padded[:, :4], alone, atol=1e-5)


def test_classifier_weights_give_logits_per_label() -> None:
    weights = random_weights(TINY, num_labels=3, seed=4)
    weights = {f"bert.{k}" if not k.startswith("classifier") else k: v for k, v in weights.items()}
    model = bert_graph(weights, TINY)
    assert [o.name for o in model.graph.output] == ["logits"]
    (logits,) = _run(model.SerializeToString(), [[1, 5, 2], [1, 6, 2]], [[1, 1, 1]] * 2)
    assert logits.shape == (2, 3)


def test_non_bert_config_is_refused() -> None:
    with pytest.raises(ModelUnavailable, match="deberta"):
        BertShape.from_config({"model_type": "deberta-v2"})
