"""Precision and recall of the contradiction judges, written to docs/benchmarks.md.

Two labelled sets:

* `bench/data/claim_pairs.jsonl` — note-like claim pairs labelled contradiction, agreement,
  paraphrase or unrelated (positive = contradiction);
* SciFact — each claim against each abstract its metadata labels SUPPORT or CONTRADICT
  (`queries.jsonl` + `corpus.jsonl`; positive = CONTRADICT), the abstract split into sentences
  like a note; reported per split of `qrels/` (thresholds were set on train only).

Two modes: `judge` gives the judge the labelled pair as is; `pipeline` does what a scan does —
embed the claims, keep the aligned sentence pairs (cosine ≥ `claim_similarity`, at most
`claims_per_pair`), judge them, and call the pair a contradiction if any aligned pair is one.
Every judge available here is measured (rules always; NLI and LLM when configured).

    .venv/bin/python bench/bench_judges.py [--data DIR] [--scifact-limit N] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np
from report import ROOT, SCIFACT, write_section

from sidecar.cleaning.candidates import align
from sidecar.cleaning.claims import split_claims
from sidecar.cleaning.judges import build_judge, judge_status
from sidecar.cleaning.store import NoteState
from sidecar.cleaning.verdict import Judge
from sidecar.cleaning.vocab import get_thresholds
from sidecar.models.embedder import Embedder, load_embedder
from sidecar.settings import make_config

PAIRS = ROOT / "bench" / "data" / "claim_pairs.jsonl"
SECTION = "## Contradictions"
ABOUT = """\
Positive = contradiction. *judge*: the labelled pair handed to the judge as is; *pipeline*: what
`ora contradictions --scan` does — sentences aligned by embedding (cosine ≥ `claim_similarity`,
at most `claims_per_pair`), judged, the pair counted as flagged if any aligned sentence pair is.
`claim_pairs` (`bench/data/claim_pairs.jsonl`, 90 pairs: 40 contradictions, 20 agreements, 15
paraphrases, 15 unrelated) was written by the same hand as the detector's vocabularies, so its
numbers are optimistic; 8 of its contradictions need world knowledge (Sydney vs Canberra, "21
days" vs "two months") and no cue-based detector can find them. SciFact (claim against each
abstract its metadata labels SUPPORT or CONTRADICT) is independent: its contradicting claims are
mostly subtle rewrites, so recall there is low, and precision is the number that matters — the
default judge is tuned to stay quiet rather than flood the queue. The NLI and LLM judges are
measured when a model is installed (`nli_dir`) or an endpoint configured (`llm_url`).

`min_overlap` was chosen on SciFact train alone (the Dice overlap two aligned claims must keep
once the cue words are set aside); train precision / recall at 0.50: 0.73 / 0.11, 0.55: 0.76 /
0.07, 0.60: 0.75 / 0.05, 0.65: 1.00 / 0.03 (claim_pairs unchanged: 32 found, 1-2 false alarms).
At 0.65 the detector reports few SciFact contradictions, and those it reports are right; with 6
and 4 hits the precision estimates are wide (a single false alarm would make test 0.80), so the
claim is "rarely wrong", not "never wrong". What remains beyond it needs an NLI model or an LLM.
"""


@dataclass(frozen=True)
class Item:
    claim: str
    other: list[str]  # the other side's sentences (one for a claim pair)
    positive: bool
    label: str


@dataclass(frozen=True)
class Score:
    dataset: str
    judge: str
    mode: str
    n: int
    positives: int
    tp: int
    fp: int
    seconds: float

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else float("nan")

    @property
    def recall(self) -> float:
        return self.tp / self.positives if self.positives else float("nan")


def claim_pairs() -> list[Item]:
    rows = [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines() if line]
    return [Item(r["a"], [r["b"]], r["label"] == "contradiction", r["label"]) for r in rows]


def scifact(data: Path, limit: int | None, split: str) -> list[Item]:
    """Labelled (claim, abstract) pairs of the queries in qrels/<split>.tsv."""
    with (data / "qrels" / f"{split}.tsv").open(encoding="utf-8") as qrels:
        wanted = {line.split("\t")[0] for line in qrels}
    corpus = {}
    for line in (data / "corpus.jsonl").open(encoding="utf-8"):
        doc = json.loads(line)
        corpus[doc["_id"]] = doc["text"]
    items = []
    for line in (data / "queries.jsonl").open(encoding="utf-8"):
        query = json.loads(line)
        if query["_id"] not in wanted:
            continue
        for doc_id, evidence in sorted(query["metadata"].items()):
            labels = {e["label"] for e in evidence}
            if doc_id not in corpus or len(labels) != 1:
                continue
            sentences = [c.text for c in split_claims(corpus[doc_id])]
            label = labels.pop()
            items.append(Item(query["text"], sentences, label == "CONTRADICT", label))
    return items[:limit] if limit else items


def _state(name: str, texts: list[str], vectors: np.ndarray) -> NoteState:
    return NoteState(name, "", 0, 0, "engram", False, name, None, None,
                     claims=[(t, 0, 0) for t in texts], vectors=np.vstack([vectors, vectors[:1]]))


async def run_judge(judge: Judge, items: list[Item]) -> list[bool]:
    verdicts = await judge.judge([(i.claim, i.other[0]) for i in items])
    return [v.contradiction for v in verdicts]


async def run_pipeline(judge: Judge, embedder: Embedder, items: list[Item]) -> list[bool]:
    limits = get_thresholds()
    texts = [t for i in items for t in [i.claim, *i.other]]
    vectors = embedder.embed(texts)
    work: list[tuple[int, str, str]] = []
    at = 0
    for n, item in enumerate(items):
        claim = _state("a", [item.claim], vectors[at: at + 1])
        other = _state("b", item.other, vectors[at + 1: at + 1 + len(item.other)])
        at += 1 + len(item.other)
        for al in align(claim, other, limits.claim_similarity, limits.claims_per_pair):
            work.append((n, item.claim, item.other[al.j]))
    verdicts = await judge.judge([(a, b) for _, a, b in work])
    hit = [False] * len(items)
    for (n, _, _), verdict in zip(work, verdicts, strict=True):
        hit[n] = hit[n] or verdict.contradiction
    return hit


def score(dataset: str, judge: str, mode: str, items: list[Item], predicted: list[bool],
          seconds: float) -> Score:
    tp = sum(p and i.positive for p, i in zip(predicted, items, strict=True))
    fp = sum(p and not i.positive for p, i in zip(predicted, items, strict=True))
    return Score(dataset, judge, mode, len(items), sum(i.positive for i in items), tp, fp,
                 round(seconds, 1))


def false_alarms(items: list[Item], predicted: list[bool]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for p, i in zip(predicted, items, strict=True):
        if p and not i.positive:
            counts[i.label] = counts.get(i.label, 0) + 1
    return counts


def table(scores: list[Score]) -> str:
    lines = ["| set | judge | mode | pairs | contradictions | flagged right | false alarms "
             "| precision | recall | s |", "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for s in scores:
        lines.append(f"| {s.dataset} | {s.judge} | {s.mode} | {s.n} | {s.positives} | {s.tp} "
                     f"| {s.fp} | {s.precision:.2f} | {s.recall:.2f} | {s.seconds} |")
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SCIFACT, help="the BEIR SciFact folder")
    parser.add_argument("--scifact-limit", type=int, help="only the first N SciFact pairs")
    parser.add_argument("--no-write", action="store_true", help="print, do not edit the docs")
    args = parser.parse_args()
    config = make_config(ROOT)
    embedder = load_embedder(config)
    sets = {"claim_pairs": claim_pairs(),
            "SciFact train": scifact(args.data, args.scifact_limit, "train"),
            "SciFact test": scifact(args.data, args.scifact_limit, "test")}
    scores, notes = [], []
    for status in judge_status(config):
        if not status["available"]:
            notes.append(f"- {status['name']}: not measured ({status['reason']})")
            continue
        judge = build_judge(config, status["name"])
        for name, items in sets.items():
            modes = ("judge", "pipeline") if name == "claim_pairs" else ("pipeline",)
            for mode in modes:
                started = time.monotonic()
                predicted = await (run_judge(judge, items) if mode == "judge"
                                   else run_pipeline(judge, embedder, items))
                scores.append(score(name, judge.name, mode, items, predicted,
                                    time.monotonic() - started))
                if name == "claim_pairs":
                    notes.append(f"- {judge.name} {mode} false alarms on claim_pairs by label: "
                                 f"{false_alarms(items, predicted) or 'none'}")
                print(table(scores[-1:]).splitlines()[-1], flush=True)
    limits = get_thresholds()
    body = (
        f"`bench/bench_judges.py`, {date.today().isoformat()}, {platform.machine()}, "
        f"embedder `{embedder.model_id}`; thresholds from `schema/cleaning.json` "
        f"(claim_similarity {limits.claim_similarity}, rules_threshold "
        f"{limits.rules_threshold}, min_overlap {limits.min_overlap}).\n\n"
        + table(scores) + "\n\n" + ABOUT + "\n" + "\n".join(notes) + "\n"
    )
    print(body)
    if not args.no_write:
        write_section(SECTION, f"{SECTION}\n\n{body}")


if __name__ == "__main__":
    asyncio.run(main())
