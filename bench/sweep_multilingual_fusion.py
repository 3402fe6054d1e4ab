"""An embedder's fusion swept on the multilingual tuning sets only: Italian, Dutch, French,
Polish, Czech, Russian, Ukrainian, Greek and Hebrew.

Runs on the indexes `bench_multilingual.py --keep DIR` leaves (DIR/LANG/vault, DIR/LANG/data),
opened read-only, with the embedder the settings give (`ORA_EMBED_URL`, `ORA_EMBED_MODEL`: the one
the indexes were built with). Each question is asked through the default search path
(`search()`, no re-ranker) under every fusion of the grid, with BM25's pseudo-relevance feedback
as languages.json has it and with it off for every language; each query is embedded once, so
every variant ranks the same vectors. `--fusions entry` tries the embedder's own fusion (its
catalogue entry) only; `--lifts W,...` tries each weight of the whole-note lift
(`languages.json` `notes.weight`, `sidecar/index/note_level.py`) under every fusion, and
`--note-vectors W,...` each weight of the note-vector lift (`models.json` `fusion.notes`,
`sidecar/index/note_vectors.py`) and `--leads W,...` each weight of the lead-sentence lift
(`fusion.leads`, `sidecar/index/leads.py`); unless given, every fusion takes the embedder's own
lifts. Prints
hit@5 / MRR@10 over distinct notes per language and their mean, the best first, then the CPU
seconds and load average. Spanish and German are the final check of issue 30 and English their
reference: they are refused, never tuned on.

    ORA_EMBED_URL=http://127.0.0.1:8765 ORA_EMBED_MODEL=multilingual-e5-small \\
        .venv/bin/python bench/sweep_multilingual_fusion.py DIR [--languages it,nl,fr]
        [--fusions grid|entry] [--lifts 0,0.05,0.1,0.2] [--note-vectors 0,0.3,0.5]
        [--leads 0.2,0.4]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, cast
from unittest import mock

import numpy as np
from bench_multilingual import DEPTH, QUESTIONS, _distinct, _score, ranker

from sidecar.index import open_index
from sidecar.index.index import Index
from sidecar.language import languages
from sidecar.models.choice import load_embedder
from sidecar.models.embedder import Embedder, FloatArray
from sidecar.retrieval.fusion import FusionSettings, fusion_settings
from sidecar.retrieval.search import SearchOptions, search
from sidecar.settings import make_config

TUNING = ("it", "nl", "fr", "pl", "cs", "ru", "uk", "el", "he")
# method, k, dense weight (bm25: 1 − it), pool, note-vector lift, lead-sentence lift
Variant = tuple[str, float, float, int, float, float]


def grid() -> list[Variant]:
    """Every fusion tried: convex combinations by weight, weighted RRF by k × weight, and the
    candidate depth of each half (`pool`) around the current and the chosen E5 settings. Their
    lifts (0 here) are set by `sweep`: the embedder's own, or the weights asked for."""
    out: list[Variant] = [("convex_minmax", 60, w, 100, 0.0, 0.0)
                          for w in (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9)]
    out += [("convex_max", 60, w, 100, 0.0, 0.0) for w in (0.6, 0.7, 0.8, 0.9)]
    out += [("rrf", k, w, 100, 0.0, 0.0) for k in (10, 20, 30, 45, 60, 80, 100)
            for w in (0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8)]
    out += [(m, k, w, pool, 0.0, 0.0)
            for m, k, w in (("convex_minmax", 60, 0.6), ("rrf", 45, 0.5), ("rrf", 45, 0.65))
            for pool in (30, 50, 200)]
    return out


def entry(model_id: str) -> Variant:
    """The fusion the catalogue gives the embedder `model_id` names, as a variant."""
    own = fusion_settings(model_id)
    return own.method, own.k, own.weights.get("dense", 1.0), own.pool, own.notes, own.leads


def settings(variant: Variant) -> FusionSettings:
    method, k, dense, pool, notes, leads = variant
    return FusionSettings(method, k, {"dense": dense, "bm25": round(1 - dense, 4)}, pool, notes,
                          leads)


def label(variant: Variant) -> str:
    method, k, dense, pool, notes, leads = variant
    return (f"`{method}`" + (f" k {k:g}" if method == "rrf" else "")
            + f" {dense:g} / {1 - dense:.2g}" + (f", pool {pool}" if pool != 100 else "")
            + (f", note vectors {notes:g}" if notes else "")
            + (f", leads {leads:g}" if leads else ""))


class Remembering:
    """An embedder whose query vectors are computed once each: every variant ranks the same."""

    def __init__(self, inner: Embedder) -> None:
        self.model_id = inner.model_id
        self._inner = inner
        self._vectors: dict[str, FloatArray] = {}

    def embed_queries(self, queries: Sequence[str]) -> FloatArray:
        missing = [q for q in queries if q not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self._inner.embed_queries(missing), strict=True))
        return np.stack([self._vectors[q] for q in queries])


def fused(
    index: Index, embedder: Embedder, fusion: FusionSettings, runner: asyncio.Runner,
) -> Callable[[str], list[str]]:
    """bench_multilingual's `default` ranking under `fusion`, on one event loop: `search_sync`'s
    loop a question would start new threads, each opening its own SQLite connections."""
    def rank(question: str) -> list[str]:
        doc = runner.run(search(index, embedder, None, question,
                                SearchOptions(k=DEPTH, rerank=False), fusion=fusion))
        return _distinct([r["path"] for r in doc["results"]])
    return rank


@contextmanager
def feedback(on: bool) -> Iterator[None]:
    """languages.json as it is, or with `feedback` false for every language."""
    if on:
        yield
        return
    spec = languages.spec()
    off = replace(spec, languages={code: replace(lang, feedback=False)
                                   for code, lang in spec.languages.items()})
    with mock.patch.object(languages, "spec", lambda: off):
        yield


@contextmanager
def lifted(weight: float | None) -> Iterator[None]:
    """The whole-note lift at `weight` of the fused scale (None: languages.json's)."""
    if weight is None:
        yield
        return
    changed = replace(languages.spec(), note_weight=weight)
    # The module by its name: the package's `search` is the function.
    with mock.patch.object(sys.modules["sidecar.retrieval.search"], "language_spec",
                           lambda: changed):
        yield


def sweep(
    keep: Path, langs: Sequence[str], own: bool = False, lifts: Sequence[float | None] = (None,),
    near: Sequence[float | None] = (None,), leads: Sequence[float | None] = (None,),
) -> list[tuple[str, list[tuple[float, float]]]]:
    """(row label, [(hit@5, MRR@10) per language]) for every variant (`own`: the embedder's
    catalogue fusion only) at every lift weight, note-vector weight (`near`) and lead weight
    (`leads`; None: the embedder's own), feedback on and off."""
    first = make_config(keep / langs[0] / "vault", keep / langs[0] / "data")
    embedder = cast(Embedder, Remembering(load_embedder(first)))
    mine = entry(embedder.model_id)
    variants = [(*v[:4], mine[4] if n is None else n, mine[5] if lead is None else lead)
                for v in ([mine] if own else grid()) for n in near for lead in leads]
    rows: dict[str, list[tuple[float, float]]] = {}

    def add(name: str, rank: Callable[[str], list[str]], questions: list[dict[str, Any]]) -> None:
        scored = _score(rank, questions)
        rows.setdefault(name, []).append((scored["hit@5"], scored["mrr@10"]))

    for lang in langs:
        questions = json.loads((QUESTIONS / f"{lang}.json").read_text("utf-8"))["questions"]
        with open_index(make_config(keep / lang / "vault", keep / lang / "data"),
                        writer=False) as index, asyncio.Runner() as runner:
            add("dense alone | ", ranker(index, embedder, "dense"), questions)
            for on in (True, False):
                with feedback(on):
                    mark = "on" if on else "off"
                    add(f"BM25 alone | {mark}", ranker(index, embedder, "bm25"), questions)
                    for lift, variant in itertools.product(lifts, variants):
                        with lifted(lift):
                            shown = "" if lift is None else f", lift {lift:g}"
                            add(f"{label(variant)}{shown} | {mark}",
                                fused(index, embedder, settings(variant), runner), questions)
    return list(rows.items())


def table(rows: list[tuple[str, list[tuple[float, float]]]], langs: Sequence[str]) -> str:
    def mean(scores: list[tuple[float, float]], i: int) -> float:
        return sum(s[i] for s in scores) / len(scores)

    ordered = sorted(rows, key=lambda row: (-mean(row[1], 0), -mean(row[1], 1)))
    return "\n".join([
        f"| fusion | feedback | {' | '.join(langs)} | mean |",
        "|---|---|" + "---|" * (len(langs) + 1),
        *(f"| {name} | " + " | ".join(f"{h:.3f} / {m:.3f}" for h, m in scores)
          + f" | {mean(scores, 0):.3f} / {mean(scores, 1):.3f} |" for name, scores in ordered)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("keep", type=Path, help="the --keep folder of bench_multilingual.py")
    parser.add_argument("--languages", default=",".join(TUNING))
    parser.add_argument("--fusions", choices=("grid", "entry"), default="grid",
                        help="the grid, or the embedder's catalogue fusion only")
    parser.add_argument("--lifts", default="", help="whole-note lift weights to try, "
                        "comma-separated (default: languages.json's notes.weight)")
    parser.add_argument("--note-vectors", default="", help="note-vector lift weights to try, "
                        "comma-separated (default: the embedder's own)")
    parser.add_argument("--leads", default="", help="lead-sentence lift weights to try, "
                        "comma-separated (default: the embedder's own)")
    args = parser.parse_args()
    langs = [lang for lang in args.languages.split(",") if lang]
    if not langs or set(langs) - set(TUNING):
        parser.error(f"tuning sets only: {', '.join(TUNING)} (Spanish and German are the "
                     "final check, English their reference)")
    started, cpu = time.monotonic(), time.process_time()
    lifts: list[float | None] = [float(w) for w in args.lifts.split(",") if w] or [None]
    near: list[float | None] = [float(w) for w in args.note_vectors.split(",") if w] or [None]
    leads: list[float | None] = [float(w) for w in args.leads.split(",") if w] or [None]
    print(table(sweep(args.keep, langs, args.fusions == "entry", lifts, near, leads), langs))
    load = os.getloadavg()
    print(f"\n{time.monotonic() - started:.0f} s wall, {time.process_time() - cpu:.0f} s CPU "
          f"(this process; the embeddings server's not counted), load average "
          f"{load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
