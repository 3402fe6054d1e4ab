"""Ora on an everyday vault: retrieval quality before and after `ora adopt`, and cold indexing.

On a temporary copy of examples/plain-vault (45 notes with no Ora schema) and the questions of
bench/data/plain_vault_questions.json (each with the notes that answer it):

1. cold index of the untyped vault, then every question through the same `search()` as
   `ora search` (default settings; the configured re-ranker if there is one, else none);
   hit@5 and MRR@10 over the ranked list of distinct notes (a note's first chunk counts);
2. `ora adopt --apply` (the library call) on the copy, an incremental index, the same questions;
3. cold indexing throughput on realistic long notes: the vault's notes of `--long-words` words or
   more (adopted, so every one is chunked whatever the untyped default), indexed cold `--runs`
   times into fresh data folders, chunks embedded per wall second and per CPU second (medians).

The embedder is loaded once, outside every timing. Results go to the `## Plain vault` section
of docs/benchmarks.md (with --write), with the machine, the date and the load average.

    python bench/bench_plain_vault.py [--runs 3] [--long-words 300] [--write]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from report import ROOT, cpu_name, report_main

from sidecar.index import open_index
from sidecar.lint.adopt import plan_adoption
from sidecar.lint.adopt_journal import apply_adoption
from sidecar.models.choice import load_embedder
from sidecar.models.embedder import Embedder
from sidecar.models.reranker import Reranker, build_reranker
from sidecar.retrieval.search import SearchOptions, search_sync
from sidecar.settings import Config, make_config

VAULT = ROOT / "examples" / "plain-vault"
# Every copied note's file time (see _same_file_times): 2026-11-01 00:00 UTC.
FILE_TIME_NS = int(dt.datetime(2026, 11, 1, tzinfo=dt.UTC).timestamp()) * 10**9
QUESTIONS = ROOT / "bench" / "data" / "plain_vault_questions.json"
HEADING = "## Plain vault: untyped notes, `ora adopt`, long notes"


def _config(vault: Path, data: Path) -> Config:
    return make_config(vault, data)


def _ranked_notes(doc: dict[str, Any]) -> list[str]:
    seen: list[str] = []
    for result in doc["results"]:
        if result["path"] not in seen:
            seen.append(result["path"])
    return seen


def evaluate(config: Config, embedder: Embedder, reranker: Reranker | None, reason: str,
             questions: list[dict[str, Any]]) -> dict[str, Any]:
    """hit@5 and MRR@10 over distinct notes; the questions each note-level rank came from."""
    hits, reciprocal, misses = 0, 0.0, []
    options = SearchOptions(k=30, rerank=reranker is not None)
    with open_index(config, writer=False) as index:
        for q in questions:
            notes = _ranked_notes(search_sync(index, embedder, reranker, q["q"], options,
                                              reranker_reason=reason))
            rank = next((i + 1 for i, p in enumerate(notes[:10]) if p in q["expected"]), None)
            hits += rank is not None and rank <= 5
            reciprocal += 1 / rank if rank else 0.0
            if rank is None or rank > 5:
                misses.append(q["q"])
    n = len(questions)
    return {"hit@5": hits / n, "mrr@10": reciprocal / n, "misses": misses}


def index_cold(vault: Path, data: Path, embedder: Embedder) -> dict[str, Any]:
    with open_index(_config(vault, data), embedder=embedder) as index:
        started, cpu = time.monotonic(), time.process_time()
        summary = index.reconcile()
        summary["wall"] = time.monotonic() - started
        summary["cpu"] = time.process_time() - cpu
    return summary


def long_notes_vault(src: Path, dst: Path, min_words: int) -> list[str]:
    """Copy the notes of at least `min_words` words (and ora.yaml / .obsidian) into dst."""
    picked = []
    for path in sorted(src.rglob("*.md")):
        rel = path.relative_to(src).as_posix()
        if rel.startswith(".") or len(path.read_text(encoding="utf-8").split()) < min_words:
            continue
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, dst / rel)
        picked.append(rel)
    return picked


def _same_file_times(vault: Path) -> None:
    """One modification time for every note: a note without a stated date is dated by its file
    time, which ranking weighs, and a checkout's file times depend on when and how it was made
    (a clone, an archive, a copy): scores moved with them (MRR@10 0.959 or 0.970, same code)."""
    for path in vault.rglob("*.md"):
        os.utime(path, ns=(FILE_TIME_NS, FILE_TIME_NS))


def run(runs: int, long_words: int) -> str:
    questions = json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]
    with tempfile.TemporaryDirectory(prefix="ora-plain-") as tmp:
        root = Path(tmp)
        vault = root / "vault"
        shutil.copytree(VAULT, vault)
        _same_file_times(vault)
        config = _config(vault, root / "data")
        embedder = load_embedder(config)
        reranker, reason = build_reranker(config)
        before_index = index_cold(vault, root / "data", embedder)
        before = evaluate(config, embedder, reranker, reason, questions)
        plan = plan_adoption(vault)
        applied = apply_adoption(vault, plan.proposals)
        with open_index(config, embedder=embedder) as index:
            after_index = index.reconcile()
        after = evaluate(config, embedder, reranker, reason, questions)

        long_vault = root / "long"
        picked = long_notes_vault(VAULT, long_vault, long_words)
        apply_adoption(long_vault, plan_adoption(long_vault).proposals)  # typed: all chunked
        speeds, cpu_speeds, sizes = [], [], []
        for n in range(runs):
            summary = index_cold(long_vault, root / f"long-data-{n}", embedder)
            speeds.append(summary["embedded"] / summary["wall"])
            cpu_speeds.append(summary["embedded"] / summary["cpu"])
            sizes.append(summary["chunks"])
        words = sum(len((long_vault / r).read_text(encoding="utf-8").split()) for r in picked)
    load = os.getloadavg()
    rerank = reranker.name if reranker is not None else f"none ({reason})"
    lines = [
        HEADING,
        "",
        f"`python bench/bench_plain_vault.py --runs {runs} --long-words {long_words}` on "
        f"{dt.date.today().isoformat()}, {cpu_name()} ({os.cpu_count()} cores, shared), load "
        f"average {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}; embedder `{embedder.model_id}`, "
        f"re-ranker {rerank}.",
        "",
        f"examples/plain-vault: {before_index['files']} notes, none with Ora's schema; "
        f"{len(questions)} questions with the notes that answer them "
        "(bench/data/plain_vault_questions.json). hit@5 and MRR@10 count distinct notes (a "
        "note ranks where its first chunk does). The questions were written with the notes at "
        "hand, so they share more words with them than a stranger's would: read the numbers as "
        "a regression check of untyped indexing and of adoption, not as a quality claim.",
        "",
        "| vault | chunks | hit@5 | MRR@10 |",
        "|---|---:|---:|---:|",
        f"| as written (untyped, effective types inferred) | {before_index['chunks']} | "
        f"{before['hit@5']:.3f} | {before['mrr@10']:.3f} |",
        f"| after `ora adopt --apply` ({len(applied.done)} notes adopted, {len(plan.skipped)} "
        f"skipped) | {after_index['chunks']} | {after['hit@5']:.3f} | {after['mrr@10']:.3f} |",
        "",
        "Adopting changes what the schema weighs, not the text: the hubs it types `matrix` "
        "leave retrieval (hence fewer chunks), web clips weigh 0.1 and transcripts and chats "
        "0.6 instead of the untyped default's 0.8, and notes with a `type` of their own are "
        "skipped (searched as before).",
        "",
        f"Missed at 5 before adopting: {len(before['misses'])}; after: {len(after['misses'])}"
        + (f" ({'; '.join(after['misses'])})" if after["misses"] else "") + ".",
        "",
        f"Cold indexing of the vault's long notes ({len(picked)} notes of {long_words}+ words, "
        f"{words} words, {sizes[0]} chunks), {runs} runs into fresh data folders, embedder "
        f"already loaded: median **{statistics.median(speeds):.1f} chunks per wall second** "
        f"(runs: {', '.join(f'{s:.1f}' for s in speeds)}), "
        f"{statistics.median(cpu_speeds):.1f} chunks per CPU second of the process (all its "
        "threads; less sensitive to other load on a shared machine).",
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="cold-index runs (median reported)")
    parser.add_argument("--long-words", type=int, default=300, help="what counts as a long note")
    return report_main(parser, HEADING, lambda args: run(args.runs, args.long_words))


if __name__ == "__main__":
    raise SystemExit(main())
