"""What every bench/ script shares: paths, the CPU's name, percentiles, docs/benchmarks.md.

The scripts run as `.venv/bin/python bench/<script>.py`, so `bench/` is on `sys.path` and they
import this module as `report`.
"""

from __future__ import annotations

import argparse
import platform
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
# The BEIR copy of SciFact sits beside the checkout; every script takes `--data` to override it.
SCIFACT = ROOT.parent / "shared" / "eval" / "scifact"


def cpu_name() -> str:
    """The CPU's model name (Linux), else whatever `platform` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def percentile(values: Sequence[float], q: float) -> float:
    """The sample nearest to quantile `q` (0..1) of `values`; no interpolation."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def interleaved(trees: Mapping[str, Path], rounds: int,
                run: Callable[[str, Path], dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """`run(label, tree)` for each tree, `rounds` times, the trees taking turns so the
    machine's drift falls on each alike; each run is printed to stderr as it ends."""
    results: dict[str, list[dict[str, Any]]] = {label: [] for label in trees}
    for r in range(rounds):
        for label, tree in trees.items():
            found = run(label, tree)
            print(f"{label} round {r}: {found}", file=sys.stderr)
            results[label].append(found)
    return results


# A section's notes written by hand go below this line: `--write` replaces only what is above it.
KEEP = "<!-- kept on rewrite: notes written by hand -->"


def write_section(heading: str, text: str, doc: Path = DOC) -> None:
    """Put `text` (starting with the line `heading`) in place of that section of `doc`, or
    append it; every other section, and the section's lines from `KEEP` on, stay as they are."""
    old = doc.read_text(encoding="utf-8") if doc.exists() else "# Benchmarks\n"
    lines = old.splitlines(keepends=True)
    section = text.strip("\n") + "\n"
    start = next((i for i, line in enumerate(lines) if line.rstrip() == heading), None)
    if start is None:
        new = old.rstrip("\n") + "\n\n" + section
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
                   len(lines))
        keep = next((i for i in range(start + 1, end) if lines[i].rstrip() == KEEP), end)
        notes = "".join(lines[keep:end]).rstrip("\n")
        if notes:
            section += "\n" + notes + "\n"
        tail = "".join(lines[end:])
        new = "".join(lines[:start]) + section + ("\n" + tail if tail else "")
    doc.write_text(new, encoding="utf-8")


def section_main(
    doc: str | None, heading: str, report: Callable[[Any], str], option: str, **spec: Any
) -> int:
    """`main` of a script measuring one section: takes `option` (argparse `spec`) and `--write`,
    prints `report(<option's value>)` and with `--write` stores it as the `heading` section."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument(option, **spec)
    return report_main(parser, heading,
                       lambda args: report(getattr(args, option.lstrip("-").replace("-", "_"))))


def report_main(
    parser: argparse.ArgumentParser, heading: str, report: Callable[[argparse.Namespace], str]
) -> int:
    """`main` of a script measuring one section with its own options: adds `--write`, prints
    `report(args)` and with `--write` stores it as the `heading` section."""
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    text = report(args)
    print(text)
    if args.write:
        write_section(heading, text)
    return 0
