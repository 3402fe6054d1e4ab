"""Run every test suite (pytest, then vitest) and end with one plain line: `N passed, N failed`.

Both runners write JUnit XML; the counts come from those files so the final line sums both
suites exactly. Exit status is non-zero when a suite fails or cannot run.

pytest runs a worker per logical CPU (pytest-xdist): much of its time is spent waiting on
servers, subprocesses and pip, so two workers on two cores take 8 minutes where one took 20.
Work-stealing gives each worker a contiguous share of the tests and lets an idle one take over the
tail of a busy one's. Extra arguments go to pytest after these, so `-n 0` runs it in one process.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _counts(junit: Path) -> tuple[int, int, int]:
    """(passed, failed, skipped) summed over every <testsuite> in a JUnit XML file."""
    if not junit.exists():
        return 0, 0, 0
    root = ET.parse(junit).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    tests = failed = skipped = 0
    for suite in suites:
        tests += int(suite.get("tests", 0))
        failed += int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        skipped += int(suite.get("skipped", 0))
    return tests - failed - skipped, failed, skipped


def main() -> int:
    out = Path(tempfile.mkdtemp(prefix="ora-tests-"))
    passed = failed = skipped = 0
    status = 0

    py_xml = out / "pytest.xml"
    rc = subprocess.call(
        [sys.executable, "-m", "pytest", "-q", "-n", "logical", "--dist", "worksteal",
         f"--junitxml={py_xml}", *sys.argv[1:]], cwd=ROOT
    )
    p, f, s = _counts(py_xml)
    if rc not in (0, 1) or (rc == 1 and f == 0):
        f += 1  # the runner itself failed (collection error, crash): count it
    status |= rc
    passed, failed, skipped = passed + p, failed + f, skipped + s

    if (ROOT / "package.json").exists():
        vi_xml = out / "vitest.xml"
        rc = subprocess.call(
            ["npx", "vitest", "run", "--reporter=default", "--reporter=junit",
             f"--outputFile.junit={vi_xml}"],
            cwd=ROOT,
        )
        p, f, s = _counts(vi_xml)
        if rc != 0 and f == 0:
            f += 1
        status |= rc
        passed, failed, skipped = passed + p, failed + f, skipped + s

    print()
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if status or failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
