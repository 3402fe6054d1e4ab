"""Indexing speed against the model's own limit: cold `ora index` vs a plain onnxruntime loop.

The same notes (SciFact abstracts written as notes: `# title`, then the abstract; `--long N` adds
N realistic long notes of bench/gen_vault.py) are processed in alternating rounds by

(a) a cold `ora index` in a subprocess, as a user runs it (start-up, chunking, embedding, Chroma,
    BM25 and the ledger included): its CPU seconds from the kernel (ru_utime + ru_stime);
(b) a plain loop over the fp32 MiniLM ONNX graph in this process, with onnxruntime's default
    session options: each note's body tokenised (read up to 256 tokens), length-sorted batches
    of 32, mean pooling and normalisation; its CPU seconds (process time, every onnxruntime
    thread included). The loop runs on the fp32 graph `ora models build` writes, on the same
    graph with onnxruntime's transformer fusions (`sidecar.models.bert_onnx.fused`), to measure
    what they would buy, and on its int8 quantisation (`q8`, the graph a new index loads);
    and, to tell the pipeline's overhead from the work the index chooses to do, over the texts
    the index itself embeds (every chunk whole, with its breadcrumb) instead of each note cut
    at 256 tokens, with the fp32 and with the q8 graph.

Alternating the rounds makes a load swinging on shared cores fall on both alike; CPU seconds
rather than wall seconds keep other jobs out of the figure. Medians of notes per CPU-second.
`--profile` also runs one cold index under cProfile and reports where its time goes.

    python bench/bench_index_speed.py [--notes 600] [--long 0] [--rounds 3] [--profile] [--write]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
from gen_vault import generate
from report import ROOT, SCIFACT, cpu_name, report_main

from sidecar.chunking.limits import chunk_bounded
from sidecar.index.records import note_info
from sidecar.models.bert_onnx import build_bert_onnx
from sidecar.models.embedder import MAX_TOKENS
from sidecar.models.files import fp32_model_file, minilm_source_dir, q8_model_file
from sidecar.models.session import batches, input_names, read_tokenizer
from sidecar.retrieval.beir import load_corpus
from sidecar.vault.note import read_note

ORA = str(Path(sys.executable).parent / "ora")
HEADING = "## Index speed: the pipeline against its own model"
PLAIN_BATCH = 32
OWN_TEXTS_FP32 = "unfused graph, the index's own chunk texts"
OWN_TEXTS_Q8 = "q8 graph, the index's own chunk texts"


def write_notes(vault: Path, corpus: Path, notes: int, long: int) -> list[str]:
    """SciFact abstracts as typed notes (`# title` + abstract), plus `long` realistic notes."""
    rels = []
    for doc in load_corpus(corpus)[:notes]:
        rel = f"Abstracts/{doc.id}.md"
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        title = doc.title.replace("\n", " ").strip() or doc.id
        path.write_text(f"---\ntype: resource\n---\n# {title}\n\n{doc.text.strip()}\n",
                        encoding="utf-8")
        rels.append(rel)
    if long:
        generated = generate(vault / "Long", long, seed=7, realistic=True)
        rels += [f"Long/{r}" for r in generated]
    return rels


def note_bodies(vault: Path, rels: list[str]) -> list[str]:
    return [read_note(vault, rel, 1 << 22).body for rel in rels]


def index_texts(vault: Path, rels: list[str], chunk_tokens: int = 256) -> list[str]:
    """What a cold index embeds for these notes: each distinct chunk text with its breadcrumb
    (the index embeds a text once however many chunks share it) of the retrievable notes,
    chunked as `sync.Syncer` chunks them (the default `chunk_tokens`)."""
    tokenizer = read_tokenizer(minilm_source_dir() / "tokenizer.json")
    notes = [read_note(vault, rel, 1 << 22) for rel in rels]
    return list(dict.fromkeys(
        c.embed_text for note in notes if note_info(note, 0).retrievable
        for c in chunk_bounded(note, tokenizer, chunk_tokens).chunks))


def plain_loop(model: Path) -> Callable[[list[str]], float]:
    """An embedding loop over `model` with onnxruntime's default session options, as a user
    would write it; returns a function giving the CPU seconds of one pass over some texts."""
    tokenizer = read_tokenizer(minilm_source_dir() / "tokenizer.json", MAX_TOKENS)
    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    names = input_names(session)

    def run(texts: list[str]) -> float:
        cpu = time.process_time()
        encodings = tokenizer.encode_batch(texts)
        out = np.zeros((len(texts), 384), dtype=np.float32)
        for batch in batches(encodings, names, PLAIN_BATCH, token_budget=None):
            (hidden,) = session.run(["last_hidden_state"], batch.feed)
            weights = batch.mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / weights.sum(axis=1)
            out[batch.positions] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        return time.process_time() - cpu

    return run


def cold_index(vault: Path, data: Path, tree: Path, models: Path,
               prefix: list[str] | None = None) -> dict[str, Any]:
    """One cold `ora index` of the code in `tree` in a subprocess: its JSON summary, CPU and
    wall seconds."""
    started = time.monotonic()
    cmd = [*(prefix or []), ORA, "index", str(vault), "--data", str(data), "--json"]
    env = {**os.environ, "PYTHONPATH": str(tree), "ORA_MODELS_DIR": str(models)}
    # cwd: `python -m cProfile` puts the working folder first on sys.path, before PYTHONPATH.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                            cwd=tree)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"ora index failed with status {status}")
    doc: dict[str, Any] = json.loads(out)
    doc["cpu"] = usage.ru_utime + usage.ru_stime
    doc["wall"] = time.monotonic() - started
    return doc


def build_models(tree: Path, models: Path) -> Path:
    """The fp32 embedder as the code in `tree` builds it, into `models`; its model file."""
    env = {**os.environ, "PYTHONPATH": str(tree), "ORA_MODELS_DIR": str(models)}
    subprocess.run([ORA, "models", "build", "--json"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return fp32_model_file(models)


# Where a profiled cold index spends its time, by the files of the functions (own time).
BUCKETS = [
    # The embedder's workers run the model; the main thread waits on their results (a lock).
    ("onnxruntime (the model, or waiting for the workers running it)",
     ("onnxruntime", "_thread.lock")),
    ("tokenizer", ("tokenizers", "encode_batch", "'encode'")),
    ("chunking", ("sidecar/chunking",)),
    ("Chroma", ("chromadb",)),
    ("BM25 + ledger (SQLite)", ("sqlite3", "sidecar/index/bm25", "sidecar/index/ledger")),
    ("embedder glue (padding, pooling)", ("sidecar/models", "numpy")),
    ("importing modules", ("<frozen importlib", "'exec'", "marshal", "_imp")),
]


def profile(vault: Path, data: Path, tree: Path, models: Path) -> dict[str, Any]:
    """A cold index under cProfile: seconds of the main thread per bucket (own time)."""
    out = data.with_suffix(".prof")
    run = cold_index(vault, data, tree, models,
                     [sys.executable, "-m", "cProfile", "-o", str(out)])
    stats = pstats.Stats(str(out))
    totals = dict.fromkeys([name for name, _ in BUCKETS] + ["other"], 0.0)
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    for (file, _line, func), (_cc, _nc, tottime, _ct, _callers) in raw.items():
        where = f"{file}:'{func}'"
        name = next((n for n, keys in BUCKETS if any(k in where for k in keys)), "other")
        totals[name] += tottime
    top = sorted(raw.items(), key=lambda kv: -kv[1][2])[:6]
    return {"wall": run["wall"], "cpu": run["cpu"], "buckets": totals,
            "top": [(f"{Path(f).name}:{ln} {fn}", v[2]) for (f, ln, fn), v in top]}


def run(args: argparse.Namespace) -> str:
    with tempfile.TemporaryDirectory(prefix="ora-speed-") as tmp:
        root = Path(tmp)
        vault = root / "vault"
        rels = write_notes(vault, args.corpus / "corpus.jsonl", args.notes, args.long)
        bodies = note_bodies(vault, rels)
        trees = {"this tree": ROOT}
        if args.compare:
            trees["before (--compare)"] = args.compare.resolve()
        models = {name: build_models(tree, root / f"models-{n}")
                  for n, (name, tree) in enumerate(trees.items())}
        fused = root / "fused" / "model.onnx"
        build_bert_onnx(minilm_source_dir(), fused, fuse=True)
        unfused = plain_loop(models["this tree"])
        q8 = plain_loop(q8_model_file(models["this tree"].parent.parent))
        texts = index_texts(vault, rels)
        loops = {"unfused graph": (unfused, bodies), "fused graph": (plain_loop(fused), bodies),
                 "q8 graph": (q8, bodies),
                 OWN_TEXTS_FP32: (unfused, texts), OWN_TEXTS_Q8: (q8, texts)}
        index_rates: dict[str, list[float]] = {name: [] for name in trees}
        walls: dict[str, list[float]] = {name: [] for name in trees}
        loop_rates: dict[str, list[float]] = {name: [] for name in loops}
        chunks: dict[str, int] = {}
        for n in range(args.rounds):
            for name, (loop, inputs) in loops.items():
                loop_rates[name].append(len(bodies) / loop(inputs))
            for name, tree in trees.items():
                cold = cold_index(vault, root / f"data-{n}-{name[:4]}", tree,
                                  models[name].parent.parent)
                chunks[name] = int(cold["embedded"])
                index_rates[name].append(len(rels) / cold["cpu"])
                walls[name].append(len(rels) / cold["wall"])
            print(f"round {n + 1}: " + ", ".join(
                f"{k} {v[-1]:.1f}" for k, v in (*index_rates.items(), *loop_rates.items())),
                file=sys.stderr)
        profiles = {name: profile(vault, root / f"profile-{name[:4]}", tree,
                                  models[name].parent.parent)
                    for name, tree in trees.items()} if args.profile else {}
    counts = {name: len(inputs) for name, (_, inputs) in loops.items()}
    return render(args, len(rels), chunks, index_rates, loop_rates, profiles, walls, counts)


def render(args: argparse.Namespace, notes: int, chunks: dict[str, int],
           index_rates: dict[str, list[float]], loop_rates: dict[str, list[float]],
           profiles: dict[str, dict[str, Any]], walls: dict[str, list[float]],
           counts: dict[str, int]) -> str:
    load = os.getloadavg()
    base = statistics.median(loop_rates["unfused graph"])
    what = f"{args.notes} SciFact abstracts" + (
        f" and {args.long} realistic long notes" if args.long else "")
    compare = " --compare OLD_TREE" if args.compare else ""
    lines = [
        HEADING, "",
        f"`python bench/bench_index_speed.py --notes {args.notes} --long {args.long} --rounds "
        f"{args.rounds}{compare}` on {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {cpu_name()} "
        f"({os.cpu_count()} cores, shared), load average {load[0]:.2f} / {load[1]:.2f} / "
        f"{load[2]:.2f} at the end.", "",
        f"{what} as notes ({notes} files). Medians of {args.rounds} interleaved rounds, notes "
        "per CPU-second (each round: both loops, then each cold index):", "",
        "| run | texts embedded | notes per CPU-s (rounds) | median | ÷ plain loop |",
        "|---|---:|---|---:|---:|",
    ]
    rows = [(f"cold `ora index`, {name}", str(chunks[name]), rates)
            for name, rates in index_rates.items()]
    rows += [(f"plain loop, batches of 32, {name}", str(counts[name]), rates)
             for name, rates in loop_rates.items()]
    for label, count, rates in rows:
        median = statistics.median(rates)
        lines.append(f"| {label} | {count} | {', '.join(f'{r:.1f}' for r in rates)} "
                     f"| {median:.1f} | {median / base:.2f}× |")
    index_median = statistics.median(index_rates["this tree"])
    lines += ["", "The index against plain loops over exactly the texts it embeds (every chunk "
              "whole, with its breadcrumb): " + "; ".join(
                  f"{name.split(',')[0]} {index_median / statistics.median(loop_rates[name]):.2f}×"
                  for name in (OWN_TEXTS_FP32, OWN_TEXTS_Q8)) + "."]
    lines += ["", "Notes per wall-second of the cold indexes (rounds; the cores are shared, so "
              "this depends on the load): " + "; ".join(
                  f"{name} {', '.join(f'{r:.1f}' for r in rates)} (median "
                  f"{statistics.median(rates):.1f})" for name, rates in walls.items()) + "."]
    for name, prof in profiles.items():
        total = sum(prof["buckets"].values())
        lines += ["", f"Profile of one cold index, {name} (cProfile, main thread, own time; "
                      f"{prof['wall']:.1f} s wall, {prof['cpu']:.1f} CPU-s with the profiler):",
                  "", "| where | seconds | share |", "|---|---:|---:|"]
        for bucket, secs in sorted(prof["buckets"].items(), key=lambda kv: -kv[1]):
            lines.append(f"| {bucket} | {secs:.1f} | {secs / total:.0%} |")
        lines += ["", "Heaviest functions: " + "; ".join(
            f"`{fn}` {secs:.1f} s" for fn, secs in prof["top"]) + "."]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=SCIFACT, help="the BEIR SciFact folder")
    parser.add_argument("--notes", type=int, default=600, help="SciFact abstracts to write")
    parser.add_argument("--long", type=int, default=0, help="realistic long notes to add")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="also profile one cold index")
    parser.add_argument("--compare", type=Path,
                        help="another checkout (git archive main | tar -x -C DIR) indexed too")
    return report_main(parser, HEADING, lambda args: run(args))


if __name__ == "__main__":
    raise SystemExit(main())
