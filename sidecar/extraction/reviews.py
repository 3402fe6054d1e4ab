"""The plans shown for review, kept until they are accepted, across a restart of the server.

An accept gates a held plan's candidates again on the note as it is (`extract.regated`) instead
of asking the model anew, so what is written is what was reviewed. The plans are kept in the
data folder (`extraction-reviews.json`, mode 0600 like every file there), so a server restarted
between the review and the accept (the plugin reloaded, the machine asleep) still has them: what
it keeps of each is what `regated` reads, the candidates with their turns as they were. A file
that cannot be read is started afresh (an accept then plans again, as before the first review).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections import OrderedDict
from dataclasses import asdict
from pathlib import Path
from typing import Any

from sidecar.data_folder import FILE_MODE
from sidecar.extraction.proposals import Candidate, Plan, Source, Turn, extraction_data

FILE = "extraction-reviews.json"
# 2: a candidate says whether it holds a private turn's words (`private`); a plan held in format
# 1 lacks it and would read as public, so it is planned again.
FORMAT = 2


class Reviews:
    """The plans last shown for review, the latest of each source note and mode (private or
    not), at most `most` (`schema/extraction.json` `review`), the oldest forgotten first; kept
    in `data` when given."""

    def __init__(self, most: int | None = None, data: Path | None = None) -> None:
        self._most = int(extraction_data()["review"]["plans_held"]) if most is None else most
        self._file = None if data is None else data / FILE
        self._plans: OrderedDict[tuple[str, bool], Plan] = OrderedDict(
            _load(self._file) if self._file is not None else ())
        self._guard = threading.Lock()  # two reviews kept at once write the file in turn

    def keep(self, plan: Plan, *, private: bool) -> None:
        """Hold `plan` (a worker thread's to call: it writes the file)."""
        key = (plan.source.path, private)
        with self._guard:
            self._plans.pop(key, None)
            self._plans[key] = plan
            while len(self._plans) > self._most:
                self._plans.popitem(last=False)
            if self._file is not None:
                # held in memory all the same: a disk that refuses it loses it at a restart only
                with contextlib.suppress(OSError):
                    _save(self._file, self._plans)

    def held(self, source: Source, *, private: bool) -> Plan | None:
        """The plan reviewed of `source`'s note in this mode, if it is still held and the note
        still holds the same conversation or document."""
        plan = self._plans.get((source.path, private))
        if plan is None or (plan.source.id, plan.source.kind) != (source.id, source.kind):
            return None
        return plan


def _save(file: Path, plans: OrderedDict[tuple[str, bool], Plan]) -> None:
    doc = {"format": FORMAT, "plans": [
        {"path": path, "private": private, "id": plan.source.id, "kind": plan.source.kind,
         "extractor": plan.extractor, "fallback": plan.fallback,
         "candidates": [asdict(c) for c in plan.candidates]}
        for (path, private), plan in plans.items()]}
    tmp = file.with_name(f".{file.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(doc, out, ensure_ascii=False)
    os.replace(tmp, file)


def _load(file: Path) -> list[tuple[tuple[str, bool], Plan]]:
    """The plans kept in `file`, as much of each as `regated` reads; none when it is missing
    or cannot be read."""
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
        if doc.get("format") != FORMAT:
            return []
        return [((str(p["path"]), bool(p["private"])), _plan(p)) for p in doc["plans"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []


def _plan(kept: dict[str, Any]) -> Plan:
    source = Source(str(kept["id"]), str(kept["path"]), "", [], [], False, frozenset(),
                    str(kept["kind"]))
    candidates = [Candidate(**{**c, "turn": Turn(**c["turn"])}) for c in kept["candidates"]]
    return Plan(source, str(kept["extractor"]), [], [], kept["fallback"], candidates)
