"""The default judge: a deterministic contradiction detector over two aligned claims.

Two claims already found to be about the same subject (high embedding similarity) contradict when,
once the words that differ by a cue are set aside, they still say mostly the same thing
(Dice overlap of content stems ≥ `min_overlap`) and either

* their polarity differs: the parity of negation cues ("not", "never", "doesn't"), antonym swaps
  ("increases" / "decreases"), opposite comparatives ("faster" / "slower") and swapped comparative
  sides ("X is faster than Y" / "Y is faster than X") is odd — two flips cancel, so
  "does not increase" against "decreases" is not reported; or
* they give numbers with the same unit (or years, read as dates) whose values, or ranges, do not
  meet within `number_tolerance`.

A long sentence is judged by its clause that best matches the other claim (so a "not" in an
unrelated clause does not count), and questions or statements of aims ("to assess whether")
assert nothing. The score is the cue's weight times the overlap; vocabularies and numbers are
data in `schema/contradiction_cues.json` and `schema/cleaning.json`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from sidecar.cleaning.verdict import Origins, Verdict
from sidecar.cleaning.vocab import Cues, Thresholds, get_cues, get_thresholds, stem

_TOKEN = re.compile(r"[$€£%]|°[cf]|\d+(?:[.,]\d+)*|[a-z]+(?:'[a-z]+)?")
_QUANTITY = re.compile(
    r"(?<![\w./-])(?P<cur>[$€£])?\s*(?P<a>\d+(?:,\d{3})*(?:\.\d+)?)"
    r"(?:\s*(?:-|–|to|and)\s*(?P<b>\d+(?:,\d{3})*(?:\.\d+)?))?"
    r"(?:\s*(?P<unit>%|°[cf]|[a-z]+))?"
)
_LAST_WORD = re.compile(r"([a-z]+|#)\.?\s*$")
_YEAR = "year-date"
_NEGATED = "¬"  # marks a negation cue among the stems: matched as written, never a content word


@dataclass(frozen=True)
class _Claim:
    tokens: tuple[str, ...]  # stems, in order, numbers included
    content: frozenset[str]  # stems that carry meaning: no stopwords, cues or numbers
    quantities: dict[str, tuple[tuple[float, float], ...]]  # unit -> value intervals
    surface: dict[str, str]  # stem -> the word as written, for the evidence shown to users


def _stems(text: str, cues: Cues) -> tuple[tuple[str, ...], dict[str, str]]:
    raw = _TOKEN.findall(text.lower().replace("’", "'"))
    stems = tuple(_NEGATED + w if w in cues.negation
                  else w if not w.isalpha() else stem(w, cues.suffixes) for w in raw)
    surface: dict[str, str] = {}
    for s, w in zip(stems, raw, strict=True):
        surface.setdefault(s, w)
    return stems, surface


def _unit(word: str | None, cues: Cues) -> str | None:
    if not word:
        return None
    if word in cues.units:
        return cues.units[word]
    stemmed = stem(word, cues.suffixes)
    if stemmed in cues.units:
        return cues.units[stemmed]
    return None if word in cues.stopwords else stemmed


def _labelled(before: str, cues: Cues) -> bool:
    """True when the word right before a number names what it numbers (Sprint 12, Chapter 3):
    the number is then part of a name, not a quantity."""
    word = _LAST_WORD.search(before)
    return word is not None and stem(word.group(1), cues.suffixes) in cues.labels


def _quantities(text: str, cues: Cues) -> dict[str, tuple[tuple[float, float], ...]]:
    found: dict[str, list[tuple[float, float]]] = {}
    lowered = text.lower()
    for m in _QUANTITY.finditer(lowered):
        if _labelled(lowered[: m.start()], cues):
            continue
        low = float(m["a"].replace(",", ""))
        high = float(m["b"].replace(",", "")) if m["b"] else low
        unit = _unit(m["cur"], cues) or _unit(m["unit"], cues)
        if unit is None:
            is_year = "." not in m["a"] and cues.year_range[0] <= low <= cues.year_range[1]
            unit = _YEAR if is_year else ""
        found.setdefault(unit, []).append((min(low, high), max(low, high)))
    return {u: tuple(v) for u, v in found.items()}


def _parse(text: str, cues: Cues) -> _Claim:
    tokens, surface = _stems(text, cues)
    content = frozenset(
        t for t in tokens if t.isalpha() and t not in cues.stopwords
    )
    return _Claim(tokens, content, _quantities(text, cues), surface)


def _dice(a: AbstractSet[str], b: AbstractSet[str]) -> float:
    return 2 * len(a & b) / (len(a) + len(b)) if a or b else 0.0


def _swaps(a: _Claim, b: _Claim, table: dict[str, frozenset[str]]) -> list[tuple[str, str]]:
    """Word pairs from `table` where A says one side and B the other (each word used once)."""
    only_a, only_b = a.content - b.content, b.content - a.content
    used: set[str] = set()
    found: list[tuple[str, str]] = []
    for word in sorted(only_a):
        for other in sorted(table.get(word, frozenset()) & only_b):
            if word not in used and other not in used:
                used.update((word, other))
                found.append((word, other))
    return found


def _sides(claim: _Claim, pivot: str, cues: Cues) -> tuple[set[str], set[str]]:
    at = claim.tokens.index(pivot)
    keep = claim.content - {pivot} - cues.comparative_markers
    return set(claim.tokens[:at]) & keep, set(claim.tokens[at + 1:]) & keep


def _order_swapped(a: _Claim, b: _Claim, cues: Cues) -> str | None:
    """A comparative (the same or its opposite) in both claims with words crossing it: some
    word left of it in A is right of it in B, and some word right of it in A is left in B."""
    for pivot_a in sorted(a.content & cues.comparatives.keys()):
        for pivot_b in sorted(b.content & (cues.comparatives[pivot_a] | {pivot_a})):
            left_a, right_a = _sides(a, pivot_a, cues)
            left_b, right_b = _sides(b, pivot_b, cues)
            moved_right = (left_a & right_b) - left_b - right_a
            moved_left = (right_a & left_b) - right_b - left_a
            if moved_right and moved_left:
                return pivot_a
    return None


def _numbers_conflict(a: _Claim, b: _Claim, tolerance: float) -> str | None:
    """A unit both claims quantify whose values never meet; None if they agree or share none."""
    for unit in sorted(a.quantities.keys() & b.quantities.keys()):
        # Dates must match exactly; other quantities within a relative tolerance.
        rel = 0.0 if unit == _YEAR else tolerance

        def meets(x: tuple[float, float], y: tuple[float, float], rel: float = rel) -> bool:
            slack = rel * max(abs(x[1]), abs(y[1]))
            return x[0] - slack <= y[1] and y[0] - slack <= x[1]

        if not any(meets(x, y) for x in a.quantities[unit] for y in b.quantities[unit]):
            return unit or "number"
    return None


def _heads(text: str, cues: Cues) -> list[str]:
    """`text` up to each quantity it states, unit included ("Total budget is now €15,000" of
    "… €15,000 after the permit costs"): what a number is about comes before it, and the words
    after it would otherwise dilute the overlap of two claims that give different numbers."""
    lowered = text.lower()
    if len(lowered) != len(text):  # positions would not carry over
        return []
    heads = []
    for m in _QUANTITY.finditer(lowered):
        if _labelled(lowered[: m.start()], cues):
            continue
        named = m["unit"] is not None and m["unit"] in cues.units
        heads.append(text[: m.end("unit") if named else m.end("b") if m["b"] else m.end("a")])
    return heads


def _focus(text: str, other: _Claim, cues: Cues) -> str:
    """The clause of `text` (or all of it, or its words up to a number) that best matches the
    other claim."""
    clauses = (c.strip() for c in cues.clause_break.split(text) if c.strip())
    candidates = [text, *clauses, *_heads(text, cues)]
    return max(candidates, key=lambda c: _dice(_parse(c, cues).content, other.content))


def _asserts(text: str, cues: Cues) -> bool:
    return not text.rstrip().endswith("?") and cues.non_assertive.search(text) is None


def detect(text_a: str, text_b: str, cues: Cues | None = None,
           limits: Thresholds | None = None) -> Verdict:
    """Judge one aligned claim pair with the rules above."""
    cues = cues or get_cues()
    limits = limits or get_thresholds()
    if not (_asserts(text_a, cues) and _asserts(text_b, cues)):
        return Verdict(False, 0.0, "non-assertive")
    whole_a, whole_b = _parse(text_a, cues), _parse(text_b, cues)
    focus_a, focus_b = _focus(text_a, whole_b, cues), _focus(text_b, whole_a, cues)
    a, b = _parse(focus_a, cues), _parse(focus_b, cues)
    antonyms = _swaps(a, b, cues.antonyms)
    comparatives = _swaps(a, b, cues.comparatives)
    order = _order_swapped(a, b, cues)
    swapped = {w for pair in antonyms + comparatives for w in pair}
    overlap = _dice(a.content - swapped, b.content - swapped)
    negations = [c.surface[t] for c in (a, b) for t in c.tokens if t.startswith(_NEGATED)]
    flips = {"antonym": len(antonyms), "comparative": len(comparatives),
             "order": int(order is not None), "negation": len(negations)}
    detail: dict[str, object] = {"overlap": round(overlap, 3)}
    if (focus_a, focus_b) != (text_a, text_b):
        detail["clauses"] = [focus_a, focus_b]
    if antonyms or comparatives:
        detail["swapped"] = [[a.surface[x], b.surface[y]] for x, y in antonyms + comparatives]
    if negations:
        detail["negations"] = negations
    if order:
        detail["order_swapped_around"] = a.surface[order]
    cue = None
    if sum(flips.values()) % 2 == 1:
        cue = next(name for name, count in flips.items() if count % 2 == 1)
    elif (unit := _numbers_conflict(a, b, limits.number_tolerance)) is not None:
        cue = "number"
        detail["unit"] = unit
    if cue is None or overlap < limits.min_overlap:
        return Verdict(False, 0.0, cue or "none", detail)
    score = round(limits.cue_weights[cue] * overlap, 4)
    return Verdict(score >= limits.rules_threshold, score, cue, detail)


class RulesJudge:
    """The deterministic detector as a Judge (always available)."""

    name = "rules"

    async def judge(self, pairs: list[tuple[str, str]],
                    private: Sequence[bool] = (),
                    origins: Origins | None = None) -> list[Verdict]:
        cues, limits = get_cues(), get_thresholds()
        # in a thread: thousands of pairs must not stall a server's event loop
        return await asyncio.to_thread(lambda: [detect(a, b, cues, limits) for a, b in pairs])
