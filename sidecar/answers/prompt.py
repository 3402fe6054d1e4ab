"""The numbered-context prompt, citations, and the extractive answer (ADR-0005 decision 5).

Passages are numbered from 1 in search order; the model is asked to cite them as `[n]`. The
citations of an answer are exactly the passages it was given, numbered as in the prompt, each
marked `cited` when the answer refers to its number, so nothing the model saw is hidden and
nothing it did not see can be cited.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from typing import Any

SYSTEM_PROMPT = (
    "You answer questions from a person's own notes. Use only the numbered passages given with "
    "the question. Cite each statement with the number of the passage it comes from in square "
    "brackets, like [1] or [2][3]. If the passages do not answer the question, say so plainly. "
    "Do not invent sources and do not cite numbers that were not given."
)
_REFS = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")


def citation(n: int, result: dict[str, Any]) -> dict[str, Any]:
    """One citation from one search result: its number, where it is, and its text."""
    return {"n": n, "path": result["path"], "title": result["title"],
            "line_start": result["line_start"], "line_end": result["line_end"],
            "text": result["text"], "private": result["private"], "cited": False}


def numbered_context(citations: Sequence[dict[str, Any]], question: str) -> str:
    """The user message: every passage under its [n] and location, then the question."""
    blocks = [f"[{c['n']}] ({c['path']}, lines {c['line_start']}-{c['line_end']})\n{c['text']}"
              for c in citations]
    return "Passages:\n\n" + "\n\n".join(blocks) + f"\n\nQuestion: {question}"


def referenced(answer: str, count: int) -> set[int]:
    """The passage numbers 1..count the answer cites (`[2]`, `[1, 3]`); others are ignored."""
    found = {int(n) for group in _REFS.findall(answer) for n in re.split(r"[,;]", group)}
    return {n for n in found if 1 <= n <= count}


def mark_cited(citations: list[dict[str, Any]], numbers: set[int]) -> None:
    for c in citations:
        c["cited"] = c["n"] in numbers


def extractive(citations: Sequence[dict[str, Any]], reason: str, quote_chars: int) -> str:
    """The honest answer without a generator: why, then the passages quoted under their [n]."""
    head = f"No answer was generated: {reason}. The most relevant passages from your notes:"
    quotes = [
        f"[{c['n']}] {c['path']}:{c['line_start']}-{c['line_end']}\n> "
        + textwrap.shorten(" ".join(c["text"].split()), quote_chars, placeholder=" …")
        for c in citations
    ]
    return "\n\n".join([head, *quotes])
