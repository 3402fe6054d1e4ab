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

A third measure, AI-derived notes: every claim_pairs pair written as two engrams of a vault of
their own, one tagged `ai-derived` (`AI_SECTION`), scanned as `ora contradictions --scan` does;
it reports how often a found pair names the AI-derived side right and suggests the resolution
that keeps the user's own note.

    .venv/bin/python bench/bench_judges.py [--data DIR] [--scifact-limit N] [--no-write]
                                           [--ai-derived-only]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import tempfile
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
from report import ROOT, SCIFACT, write_section

from sidecar.cleaning.candidates import align
from sidecar.cleaning.claims import split_claims
from sidecar.cleaning.judges import build_judge, judge_status
from sidecar.cleaning.scan import scan
from sidecar.cleaning.store import NoteState, Queue
from sidecar.cleaning.verdict import Judge
from sidecar.cleaning.vocab import get_thresholds
from sidecar.models.choice import load_embedder
from sidecar.models.embedder import Embedder
from sidecar.settings import Config, make_config

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


AI_SECTION = "## Contradictions: AI-derived notes"
AI_ABOUT = """\
Each of the 90 claim_pairs pairs is written as two `type: engram` notes in a vault of its own,
one of them tagged `ai-derived` — in `tags:` for half of them, as an inline `#ai-derived` for
the other half — with the user's note the newer for half of them, and scanned as `ora
contradictions --scan` does (survey, embedding, alignment, the judge, the queue). *found*:
contradictions queued (false alarms: non-contradictions queued); *provenance right*: found pairs
whose `provenance` names the tagged note `ai-derived` and the other `user`; *keeps the user's
note*: found pairs whose `suggested` resolution leaves the user's note as it is (`wrong` on the
AI-derived note, or `changed-mind` with the user's note as `newer`); *as dated*: the suggestion
is `changed-mind` exactly when the user's note is the newer (`sidecar/cleaning/provenance.py`).
The suggestion follows from the provenance and the dates by rule, so *keeps the user's note*
falls below *found* only where the chain breaks (a tag not read, sides swapped, a date lost):
it checks the chain end to end, while *found* is what differs between judges. The LLM judge,
when measured, is told which claim is AI-derived (`judges.llm_prompt` in
`schema/cleaning.json`).
"""


def _engram(claim: str, day: str, tag: str | None) -> str:
    tags = "[ai-derived]" if tag == "frontmatter" else "[]"
    inline = "\n#ai-derived\n" if tag == "inline" else ""
    return (f"---\ntype: engram\nnexus: []\ntags: {tags}\ndate created: {day}\n---\n"
            f"{claim}\n{inline}")


def ai_case(n: int, row: dict[str, Any], root: Path) -> tuple[str, str, bool]:
    """Write pair `n` as two notes under `root`: (the user's path, the AI-derived path,
    whether the user's note is the newer). Which side is AI-derived, where its tag is written
    and which note is newer vary with n, so every combination is measured."""
    ai_is_a, inline, user_newer = n % 2 == 0, n % 4 >= 2, n % 8 >= 4
    user_text, ai_text = (row["b"], row["a"]) if ai_is_a else (row["a"], row["b"])
    user_day, ai_day = ("2024-05-01", "2022-05-01") if user_newer else ("2022-05-01", "2024-05-01")
    # one-word names: a title of three words or more would be a claim of its own
    user, ai = f"Engrams/u{n}.md", f"Engrams/x{n}.md"
    (root / "Engrams").mkdir(parents=True)
    (root / user).write_text(_engram(user_text, user_day, None), encoding="utf-8")
    (root / ai).write_text(_engram(ai_text, ai_day, "inline" if inline else "frontmatter"),
                           encoding="utf-8")
    return user, ai, user_newer


def _keeps_user(doc: dict[str, Any], user: str, ai: str) -> bool:
    s = doc.get("suggested") or {}
    return (s.get("action") == "wrong" and s.get("note") == ai) or (
        s.get("action") == "changed-mind" and s.get("newer") == user)


async def run_ai_derived(judge_name: str, embedder: Embedder) -> dict[str, Any]:
    """Scan every claim_pairs pair as an AI-derived / user note pair; the counts of AI_ABOUT."""
    rows = [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines() if line]
    counts: dict[str, Any] = {"pairs": len(rows), "contradictions": 0, "found": 0,
                              "false_alarms": 0, "provenance_right": 0, "keeps_user": 0,
                              "as_dated": 0}
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for n, row in enumerate(rows):
            vault = Path(tmp) / f"v{n}"
            user, ai, user_newer = ai_case(n, row, vault)
            case = make_config(vault, Path(tmp) / f"d{n}")  # judges configured as `config`
            queue = Queue(case.data)
            try:
                await scan(case, queue, embedder, build_judge(case, judge_name))
                docs = [p.as_json() for p in queue.pairs("open", kind="engram")]
            finally:
                queue.close()
            positive = row["label"] == "contradiction"
            counts["contradictions"] += positive
            if not docs:
                continue
            counts["found" if positive else "false_alarms"] += 1
            if not positive:
                continue
            doc = docs[0]
            sides = {doc[s]["path"]: doc["provenance"][s] for s in ("a", "b")}
            counts["provenance_right"] += sides == {user: "user", ai: "ai-derived"}
            counts["keeps_user"] += _keeps_user(doc, user, ai)
            counts["as_dated"] += (doc["suggested"]["action"] == "changed-mind") == user_newer
    counts["seconds"] = round(time.monotonic() - started, 1)
    return counts


def ai_table(results: dict[str, dict[str, Any]]) -> str:
    lines = ["| judge | pairs | contradictions | found | false alarms | provenance right "
             "| keeps the user's note | as dated | s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, c in results.items():
        found = c["found"] or 1
        lines.append(f"| {name} | {c['pairs']} | {c['contradictions']} | {c['found']} "
                     f"| {c['false_alarms']} | {c['provenance_right']}/{c['found']} "
                     f"| {c['keeps_user']}/{c['found']} ({c['keeps_user'] / found:.0%}) "
                     f"| {c['as_dated']}/{c['found']} | {c['seconds']} |")
    return "\n".join(lines)


async def ai_derived_section(config: Config, embedder: Embedder) -> str:
    results: dict[str, dict[str, Any]] = {}
    notes = []
    for status in judge_status(config):
        if not status["available"]:
            notes.append(f"- {status['name']}: not measured ({status['reason']})")
            continue
        name = build_judge(config, status["name"]).name
        results[name] = await run_ai_derived(status["name"], embedder)
        print(ai_table({name: results[name]}).splitlines()[-1], flush=True)
    return (f"{AI_SECTION}\n\n`bench/bench_judges.py`, {date.today().isoformat()}, "
            f"{platform.machine()}, embedder `{embedder.model_id}`.\n\n{ai_table(results)}\n\n"
            + AI_ABOUT + ("\n" + "\n".join(notes) + "\n" if notes else ""))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SCIFACT, help="the BEIR SciFact folder")
    parser.add_argument("--scifact-limit", type=int, help="only the first N SciFact pairs")
    parser.add_argument("--no-write", action="store_true", help="print, do not edit the docs")
    parser.add_argument("--ai-derived-only", action="store_true",
                        help="measure only the AI-derived notes (no SciFact needed)")
    args = parser.parse_args()
    config = make_config(ROOT)
    embedder = load_embedder(config)
    ai_section = await ai_derived_section(config, embedder)
    print(ai_section)
    if not args.no_write:
        write_section(AI_SECTION, ai_section)
    if args.ai_derived_only:
        return
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
