"""fp32 BERT ONNX graphs from safetensors weights, written with `onnx.helper` (no torch).

The graph is the Hugging Face BertModel forward pass: word + position + token-type embeddings
and LayerNorm, then N layers of multi-head self-attention and an exact-GELU (Erf) feed-forward
block, each with a residual LayerNorm. Inputs and outputs are named as optimum exports them
(`input_ids`, `attention_mask`, `token_type_ids` → `last_hidden_state`, or `logits` when the
weights carry a sequence-classification head: optional tanh pooler over [CLS], then classifier).

`ora models build` (`build.py`) writes the fp32 embedder with it and quantises that to q8
(`quantize`); tests make tiny random-weight models with it (`random_weights`, `bert_graph`:
embedders, cross-encoders, NLI heads) that run through the real loaders.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
from onnx import TensorProto, helper, numpy_helper

from sidecar.errors import ModelUnavailable

Weights = dict[str, npt.NDArray[np.float32]]
OPSET = 17  # LayerNormalization is a standard op from opset 17
IR_VERSION = 8  # the oldest IR that carries opset 17, so older onnxruntime builds load it


@dataclass(frozen=True)
class BertShape:
    """The numbers of a BERT `config.json` the graph depends on."""

    vocab_size: int
    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    max_position: int = 512
    type_vocab_size: int = 2
    layer_norm_eps: float = 1e-12

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> BertShape:
        if config.get("model_type", "bert") != "bert":
            raise ModelUnavailable(f"only BERT models can be built, not {config['model_type']!r}")
        return cls(
            vocab_size=int(config["vocab_size"]),
            hidden_size=int(config["hidden_size"]),
            num_layers=int(config["num_hidden_layers"]),
            num_heads=int(config["num_attention_heads"]),
            intermediate_size=int(config["intermediate_size"]),
            max_position=int(config.get("max_position_embeddings", 512)),
            type_vocab_size=int(config.get("type_vocab_size", 2)),
            layer_norm_eps=float(config.get("layer_norm_eps", 1e-12)),
        )

    def to_config(self) -> dict[str, Any]:
        return {
            "model_type": "bert",
            "vocab_size": self.vocab_size,
            "hidden_size": self.hidden_size,
            "num_hidden_layers": self.num_layers,
            "num_attention_heads": self.num_heads,
            "intermediate_size": self.intermediate_size,
            "max_position_embeddings": self.max_position,
            "type_vocab_size": self.type_vocab_size,
            "layer_norm_eps": self.layer_norm_eps,
        }


class Graph:
    """Collects nodes and initializers under unique names."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self._n = 0

    def const(self, name: str, value: npt.ArrayLike, dtype: Any = np.float32) -> str:
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def model(self, name: str, inputs: list[onnx.ValueInfoProto],
              outputs: list[onnx.ValueInfoProto]) -> onnx.ModelProto:
        """The graph as a checked model of OPSET at IR_VERSION."""
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="ora-vault")
        model.ir_version = IR_VERSION
        onnx.checker.check_model(model)
        return model

    def op(self, op_type: str, *inputs: str, **attrs: Any) -> str:
        self._n += 1
        out = f"{op_type.lower()}_{self._n}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], **attrs))
        return out

    def linear(self, x: str, w: Weights, prefix: str) -> str:
        """x @ W.T + b, with W stored transposed once so MatMul needs no Transpose node."""
        weight = self.const(f"{prefix}.weight_t", w[f"{prefix}.weight"].T)
        return self.op("Add", self.op("MatMul", x, weight), self.const(f"{prefix}.bias",
                                                                        w[f"{prefix}.bias"]))

    def layer_norm(self, x: str, w: Weights, prefix: str, eps: float) -> str:
        scale = self.const(f"{prefix}.weight", w[f"{prefix}.weight"])
        bias = self.const(f"{prefix}.bias", w[f"{prefix}.bias"])
        return self.op("LayerNormalization", x, scale, bias, axis=-1, epsilon=eps)


def _embeddings(g: Graph, w: Weights, shape: BertShape) -> str:
    words = g.op("Gather", g.const("word_embeddings", w["embeddings.word_embeddings.weight"]),
                 "input_ids")
    types = g.op("Gather", g.const("token_type_embeddings",
                                   w["embeddings.token_type_embeddings.weight"]), "token_type_ids")
    seq_len = g.op("Gather", g.op("Shape", "input_ids"), g.const("one", 1, np.int64), axis=0)
    positions = g.op("Range", g.const("zero", 0, np.int64), seq_len, g.const("one_step", 1,
                                                                               np.int64))
    pos = g.op("Gather", g.const("position_embeddings", w["embeddings.position_embeddings.weight"]),
               positions)
    summed = g.op("Add", g.op("Add", words, types), pos)
    return g.layer_norm(summed, w, "embeddings.LayerNorm", shape.layer_norm_eps)


def _mask_bias(g: Graph) -> str:
    """(batch, 1, 1, seq): 0 where attended, float32 min where padded (as transformers does).

    In the node order of a transformers export (Unsqueeze, Unsqueeze, Cast, Sub, Mul), which is
    the pattern onnxruntime's transformer optimizer recognises when it fuses attention."""
    mask = g.op("Unsqueeze", g.op("Unsqueeze", "attention_mask", g.const("axis_1", [1], np.int64)),
                g.const("axis_2", [2], np.int64))
    inverted = g.op("Sub", g.const("ones", 1.0), g.op("Cast", mask, to=TensorProto.FLOAT))
    return g.op("Mul", inverted, g.const("neg_big", np.finfo(np.float32).min))


def _attention(g: Graph, x: str, bias: str, w: Weights, p: str, shape: BertShape) -> str:
    head_dim = shape.hidden_size // shape.num_heads
    split = g.const(f"{p}.split_shape", [0, 0, shape.num_heads, head_dim], np.int64)

    def heads(name: str, perm: list[int]) -> str:
        return g.op("Transpose", g.op("Reshape", g.linear(x, w, f"{p}.self.{name}"), split),
                    perm=perm)

    q = heads("query", [0, 2, 1, 3])
    k = heads("key", [0, 2, 3, 1])
    v = heads("value", [0, 2, 1, 3])
    # Divided, as transformers does (a Mul here hides the mask from the optimizer's matcher).
    scores = g.op("Div", g.op("MatMul", q, k), g.const(f"{p}.scale", math.sqrt(head_dim)))
    probs = g.op("Softmax", g.op("Add", scores, bias), axis=-1)
    context = g.op("Transpose", g.op("MatMul", probs, v), perm=[0, 2, 1, 3])
    merged = g.op("Reshape", context, g.const(f"{p}.merge_shape", [0, 0, shape.hidden_size],
                                              np.int64))
    out = g.linear(merged, w, f"{p}.output.dense")
    return g.layer_norm(g.op("Add", out, x), w, f"{p}.output.LayerNorm", shape.layer_norm_eps)


def _feed_forward(g: Graph, x: str, w: Weights, p: str, shape: BertShape) -> str:
    h = g.linear(x, w, f"{p}.intermediate.dense")
    # Exact GELU: 0.5 · h · (1 + erf(h / √2)), as BERT's "gelu" activation.
    erf = g.op("Erf", g.op("Div", h, g.const(f"{p}.sqrt2", math.sqrt(2.0))))
    gelu = g.op("Mul", g.op("Mul", h, g.const(f"{p}.half", 0.5)),
                g.op("Add", erf, g.const(f"{p}.one", 1.0)))
    out = g.linear(gelu, w, f"{p}.output.dense")
    return g.layer_norm(g.op("Add", out, x), w, f"{p}.output.LayerNorm", shape.layer_norm_eps)


def _classifier(g: Graph, hidden: str, w: Weights) -> str:
    """[CLS] → (tanh pooler when present) → classifier → (batch, num_labels) logits."""
    cls = g.op("Gather", hidden, g.const("cls_index", 0, np.int64), axis=1)
    if "pooler.dense.weight" in w:
        cls = g.op("Tanh", g.linear(cls, w, "pooler.dense"))
    return g.linear(cls, w, "classifier")


def normalise_names(weights: dict[str, Any]) -> Weights:
    """Weights keyed as BertModel names: drop a `bert.` prefix, keep float tensors as float32."""
    out: Weights = {}
    for name, value in weights.items():
        key = name.removeprefix("bert.")
        if np.issubdtype(value.dtype, np.floating):
            out[key] = np.asarray(value, dtype=np.float32)
    return out


def bert_graph(weights: dict[str, Any], shape: BertShape) -> onnx.ModelProto:
    """The ONNX model of BERT with these weights; `logits` if a classifier is present."""
    w = normalise_names(weights)
    g = Graph()
    x = _embeddings(g, w, shape)
    bias = _mask_bias(g)
    for i in range(shape.num_layers):
        p = f"encoder.layer.{i}"
        x = _attention(g, x, bias, w, f"{p}.attention", shape)
        x = _feed_forward(g, x, w, p, shape)
    dims: list[str | int] = ["batch", "sequence"]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dims)
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    if "classifier.weight" in w:
        g.nodes.append(helper.make_node("Identity", [_classifier(g, x, w)], ["logits"]))
        labels = int(w["classifier.weight"].shape[0])
        outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", labels])]
    else:
        g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
        outputs = [helper.make_tensor_value_info(
            "last_hidden_state", TensorProto.FLOAT, [*dims, shape.hidden_size])]
    return g.model("bert", inputs, outputs)


def fused(model: onnx.ModelProto, shape: BertShape) -> onnx.ModelProto:
    """`model` with onnxruntime's transformer fusions: each layer's attention becomes one
    `Attention` node, residual + LayerNorm a `SkipLayerNormalization`, bias + GELU a `BiasGelu`
    (onnxruntime's session-time optimizer makes none of these on CPU). The vectors stay those of
    the plain graph (cosine > 0.9999, tests/models/test_build.py).

    Not applied to the embedder `ora models build` writes: on this CPU the fused graph embedded
    no more per CPU-second on long chunks and about 5 % less on short ones (docs/benchmarks.md,
    "## Index speed"). bench/bench_index_speed.py measures it again.

    Without onnxruntime's session-level passes baked in (opt_level 0), so the file stays portable
    between CPUs, and without symbolic shape inference (it would need sympy; our graph has no
    Cast to remove)."""
    from onnxruntime.transformers.fusion_options import FusionOptions
    from onnxruntime.transformers.optimizer import optimize_model

    options = FusionOptions("bert")
    options.enable_shape_inference = False
    with _quiet():
        optimized = optimize_model(model, model_type="bert", num_heads=shape.num_heads,
                                   hidden_size=shape.hidden_size,
                                   optimization_options=options, opt_level=0)
    out: onnx.ModelProto = optimized.model
    return out


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """onnxruntime's transformer and quantisation tools log warnings under top-level names (that
    we are not "pytorch", that we might pre-process) and may print to stdout, which carries
    `--json` output: both are silenced while they run."""
    logging.disable(logging.WARNING)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            yield
    finally:
        logging.disable(logging.NOTSET)


def quantize(fp32_file: Path, out_file: Path) -> None:
    """Write `out_file`: `fp32_file` with every weight MatMul in int8 (per output channel,
    symmetric) and its input quantised at each run (onnxruntime's dynamic quantisation); the
    rest (embeddings, LayerNorm, softmax) stays fp32.

    On this CPU the int8 graph embeds ~1.55x the texts per CPU-second at the same SciFact
    nDCG@10 (docs/benchmarks.md, "## Embedding models"). Its vectors are close to the fp32
    ones, not equal (cosine 0.994 on average), so it is a model of its own, with its own id.
    Per-channel scales matter: one scale per tensor gave cosine 0.944. The same input gives the
    same bytes, so every machine gets the same model id."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out_file.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_file.with_suffix(".onnx.tmp")
    with _quiet():
        quantize_dynamic(str(fp32_file), str(tmp), weight_type=QuantType.QInt8,
                         per_channel=True, op_types_to_quantize=["MatMul"])
    tmp.replace(out_file)


def build_bert_onnx(source_dir: Path, out_file: Path, *, fuse: bool = False) -> None:
    """Write `out_file` from a Hugging Face folder (config.json + model.safetensors), with the
    transformer fusions when `fuse` is True."""
    from safetensors.numpy import load_file

    try:
        config = json.loads((source_dir / "config.json").read_text(encoding="utf-8"))
        weights = load_file(str(source_dir / "model.safetensors"))
    except (OSError, ValueError) as exc:
        raise ModelUnavailable(f"cannot read BERT weights in {source_dir}: {exc}") from exc
    shape = BertShape.from_config(config)
    model = bert_graph(weights, shape)
    if fuse:
        model = fused(model, shape)
    save_model(model, out_file)


def save_model(model: onnx.ModelProto, out_file: Path) -> None:
    """Write `out_file` through a temporary file beside it, so a reader never loads half."""
    out_file.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_file.with_suffix(".onnx.tmp")
    onnx.save(model, str(tmp))
    tmp.replace(out_file)


def random_weights(shape: BertShape, num_labels: int = 0, seed: int = 0) -> Weights:
    """BERT weights drawn like transformers' init (N(0, 0.02), unit LayerNorm); for tests."""
    rng = np.random.default_rng(seed)
    h, f = shape.hidden_size, shape.intermediate_size
    w: Weights = {}

    def normal(*dims: int) -> npt.NDArray[np.float32]:
        return rng.normal(0.0, 0.02, size=dims).astype(np.float32)

    def dense(name: str, out_dim: int, in_dim: int) -> None:
        w[f"{name}.weight"], w[f"{name}.bias"] = normal(out_dim, in_dim), normal(out_dim)

    def norm(name: str) -> None:
        w[f"{name}.weight"], w[f"{name}.bias"] = np.ones(h, np.float32), np.zeros(h, np.float32)

    w["embeddings.word_embeddings.weight"] = normal(shape.vocab_size, h)
    w["embeddings.position_embeddings.weight"] = normal(shape.max_position, h)
    w["embeddings.token_type_embeddings.weight"] = normal(shape.type_vocab_size, h)
    norm("embeddings.LayerNorm")
    for i in range(shape.num_layers):
        p = f"encoder.layer.{i}"
        for part in ("query", "key", "value"):
            dense(f"{p}.attention.self.{part}", h, h)
        dense(f"{p}.attention.output.dense", h, h)
        norm(f"{p}.attention.output.LayerNorm")
        dense(f"{p}.intermediate.dense", f, h)
        dense(f"{p}.output.dense", h, f)
        norm(f"{p}.output.LayerNorm")
    if num_labels:
        dense("pooler.dense", h, h)
        dense("classifier", num_labels, h)
    return w


# Bump when the graph computes something else, so existing builds are redone (a new file is a
# new model id, so an index re-embeds). Not bumped for the transformers node order of the mask
# and the attention scale: the same vectors (cosine > 0.9999999), no re-embedding for users.
BUILDER_VERSION = 1
