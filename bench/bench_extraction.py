"""Precision and recall of extraction on a labelled set of conversations, written to
docs/benchmarks.md.

`bench/data/extraction/conversations.json` holds the engrams a vault already has and
conversations whose every sentence is labelled: proposed (with the standalone text expected, and
the engram it contradicts), or dropped as pushback, duplicate (of which engram) or not a claim.
The vault is built in a temporary folder (engram notes, chat notes as Ora writes them), indexed
with the configured embedder, and each conversation extracted as `ora extract` does, by the rule
extractor (and by the LLM extractor too when `llm_url` is set). An output matches a label of its
conversation when their normalised texts are equal, else when their content words overlap by at
least 0.8 (the same claim, worded a little differently).

    .venv/bin/python bench/bench_extraction.py [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

from report import ROOT, cpu_name, write_section

from sidecar.extraction import IndexEngrams, Plan, load_source, plan_extraction
from sidecar.extraction.gate import overlap
from sidecar.extraction.proposals import normalise
from sidecar.index import open_index
from sidecar.memory.chat_note import new_note, turn_section
from sidecar.models.choice import load_embedder
from sidecar.settings import Config, make_config

DATA = ROOT / "bench" / "data" / "extraction" / "conversations.json"
SECTION = "## Extraction"
REASONS = ("pushback", "duplicate", "not-a-claim")
WHEN = "2026-11-30T08:40:{:02d}+00:00"


def _vault(root: Path, data: dict[str, Any]) -> None:
    for rel, claim in data["engrams"].items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        title = Path(rel).stem
        path.write_text(f"---\ntype: engram\nnexus: []\ntags: []\n---\n# {title}\n\n{claim}\n",
                        encoding="utf-8")
    for conv in data["conversations"]:
        text = new_note(conv["id"], "default", WHEN.format(0))
        sections = [turn_section(role, content, WHEN.format(n), private=False)
                    for n, (role, content) in enumerate(conv["turns"], 1)]
        path = root / "Chats" / "Ora" / f"{conv['id']}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join([text, *sections]), encoding="utf-8")


def _match(text: str, labels: list[dict[str, Any]], used: set[int]) -> dict[str, Any] | None:
    for exact in (True, False):
        for i, label in enumerate(labels):
            if i in used:
                continue
            same = (normalise(text) == normalise(label["text"]) if exact
                    else overlap(text, label["text"]) >= 0.8)
            if same:
                used.add(i)
                return dict(label)
    return None


def _score(plans: dict[str, Plan], data: dict[str, Any]) -> dict[str, Any]:
    counts = {k: {"expected": 0, "produced": 0, "correct": 0} for k in ("propose", *REASONS)}
    contradicts = {"expected": 0, "produced": 0, "correct": 0}
    misses: list[str] = []
    for conv in data["conversations"]:
        labels, used = conv["expect"], set[int]()
        for label in labels:
            counts[label["reason"]]["expected"] += 1
            contradicts["expected"] += "contradicts" in label
        doc = plans[conv["id"]].as_json()
        outputs = [("propose", p["text"], p) for p in doc["proposals"]] + [
            (d["reason"], d["text"], d) for d in doc["dropped"]]
        for kind, text, item in outputs:
            counts[kind]["produced"] += 1
            label = _match(text, labels, used)
            right = label is not None and label["reason"] == kind and (
                kind != "duplicate" or label.get("of") == item.get("of"))
            counts[kind]["correct"] += right
            if kind == "propose":
                contradicts["produced"] += bool(item["contradicts"])
                contradicts["correct"] += bool(label and label.get("contradicts") in
                                               item["contradicts"])
            if not right:
                misses.append(f"{conv['id']}: {kind} {text!r}"
                              + (f" (labelled {label['reason']})" if label else " (no label)"))
        misses += [f"{conv['id']}: missed {label['reason']} {label['text']!r}"
                   for i, label in enumerate(labels) if i not in used]
    return {"counts": counts, "contradicts": contradicts, "misses": misses}


async def _plans(config: Config, data: dict[str, Any]) -> dict[str, Plan]:
    embedder = load_embedder(config)
    with open_index(config, embedder=embedder) as index:
        index.reconcile()
        lookup = IndexEngrams(index, embedder, private=False)
        return {conv["id"]: await plan_extraction(
            config, load_source(config, conversation=conv["id"]), lookup)
            for conv in data["conversations"]}


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.2f}" if b else "–"


def _table(name: str, result: dict[str, Any], seconds: float, n: int) -> list[str]:
    rows = []
    for kind, c in {**result["counts"], "contradicts": result["contradicts"]}.items():
        rows.append(f"| {name} | {kind} | {c['expected']} | {c['produced']} | {c['correct']} | "
                    f"{_ratio(c['correct'], c['produced'])} | "
                    f"{_ratio(c['correct'], c['expected'])} |")
    rows.append(f"| {name} | ({n} conversations, {seconds:.1f} s) | | | | | |")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--no-write", action="store_true", help="print, do not write the doc")
    args = parser.parse_args()
    data = json.loads(DATA.read_text(encoding="utf-8"))
    lines = [SECTION, ""]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        _vault(root, data)
        base = make_config(root, Path(tmp) / "data")
        extractors = [("rules", base.with_values(llm_url=""))]
        if str(base.llm_url):
            extractors.append((f"llm:{base.llm_model or 'default'}", base))
        rows, notes = [], []
        for name, config in extractors:
            started = time.monotonic()
            plans = asyncio.run(_plans(config, data))
            seconds = time.monotonic() - started
            result = _score(plans, data)
            rows += _table(name, result, seconds, len(plans))
            notes += [f"- {name}: {m}" for m in result["misses"]]
        embedder = load_embedder(base).model_id
    lines += [
        f"`bench/bench_extraction.py`, {date.today().isoformat()}, {platform.machine()} "
        f"({cpu_name()}), "
        f"embedder `{embedder}`; thresholds from `schema/extraction.json` and "
        "`schema/cleaning.json`.", "",
        "| extractor | outcome | labelled | produced | correct | precision | recall |",
        "|---|---|---:|---:|---:|---:|---:|", *rows, "",
        ABOUT, "", "What it got wrong:", "", *notes]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        write_section(SECTION, text)
    return 0


ABOUT = """\
`bench/data/extraction/conversations.json`: 16 conversations, 53 labelled sentences, written
by hand for issue #26 before the extractor was measured on them (the same hand wrote the
extractor's vocabularies, so the numbers are optimistic). *propose*: proposals that should be
proposed (a proposal of a sentence labelled as a drop is a false proposal); *pushback*,
*duplicate*, *not-a-claim*: drops with that reason that carry that label (a duplicate also naming
the right engram); *contradicts*: proposals marked as contradicting the engram the label names.
Precision = correct / produced, recall = correct / labelled. The first run found one defect in the
gate, fixed since (a user's correction that negates the assistant's claim was dropped as a
repetition of it: docs/reliability.md). A user test on 2026-12-04 led to rules for chatter in
clauses and for numbers written as words (digits for the detector); the example "Sure, I can
help." of this set was among the cases they were written against, so that line is no longer
blind. Nothing else was tuned to this set, so the misses below are the rule extractor's known
limits: a pronoun after a verb it does not know ("Teenagers need…"), a paraphrase the embedder
scores under `duplicate_similarity`, pushback without a cue or a contradiction ("That sounds
too little.": "four to five hours" is now proposed as contradicting the sleep engram's "seven
to nine", right, but the set labels it pushback), and a claim that needs "that" to be
resolved. The LLM extractor, measured when `llm_url` is set, is there for these."""


if __name__ == "__main__":
    raise SystemExit(main())
