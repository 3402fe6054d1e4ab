"""bench/report.py's `write_section`: a script's `--write` replaces its own section's output and
nothing else, keeping the notes written by hand below the `KEEP` line."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _report() -> ModuleType:
    # The bench scripts import it as `report` with bench/ on sys.path; here it is read by path.
    spec = importlib.util.spec_from_file_location("bench_report", ROOT / "bench" / "report.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


report = _report()

DOC = """# Benchmarks

## Lint

old lint table

## Index

old index table

{keep}

A note written by hand.

| a table by hand |
|---|

## Server

server text
"""


@pytest.mark.parametrize(("heading", "old", "new"), [
    ("## Index", "old index table", "new index table\n\n\n"),  # kept notes below
    ("## Lint", "old lint table", "new lint table"),  # no KEEP line: replaced whole
])
def test_a_section_is_replaced_and_its_notes_kept(
    tmp_path: Path, heading: str, old: str, new: str
) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text(DOC.format(keep=report.KEEP), encoding="utf-8")
    report.write_section(heading, f"{heading}\n\n{new}", doc)
    assert doc.read_text(encoding="utf-8") == DOC.format(keep=report.KEEP).replace(
        old, new.strip("\n"))


def test_the_last_section_keeps_its_notes_too(tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text(f"# Benchmarks\n\n## Server\n\nold\n\n{report.KEEP}\n\nby hand\n", "utf-8")
    report.write_section("## Server", "## Server\n\nnew", doc)
    assert doc.read_text(encoding="utf-8") == (
        f"# Benchmarks\n\n## Server\n\nnew\n\n{report.KEEP}\n\nby hand\n")


def test_a_new_section_is_appended(tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text(DOC.format(keep=report.KEEP), encoding="utf-8")
    report.write_section("## Rerank", "## Rerank\n\nfresh\n", doc)
    text = doc.read_text(encoding="utf-8")
    assert text == DOC.format(keep=report.KEEP) + "\n## Rerank\n\nfresh\n"


def test_the_benchmarks_page_has_at_most_one_kept_line_per_section() -> None:
    sections = re.split(r"^## ", (ROOT / "docs" / "benchmarks.md").read_text("utf-8"), flags=re.M)
    for section in sections:
        assert section.count(report.KEEP) <= 1, section.splitlines()[0]


def test_every_section_a_bench_script_writes_is_on_the_page() -> None:
    """A heading missing from the page (renamed by hand) makes `--write` append a second copy."""
    headings = [line for line in (ROOT / "docs" / "benchmarks.md").read_text("utf-8").splitlines()
                if line.startswith("## ")]
    written = {m.group(1).rstrip() for script in (ROOT / "bench").glob("*.py")
               for m in re.finditer(r'"{1,3}(## [^"\n{]+)', script.read_text("utf-8"))}
    assert len(written) > 15
    # a heading split over string literals is matched by its first part
    assert sorted(h for h in written if not any(line.startswith(h) for line in headings)) == []
