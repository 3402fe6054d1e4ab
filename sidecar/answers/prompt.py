"""The numbered-context prompt, citations, and the extractive answer (ADR-0005 decision 5).

Passages are numbered from 1 in search order; the model is asked to cite them as `[n]`. The
citations of an answer are exactly the passages it was given, numbered as in the prompt, each
marked `cited` when the answer refers to its number, so nothing the model saw is hidden and
nothing it did not see can be cited: `given_refs` takes every number the model was not given out
of the answer's markers (`[3, 9]` → `[3]`, `[7]` → nothing) and writes a group as single markers
(`[1, 3]` → `[1][3]`, each one a link in the plugin). A streamed answer's pieces are cleaned the
same way as they arrive (`pipeline.AnswerDeltas`): a marker split across pieces is held back
until it closes, so no piece carries a number the model was not given.

Each passage carries its status flags ('The Vault', 'Tag-based filters': "the consuming model
knows the content is mid-review"): the prompt says what each flag means (`schema/memory.json`
`passage_flags`), and the citations and the extractive answer show the same flags.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from functools import cache
from typing import Any

from sidecar.documents.formats import cited_span, cited_where
from sidecar.schema import load_json

SYSTEM_PROMPT = (
    "You answer questions from a person's own notes. Use only the numbered passages given with "
    "the question. Cite each statement with the number of the passage it comes from in square "
    "brackets, like [1] or [2][3]. If the passages do not answer the question, say so plainly. "
    "Do not invent sources and do not cite numbers that were not given. A passage marked "
    "with a status (for example incubating or superseded) is not settled: say so when you "
    "rely on it."
)
_REFS = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
# A marker with the blanks around it, so a removed one leaves no double or dangling space.
_SPACED_REFS = re.compile(
    r"(?P<lead>[ \t]*)\[(?P<group>\d+(?:\s*[,;]\s*\d+)*)\](?P<trail>[ \t]*)")


@cache
def flag_meanings() -> dict[str, str]:
    """What each result flag tells the model (`schema/memory.json` `passage_flags`)."""
    found = load_json("memory.json")["passage_flags"]
    return {str(k): str(v) for k, v in found.items() if k != "description"}


def citation(n: int, result: dict[str, Any]) -> dict[str, Any]:
    """One citation from one search result: its number, where it is, its text and its status
    flags (the result's, and `private` for a private passage)."""
    flags = list(result.get("flags", []))
    if result["private"] and "private" not in flags:
        flags.append("private")
    found = {"n": n, "path": result["path"], "title": result["title"],
             "line_start": result["line_start"], "line_end": result["line_end"],
             "text": result["text"], "private": result["private"], "flags": flags,
             "cited": False}
    if "page" in result:  # a document's page (docs/documents.md)
        found |= {"page": result["page"], "link": result["link"]}
    return found


def flag_text(flags: Sequence[str], *, explained: bool) -> str:
    """`` or ` (incubating)`, or with `explained` ` (incubating: provisional, mid-review)`."""
    if not flags:
        return ""
    meanings = flag_meanings()
    parts = [f"{f}: {meanings[f]}" if explained and f in meanings else f for f in flags]
    return f" ({'; '.join(parts)})"


def numbered_context(citations: Sequence[dict[str, Any]], question: str,
                     web: Sequence[dict[str, Any]] = ()) -> str:
    """The user message: every passage under its [n], location and flags, then (with the web
    tier) the external results under [Wn] with tier and weight, then the question."""
    blocks = [f"[{c['n']}] ({c['path']}, {cited_span(c)})"
              f"{flag_text(c['flags'], explained=True)}\n{c['text']}"
              for c in citations]
    text = ("Passages:\n\n" + "\n\n".join(blocks) if blocks else
            "Passages: none (nothing in the person's notes matches this question).")
    if web:
        found = [f"[W{n}] ({r['url']}; web tier {r['tier']}, weight {r['weight']})\n"
                 f"{r['title']}. {r['text']}" for n, r in enumerate(web, start=1)]
        text += ("\n\nWeb results (external, not from the person's notes; weigh them below "
                 "the passages):\n\n" + "\n\n".join(found))
    return text + f"\n\nQuestion: {question}"


def referenced(answer: str, count: int) -> set[int]:
    """The passage numbers 1..count the answer cites (`[2]`, `[1, 3]`); others are ignored."""
    found = {int(n) for group in _REFS.findall(answer) for n in re.split(r"[,;]", group)}
    return {n for n in found if 1 <= n <= count}


def given_refs(answer: str, count: int) -> str:
    """`answer` with each marker holding only passage numbers 1..count, one marker per number
    (`[1, 3]` → `[1][3]`, `[3, 9]` → `[3]`); a marker with none of them is removed with the
    blank before it (or, at a line's start, after it)."""

    def kept(m: re.Match[str]) -> str:
        numbers = dict.fromkeys(int(n) for n in re.split(r"[,;]", m["group"]))
        given = "".join(f"[{n}]" for n in numbers if 1 <= n <= count)
        if given:
            return m["lead"] + given + m["trail"]
        at_line_start = m.start() == 0 or answer[m.start() - 1] == "\n"
        return "" if at_line_start else m["trail"]

    return _SPACED_REFS.sub(kept, answer)


def mark_cited(citations: list[dict[str, Any]], numbers: set[int]) -> None:
    for c in citations:
        c["cited"] = c["n"] in numbers


def extractive(citations: Sequence[dict[str, Any]], reason: str, quote_chars: int) -> str:
    """The honest answer without a generator: why, then the passages quoted under their [n]."""
    head = f"No answer was generated: {reason}. The most relevant passages from your notes:"
    quotes = [
        f"[{c['n']}] {cited_where(c)}"
        f"{flag_text(c['flags'], explained=False)}\n> "
        + textwrap.shorten(" ".join(c["text"].split()), quote_chars, placeholder=" …")
        for c in citations
    ]
    return "\n\n".join([head, *quotes])
