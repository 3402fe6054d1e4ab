"""Documents: which PDF reader (pypdfium2 or pypdf), and what indexing forty bad PDFs costs.

1. Each reader reads every file in a fresh process under the worker's memory budget
   (RLIMIT_AS, `schema/documents.json`) and time budget: the 14-page test paper, the forty
   broken, fuzzed and odd PDFs of `tests/documents/make_pdfs.py`, and any real PDFs given with
   `--real` (held out: not made by us; `/usr/share/doc/**/*.pdf` by default). Quality on the
   paper: the share of each page's own words found on that page (a reader that merges, drops or
   misplaces pages scores lower). On the corpus: files read, files refused with a reason, and
   files that crashed or ran over a budget.
2. `ora index --json` on a vault holding the paper and the forty, run twice: seconds, the
   `documents` count and `errors`, the sidecar's peak RSS, and the second run (nothing read again).

    python bench/bench_documents.py [--real PDF ...] [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from report import ROOT, cpu_name, report_main

sys.path.insert(0, str(ROOT / "tests" / "documents"))
sys.path.insert(0, str(ROOT))

from make_pdfs import PAGES, bad_corpus, paper_bytes

from sidecar.documents.formats import formats

HEADING = "## Documents"
READERS = ("pypdfium2", "pypdf")
PROSE = (
    'Chosen: pypdfium2. Both read every word of the paper on its right page and every page of '
    'the real PDFs; on the forty bad files pypdfium2 reads half again as many (PDFium recovers '
    'a broken cross-reference table, a missing `%%EOF`, bit flips in the body), takes a third '
    'of the time, and its slowest file took seconds where pypdf took one of them for over '
    'twenty (the endless text stream). The one file neither fits in budget, the zip bomb, ends '
    "pypdfium2's worker at its memory limit and is named in `errors`; the sidecar itself never "
    'holds more than its batches.'
)

_CHILD = r"""
import json, resource, sys, time
reader, path, mb, max_pages = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))
started = time.perf_counter()
out = {"error": None, "pages": []}
try:
    if reader == "pypdfium2":
        import pypdfium2 as pdfium
        doc = pdfium.PdfDocument(path)
        for n in range(min(len(doc), max_pages)):
            page = doc[n]
            out["pages"].append(page.get_textpage().get_text_bounded())
    else:
        from pypdf import PdfReader
        doc = PdfReader(path, strict=False)
        if doc.is_encrypted and not doc.decrypt(""):  # what PDFium does by default
            raise ValueError("needs a password")
        for n, page in enumerate(doc.pages):
            if n >= max_pages:
                break
            out["pages"].append(page.extract_text() or "")
except MemoryError:
    out["error"] = "MemoryError"
except Exception as exc:
    out["error"] = f"{type(exc).__name__}: {exc}"[:120]
out["seconds"] = time.perf_counter() - started
# VmHWM, not ru_maxrss: the latter keeps the forking parent's peak across exec.
out["maxrss_mb"] = next(int(l.split()[1]) for l in open("/proc/self/status")
                        if l.startswith("VmHWM:")) / 1024
sys.stdout.write(json.dumps(out))
"""


# `ora index` in this process, then its own peak RSS (MB) as the last line of stderr.
_INDEX = r"""
import sys
from sidecar.cli import main
code = main(sys.argv[1:])
print(next(int(l.split()[1]) for l in open("/proc/self/status")
           if l.startswith("VmHWM:")) / 1024, file=sys.stderr)
sys.exit(code)
"""


def _read(reader: str, path: Path) -> dict[str, Any]:
    limits = formats().limits
    started = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, reader, str(path), str(limits.memory_mb),
             str(limits.max_pages)], capture_output=True, timeout=limits.seconds, check=False)
    except subprocess.TimeoutExpired:
        return {"outcome": "over time", "seconds": limits.seconds}
    seconds = time.perf_counter() - started
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        return {"outcome": f"crashed ({proc.returncode})", "seconds": seconds}
    if doc["error"]:
        memory = "MemoryError" in doc["error"]
        return {"outcome": "over memory" if memory else "refused", "seconds": seconds,
                "error": doc["error"], "maxrss_mb": doc["maxrss_mb"]}
    texts = doc["pages"]
    return {"outcome": "read" if any(t.strip() for t in texts) else "no text",
            "seconds": seconds, "pages": texts, "maxrss_mb": doc["maxrss_mb"]}


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]{4,}", text.lower()))


def _paper_quality(pages: list[str]) -> float:
    """Mean share of each page's own words found in the text read for that page."""
    shares = []
    for n, page in enumerate(PAGES):
        want = _words(" ".join([page.section, *page.paragraphs, page.figure]))
        got = _words(pages[n]) if n < len(pages) else set()
        shares.append(len(want & got) / len(want))
    return sum(shares) / len(shares)


def _compare(folder: Path, real: list[Path]) -> list[str]:
    paper = folder / "paper.pdf"
    paper.write_bytes(paper_bytes())
    bad = folder / "bad"
    bad.mkdir()
    for name, data in bad_corpus().items():
        (bad / name).write_bytes(data)
    rows = ["| reader | paper: words on the right page | paper: s | corpus: read / no text / "
            "refused / over budget or crashed | corpus: s (total) | corpus: worst s | "
            "worst peak MB | real PDFs: pages with text, s |", "|---|---:|---:|---|---:|---:|"
            "---:|---|"]
    for reader in READERS:
        mine = _read(reader, paper)
        quality = _paper_quality(mine.get("pages", []))
        counts = {"read": 0, "no text": 0, "refused": 0, "other": 0}
        seconds, worst, peak = 0.0, 0.0, 0.0
        for path in sorted(bad.iterdir()):
            got = _read(reader, path)
            key = got["outcome"] if got["outcome"] in counts else "other"
            counts[key] += 1
            seconds += got["seconds"]
            worst = max(worst, got["seconds"])
            peak = max(peak, got.get("maxrss_mb", 0.0))
        reals = []
        for path in real:
            got = _read(reader, path)
            text_pages = sum(1 for t in got.get("pages", []) if t.strip())
            reals.append(f"{path.name}: {text_pages}, {got['seconds']:.2f} s"
                         if got["outcome"] == "read" else f"{path.name}: {got['outcome']}")
        rows.append(
            f"| {reader} | {quality:.3f} | {mine['seconds']:.2f} | {counts['read']} / "
            f"{counts['no text']} / {counts['refused']} / {counts['other']} | {seconds:.1f} | "
            f"{worst:.2f} | {peak:.0f} | {'; '.join(reals) or '-'} |")
    return rows


def _index(folder: Path) -> list[str]:
    vault = folder / "vault"
    (vault / "bad").mkdir(parents=True)
    (vault / "Tidal pumping.pdf").write_bytes(paper_bytes())
    for name, data in bad_corpus().items():
        (vault / "bad" / name).write_bytes(data)
    env = {**os.environ, "ORA_EMBED_MODEL": "int8"}
    out = []
    for run in ("first", "again"):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", _INDEX, "index", str(vault), "--json"],
                              capture_output=True, env=env, check=True)
        seconds = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        doc = json.loads(proc.stdout)
        peak = float(proc.stderr.decode().strip().splitlines()[-1])
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        unread = [e for e in doc["errors"] if e["message"].startswith("not indexed")]
        out.append(
            f"| {run} | {doc['documents']} | {doc['chunks']} | {len(unread)} | "
            f"{len(doc['errors']) - len(unread)} | {doc['embedded']} | {seconds:.1f} | "
            f"{cpu:.1f} | {peak:.0f} |")
    return out


def report(args: argparse.Namespace) -> str:
    real = [Path(p) for p in args.real]
    with tempfile.TemporaryDirectory() as tmp:
        rows = _compare(Path(tmp), real)
    with tempfile.TemporaryDirectory() as tmp:
        index_rows = _index(Path(tmp))
    limits = formats().limits
    return "\n".join([
        HEADING, "",
        f"`bench/bench_documents.py` on {cpu_name()}: each reader reads each file in a fresh "
        f"process with the worker's budget ({limits.memory_mb} MB address space, "
        f"{limits.seconds:g} s, the first {limits.max_pages} pages). The paper is "
        "`tests/documents/make_pdfs.py`'s 14 pages; the corpus its forty broken, fuzzed and odd "
        "PDFs; the real PDFs are the ones this machine had (not made by us).", "",
        *rows, "",
        PROSE, "",
        "`ora index --json` (int8 embedder) on a vault of the paper and the forty: documents "
        "tracked, chunks, unreadable (in `errors`, \"not indexed\"), indexed in part, chunks "
        "embedded, wall and CPU seconds (the workers' included), and the sidecar's own peak "
        "RSS (each worker's is bounded by its budget, and measured in the table above).", "",
        "| run | documents | chunks | unreadable | in part | embedded | s | CPU s | peak MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        *index_rows,
    ])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    default = sorted(str(p) for p in Path("/usr/share/doc").glob("**/*.pdf"))[:4]
    parser.add_argument("--real", nargs="*", default=default, help="real PDFs to read too")
    return report_main(parser, HEADING, report)


if __name__ == "__main__":
    sys.exit(main())
