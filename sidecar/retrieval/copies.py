"""Copies: chunks whose text recurs in many notes, collapsed so one copy stands for all.

A template's boilerplate, a Tasks-plugin list repeated in every daily note, a header or footer
pasted into many notes: their copies score alike and would fill a search's top k. Two chunks are
copies when their text is the same once whitespace and case are normalised, dates and times are
masked (a template stamps each copy with its day), and task checkboxes are read as unchecked (a
repeated list differs by what was ticked). Dates in a heading line are kept: there they name the
chunk (`# 2024-04-22` above a day's mood and sleep), they are not a template's stamp. Other
numbers are kept too: "cost is 40 euros" and "cost is 120 euros" are different facts
(docs/architecture.md, "Copies"; measured in docs/benchmarks.md).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

# A heading line holding a digit: its dates are kept (they name the chunk).
_DATED_HEADING = re.compile(r"^ {0,3}#{1,6}\s.*\d", re.MULTILINE)
_HEADING = re.compile(r"^ {0,3}#{1,6}\s")
# ISO dates (with a time), 22/04/2024-style dates, then times alone: 14:30, 9:05:12 pm. The
# leading digit comes first so the scan skips text without digits quickly.
_DATE = re.compile(
    r"\d(?<!\w\d)(?:\d{3}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?"
    r"|\d?[./]\d{1,2}[./]\d{2,4}"
    r"|\d?:\d{2}(?::\d{2})?(?:\s?[ap]m)?)\b",
    re.IGNORECASE,
)
_CHECKBOX = re.compile(r"^([ \t>]*(?:[-*+]|\d+[.)])[ \t]+)\[.\]", re.MULTILINE)


def _masked(text: str) -> str:
    if _DATED_HEADING.search(text) is None:
        return _DATE.sub("<date>", text)
    return "\n".join(line if _HEADING.match(line) else _DATE.sub("<date>", line)
                     for line in text.splitlines())


def copy_key(text: str) -> str:
    """The key two copies of one text share (a short hash of the normalised text)."""
    normal = " ".join(_masked(_CHECKBOX.sub(r"\1[ ]", text)).lower().split())
    return hashlib.blake2b(normal.encode(), digest_size=16).hexdigest()


def collapse(
    ranked: Sequence[T], key: Callable[[T], str], path: Callable[[T], str]
) -> tuple[list[T], dict[int, list[str]]]:
    """`ranked` (best first) with each copy after the first left out, and, by position in the
    kept list, the other notes holding a copy of the kept one (best first, each named once)."""
    kept: list[T] = []
    first: dict[str, int] = {}
    others: dict[int, list[str]] = {}
    for item in ranked:
        hashed = key(item)
        found = first.get(hashed)
        if found is None:
            first[hashed] = len(kept)
            kept.append(item)
            continue
        where = path(item)
        named = others.setdefault(found, [])
        if where != path(kept[found]) and where not in named:
            named.append(where)
    return kept, others
