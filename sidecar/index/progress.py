"""A progress bar on stderr for long index runs: files, chunks, chunks/s, ETA.

On a terminal it redraws one line a few times a second; otherwise (a log file, CI) it prints a
plain line every few seconds so logs stay readable.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from sidecar.index.sync_report import Progress


class StderrProgress:
    """A `ProgressFn` that draws on stderr (or `stream`)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.interval = 0.2 if self.tty else 5.0
        self.started = time.monotonic()
        self.last = 0.0

    def __call__(self, p: Progress) -> None:
        now = time.monotonic()
        final = p.phase == "done"
        if not final and now - self.last < self.interval:
            return
        self.last = now
        elapsed = max(now - self.started, 1e-6)
        rate = p.embedded / elapsed
        eta = elapsed / p.done * (p.total - p.done) if p.done and not final else 0.0
        # In chunks (the embedding pass) the count of chunks written would say it twice.
        written = f"  chunks {p.chunks} " if p.unit == "files" else " "
        line = (
            f"{p.phase:5} {p.unit} {p.done}/{p.total}{written}"
            f"(embedded {p.embedded}, {rate:.0f}/s)  ETA {_clock(eta)}"
        )
        if self.tty:
            self.stream.write("\r\x1b[2K" + line + ("\n" if final else ""))
        elif p.total:
            self.stream.write(line + "\n")
        self.stream.flush()


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds + 0.5), 60)
    return f"{minutes}:{secs:02d}"
