"""`ora watch --json`: one JSON document on stdout when it stops, as DESIGN's CLI contract says
of every `--json` (the flag used to be accepted and nothing printed)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from .conftest import write


def test_ora_watch_json_prints_one_summary_document_when_stopped(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write(vault, "Note.md", "# Note\n\nSome text about tomatoes.\n")
    ora = str(Path(sys.executable).parent / "ora")
    proc = subprocess.Popen(
        [ora, "watch", str(vault), "--data", str(tmp_path / "data"), "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "ORA_DEBOUNCE_MS": "100", "ORA_EMBED_MODEL": "int8"})
    assert proc.stderr is not None and proc.stdout is not None
    try:
        for line in proc.stderr:  # ends at EOF if the process dies: no unbounded wait
            if "watching" in line:
                break
        write(vault, "Later.md", "# Later\n\nA note written while watched.\n")
        for line in proc.stderr:
            if "path(s) applied" in line:
                break
        proc.send_signal(signal.SIGINT)
        status = proc.wait(timeout=60)
        out = proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    assert status == 0
    summary = json.loads(out)  # the whole of stdout is one document
    assert summary["files"] == 1 and summary["chunks"] >= 1
    assert summary["watched"]["paths"] >= 1 and summary["watched"]["embedded"] >= 1
    assert set(summary["caught_up"]) == {"embedded", "removed"}
