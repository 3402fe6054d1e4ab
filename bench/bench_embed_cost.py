"""What embedding a chunk costs with a catalogue embedder, relative to the packaged default.

    .venv/bin/python bench/bench_embed_cost.py [--model multilingual-e5-small] [--chunks 64]

Onboarding offers a multilingual embedder before it is downloaded, so the re-embedding time it
quotes cannot time the model itself: the sidecar times the embedder in use on a few of the
index's chunks and scales by the catalogue entry's `embed_cost` (schema/models.json). This
measures that factor without downloading anything: a random-weight BERT of the entry's shape
(layers, width, heads; the compute does not depend on the weights, nor on the vocabulary's
size, which is cut to MiniLM's so the same tokens feed both), fp32 as the hub's export is, is
timed against the packaged default (all-MiniLM-L6-v2, q8) on the same chunk-sized texts, in
alternating blocks so that load from other processes hits both alike. CPU seconds of the
process are the measure. The real model's tokenizer (XLM-R's for E5) cuts non-English text into
fewer pieces than MiniLM's, so on such a vault the factor overstates the cost a little. The
packaged multilingual embedder (`--model use-multilingual-v3`) is there without a download, so
it is timed itself, with its own tokenizer.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import onnx

from sidecar.models import multilingual
from sidecar.models.bert_onnx import BertShape, bert_graph, random_weights
from sidecar.models.build import build_embedders
from sidecar.models.embedder import Embedder, OnnxEmbedder, open_embedder
from sidecar.models.files import minilm_source_dir
from sidecar.schema import load_json

# The shapes of the catalogue's embedders (their config.json on the hub), vocabulary cut.
SHAPES = {
    "multilingual-e5-small": BertShape(vocab_size=30522, hidden_size=384, num_layers=12,
                                       num_heads=12, intermediate_size=1536),
    "bge-small-en-v1.5": BertShape(vocab_size=30522, hidden_size=384, num_layers=12,
                                   num_heads=12, intermediate_size=1536),
}
BLOCK = 16
THREADS = 1


def _texts(n: int) -> list[str]:
    """Chunk-sized passages (~250 tokens) cut from the repository's docs."""
    docs = sorted(Path("docs").glob("*.md"))
    words = " ".join(p.read_text(encoding="utf-8") for p in docs).split()
    return [" ".join(words[i * 180:(i + 1) * 180]) for i in range(n)]


def _shaped(name: str, folder: Path) -> Embedder:
    shape = SHAPES[name]
    path = folder / f"{name}.onnx"
    onnx.save(bert_graph(random_weights(shape, seed=3), shape), str(path))
    return OnnxEmbedder(path, name, threads=THREADS,
                        tokenizer_file=minilm_source_dir() / "tokenizer.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="multilingual-e5-small",
                        choices=[*sorted(SHAPES), multilingual.NAME])
    parser.add_argument("--chunks", type=int, default=64)
    args = parser.parse_args()
    texts = _texts(args.chunks)
    with tempfile.TemporaryDirectory() as tmp:
        build_embedders(Path(tmp))  # the packaged fp32, its q8 quantisation, the multilingual
        embedders = {"default": open_embedder("q8", Path(tmp), threads=THREADS),
                     args.model: open_embedder(args.model, Path(tmp), threads=THREADS)
                     if args.model == multilingual.NAME else _shaped(args.model, Path(tmp))}
        for embedder in embedders.values():  # load the sessions before timing
            embedder.embed(texts[:2])
        cpu = dict.fromkeys(embedders, 0.0)
        for start in range(0, len(texts), BLOCK):
            for name, embedder in embedders.items():
                began = time.process_time()
                embedder.embed(texts[start:start + BLOCK])
                cpu[name] += time.process_time() - began
    per_chunk = {name: seconds / len(texts) * 1000 for name, seconds in cpu.items()}
    models = load_json("models.json")
    listed = {**models["models"], **models["packaged"]["embedders"]}[args.model][
        "embedder"].get("embed_cost")
    print(f"{len(texts)} chunks, 1 thread, load average {os.getloadavg()[0]:.2f}")
    for name, ms in per_chunk.items():
        print(f"  {name}: {ms:.1f} ms CPU a chunk")
    print(f"embed_cost of {args.model}: {per_chunk[args.model] / per_chunk['default']:.2f} "
          f"(schema/models.json says {listed})")


if __name__ == "__main__":
    main()
