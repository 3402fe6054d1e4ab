"""Who a contradiction's two claims come from, and the resolution that follows from it.

The `ai-derived` tag marks an engram that originated on the AI side; the spec keeps it "for the
Engram Cleaning Framework's contradiction reasoning" ('The Vault', 'Tag-based filters'). A scan
records it for both sides of a pair (`evidence.ai_derived`, read through the note's tags reader,
frontmatter and inline tags alike); from it a pair shows `provenance` — each side `ai-derived` or
`user` — and, when exactly one side is AI-derived, a `suggested` resolution that keeps the
user's own note ('The Engram Cleaning Framework'):

* `changed-mind` with the user's note as `newer` when the user's note is dated after the
  AI-derived one: the user's later thinking supersedes the claim they once kept, and the
  supersedes link records that evolution;
* otherwise (the AI-derived note is newer, or a date is missing) `wrong` on the AI-derived note,
  archived rather than deleted: a supersedes link must run from the newer note to the older, so
  the user's older note cannot supersede it, and archiving keeps the mistake as a record.

A suggestion is a default shown in triage, never applied by itself. Derived from the stored
evidence, it needs no column of its own: a queue from before it shows none where a pair lacks
`ai_derived`.
"""

from __future__ import annotations

from typing import Any, Literal

AI = "ai-derived"
USER = "user"
Side = Literal["a", "b"]
# Pairs about which notes disagree; a news proposal is a supersession, not a contradiction.
_CONTRADICTIONS = ("engram", "resource")


def _flags(evidence: dict[str, Any]) -> tuple[bool, bool] | None:
    found = evidence.get("ai_derived")
    if not (isinstance(found, list) and len(found) == 2
            and all(isinstance(f, bool) for f in found)):
        return None
    return found[0], found[1]


def provenance(evidence: dict[str, Any]) -> dict[Side, str] | None:
    """{"a": "ai-derived"|"user", "b": …} from a pair's evidence; None when it does not say."""
    flags = _flags(evidence)
    if flags is None:
        return None
    return {"a": AI if flags[0] else USER, "b": AI if flags[1] else USER}


def _day(value: Any) -> str | None:
    return value[:10] if isinstance(value, str) and len(value) >= 10 else None


def suggestion(kind: str, a_path: str, b_path: str,
               evidence: dict[str, Any]) -> dict[str, str] | None:
    """The resolution to offer first when exactly one side is AI-derived (see the module
    docstring): {"action", "newer" | "note", "reason"}; None otherwise."""
    flags = _flags(evidence)
    if kind not in _CONTRADICTIONS or flags is None or flags[0] == flags[1]:
        return None
    ai_side, user_side = (0, 1) if flags[0] else (1, 0)
    paths = (a_path, b_path)
    dates = evidence.get("dates")
    days = ([_day(d) for d in dates] if isinstance(dates, list) and len(dates) == 2
            else [None, None])
    ai_day, user_day = days[ai_side], days[user_side]
    letters = "ab"
    mine = f"{letters[user_side].upper()} is your own note"
    theirs = f"{letters[ai_side].upper()} came from the AI side (ai-derived)"
    if ai_day is not None and user_day is not None and user_day > ai_day:
        return {"action": "changed-mind", "newer": paths[user_side],
                "reason": f"{mine}, written after {theirs}: keep yours as the newer thinking"}
    return {"action": "wrong", "note": paths[ai_side],
            "reason": f"{theirs} and {mine}: keep yours, archive the AI-derived claim"}
