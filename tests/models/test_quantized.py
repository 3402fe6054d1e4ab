"""The q8 embedder: `ora models build`'s int8 quantisation of the fp32 graph, and `auto`'s
choice between it and the variant an index was built with."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import onnx

from sidecar.index import open_index
from sidecar.index_params import save_namespace_params
from sidecar.models.bert_onnx import quantize
from sidecar.models.build import build_embedders
from sidecar.models.choice import indexed_variants, load_embedder
from sidecar.models.embedder import available_variants, choose_variant, open_embedder
from sidecar.models.files import file_sha256, fp32_model_file, q8_model_file
from sidecar.models.report import models_report
from sidecar.settings import make_config

TEXTS = [
    "Interleaving practice beats blocked practice for long-term retention.",
    "The mitochondria is the powerhouse of the cell; ATP synthase turns the rotor.",
    "Quarterly budget review: travel costs were 12% over plan in Q3.",
    "x " * 300,
    "Obsidian vault notes",
]


def test_q8_runs_the_weight_matmuls_in_int8(q8_models: Path) -> None:
    graph = onnx.load(str(q8_model_file(q8_models)), load_external_data=False).graph
    ops = {node.op_type for node in graph.node}
    assert ops & {"MatMulInteger", "DynamicQuantizeMatMul"}
    assert not any(node.op_type == "MatMul" and any(i.endswith("weight_t") for i in node.input)
                   for node in graph.node)


def test_q8_vectors_stay_close_to_fp32_but_are_a_model_of_their_own(q8_models: Path) -> None:
    fp32, q8 = open_embedder("fp32", q8_models), open_embedder("q8", q8_models)
    cosines = (fp32.embed(TEXTS) * q8.embed(TEXTS)).sum(axis=1)
    assert cosines.min() > 0.97 and cosines.mean() > 0.985
    assert q8.model_id.split(":")[1] == "q8" and q8.model_id != fp32.model_id
    assert np.allclose(np.linalg.norm(q8.embed(TEXTS), axis=1), 1.0, atol=1e-5)


def test_quantising_the_same_fp32_file_gives_the_same_bytes(q8_models: Path,
                                                             tmp_path: Path) -> None:
    again = tmp_path / "model.onnx"
    quantize(fp32_model_file(q8_models), again)
    assert file_sha256(again) == file_sha256(q8_model_file(q8_models))


def test_auto_prefers_q8_for_an_index_that_has_no_vectors_yet(q8_models: Path) -> None:
    assert available_variants(q8_models) == ["q8", "fp32", "int8"]
    assert choose_variant("auto", q8_models) == "q8"


def test_auto_keeps_the_variant_an_index_was_built_with(q8_models: Path, tmp_path: Path) -> None:
    assert choose_variant("auto", q8_models, ["fp32"]) == "fp32"
    assert choose_variant("auto", q8_models, ["int8"]) == "int8"
    assert choose_variant("auto", tmp_path, ["fp32"]) == "int8"  # not built here: the best left
    assert choose_variant("fp32", q8_models, ["q8"]) == "fp32"  # a named variant is obeyed


def test_the_index_file_names_its_variants(tmp_path: Path) -> None:
    assert indexed_variants(tmp_path) == []
    save_namespace_params(tmp_path, "vault", {"model": "all-MiniLM-L6-v2:fp32:0123456789ab"})
    save_namespace_params(tmp_path, "web", {"model": "bge-small-en-v1.5:onnx:0123456789ab"})
    save_namespace_params(tmp_path, "chat", {"model": "all-MiniLM-L6-v2:fp32:ba9876543210"})
    save_namespace_params(tmp_path, "srv", {"model": "remote:nomic-embed-text@h:11434:768"})
    save_namespace_params(tmp_path, "odd", {"model": "some-other-model:onnx:0123456789ab"})
    # A pulled embedder by its name, a server's model by its whole id (`auto` keeps either),
    # in the namespaces' order as saved (sorted).
    assert indexed_variants(tmp_path) == ["fp32", "remote:nomic-embed-text@h:11434:768",
                                          "bge-small-en-v1.5"]


def test_a_vault_indexed_with_fp32_keeps_it_once_q8_is_built(fp32_models: Path,
                                                               tmp_path: Path) -> None:
    """An upgrade that builds q8 must not re-embed a vault, nor embed its queries with another
    model than its vectors'."""
    vault, models = tmp_path / "vault", tmp_path / "models"
    vault.mkdir()
    (vault / "Sleep.md").write_text("Naps after lunch help me focus.\n", encoding="utf-8")
    shutil.copytree(fp32_models, models)
    config = make_config(vault, models_dir=str(models), embed_model="auto")
    with open_index(config) as index:
        assert index.reconcile()["embedded"] == 1
    build_embedders(models)
    assert load_embedder(config).variant == "fp32"  # what search embeds queries with, too
    assert models_report(config)["embedder"]["chosen"] == "fp32"  # and what the plugin shows
    (vault / "Sleep.md").write_text("Naps after lunch help me focus. Not after 4pm.\n",
                                    encoding="utf-8")
    with open_index(config) as index:
        assert index.reconcile()["embedded"] == 1  # the edited chunk alone, nothing re-embedded
        assert index.reembedding is None
    fresh = make_config(tmp_path / "other", models_dir=str(models), embed_model="auto")
    assert load_embedder(fresh).variant == "q8"
