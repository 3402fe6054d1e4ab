"""Triage decisions live in the vault: a `type: supervision` note, one readable line per decision.

`DATA/contradictions.sqlite` is a cache. Every status change of a pair is appended (through
`vault/edit.py`) as one line with the time, the status, both notes linked with their lines, and
the pair's id:

    - 2026-11-30 08:40 UTC · dismissed · [[Engrams/Tea]] lines 6-6 ↔ [[Engrams/Coffee]] lines
      6-6 · id 3f9a…   (one line in the note)

After `.ora/` is deleted a rescan offers the same pairs again (ids are stable: the same claims
in the same notes) and each takes the status last recorded for it. A note renamed or moved gives
its pairs new ids: the scan that finds it so records each triaged pair's status again under its
new id (`moves.py`; all of them in one append per note), so the decision follows the note (a
new id the user decided already keeps that decision: nothing is recorded for it). Pairs
involving a private note are recorded in a second note tagged `private`. Paths are
`schema/cleaning.json` `decisions`.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from sidecar.errors import Conflict
from sidecar.schema import load_json
from sidecar.vault.edit import append_to_note
from sidecar.vault.scan import read_regular, symlink_in, vault_path
from sidecar.vault.write import create_note

_LINE = re.compile(r"^- .+ · (?P<status>[a-z]+) · .+ · id (?P<id>[0-9a-f]{16})[ \t]*\r?$", re.M)


@cache
def decision_notes() -> tuple[str, str]:
    """(the decisions note, the one for pairs involving a private note)."""
    d = load_json("cleaning.json")["decisions"]
    return str(d["note"]), str(d["private_note"])


def _side(path: str, start: int, end: int) -> str:
    return f"[[{path.removesuffix('.md')}]] lines {start}-{end}"


def decision_line(pid: str, status: str, a: tuple[str, int, int], b: tuple[str, int, int],
                  when: datetime | None = None) -> str:
    """One decision, readable: when, what, the two notes linked, the pair's id."""
    stamp = (when or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    return f"- {stamp} · {status} · {_side(*a)} ↔ {_side(*b)} · id {pid}\n"


def _head(private: bool) -> str:
    day = datetime.now(UTC).date().isoformat()
    tags = "\n  - private" if private else " []"
    return (f"---\ntype: supervision\nnexus: []\ntags:{tags}\ndate created: {day}\n---\n"
            "# Ora triage decisions\n\nOne line per decision on a contradiction Ora found, "
            "newest last. Ora restores its queue from these lines.\n\n")


class DecisionLog:
    """The decision notes of one vault."""

    def __init__(self, vault: Path) -> None:
        self.vault = vault

    def record(self, pid: str, status: str, a: tuple[str, int, int], b: tuple[str, int, int],
               *, private: bool) -> None:
        """Append one decision (the note is created on first use), through the one
        compare-and-swap writer. Raises when it cannot be written (a full disk: OSError; the
        note empty or changing under an editor's save: Conflict): the queue is rebuilt from
        these lines, so a decision they do not hold must not be made."""
        self.append([decision_line(pid, status, a, b)], private=private)

    def append(self, lines: list[str], *, private: bool) -> None:
        """Append these `decision_line`s to one decisions note in one write (a scan that
        carries many pairs over to a moved note records them all at once: each write is an
        atomic replace of the whole note). Raises as `record` does."""
        if not lines:
            return
        rel = decision_notes()[1 if private else 0]
        text = "".join(lines)
        if not vault_path(self.vault, rel).is_file():
            try:
                create_note(self.vault, rel, _head(private) + text)
                return
            except Conflict:  # created meanwhile: append below
                pass
        append_to_note(self.vault, rel, text, blank_line=False)

    def problems(self) -> list[str]:
        """Why a decisions note is neither read nor written: its folder (or itself) is a
        symbolic link, which Ora does not follow (it could lead out of the vault)."""
        links = dict.fromkeys(link for rel in decision_notes()
                              if (link := symlink_in(self.vault, rel)) is not None)
        return [f"{link} is a symbolic link, which Ora does not follow: the triage decisions "
                "there are not read, and resolving a pair is refused until it is a folder of "
                "the vault" for link in links]

    def statuses(self) -> dict[str, str]:
        """The last status recorded for each pair id, from both notes (a note behind a symbolic
        link is skipped: `problems` says so)."""
        found: dict[str, str] = {}
        for rel in decision_notes():
            if symlink_in(self.vault, rel) is not None:
                continue
            try:
                text = read_regular(vault_path(self.vault, rel)).decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            for m in _LINE.finditer(text):
                found[m["id"]] = m["status"]
        return found
