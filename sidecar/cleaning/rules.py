"""The default judge: a deterministic contradiction detector over two aligned claims.

Two claims already found to be about the same subject (high embedding similarity) contradict when,
once the words that differ by a cue are set aside, they still say mostly the same thing
(Dice overlap of content stems ≥ `min_overlap`, words of one side of an antonym group counted as
one: "reduces" / "lowers") and either

* their polarity differs: the parity of negation cues ("not", "nicht", "pas", "never", "doesn't",
  and denials: "… is a myth"), antonym swaps ("increases" / "decreases", "gestiegen" /
  "gesunken"), opposite comparatives ("faster" / "slower") and swapped sides ("X is faster than
  Y" / "Y is faster than X", "I prefer tea over coffee" / "coffee over tea") is odd — two flips
  cancel, so "does not increase" against "decreases" is not reported; or
* they give numbers with the same unit (or years, ISO dates and clock times, which must match
  exactly) whose values, or ranges, do not meet within `number_tolerance` (a comma before one
  or two final digits is a decimal comma: 3,5 is 3.5); or
* all else the same, one value stands for another of its kind as what a single-valued word says
  (cue `value`: "the meeting is on Monday" / "on Thursday", "I live in Berlin" / "in Munich").

Nothing is reported when the claims speak of different circumstances or things: a condition,
qualifier or time marker on one side only ("If it rains, …", "in moderation", "last year"),
different years with something else differing as well ("In 2010 … 50 employees" / "In 2020 …
500"), or each claim naming something the other does not (a name anywhere, a word of the clause
stating a number, the words a claim opens with: "my cat" / "my dog", "in Paris" / "in Rome").

A long sentence is judged by its clause that best matches the other claim (so a "not" in an
unrelated clause does not count), and questions or statements of aims ("to assess whether")
assert nothing. The score is the cue's weight times the overlap; vocabularies (by language:
English, German, French, Spanish) and numbers are data in `schema/contradiction_cues.json` and
`schema/cleaning.json`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from sidecar.cleaning.verdict import Origins, Verdict
from sidecar.cleaning.vocab import Cues, Thresholds, get_cues, get_thresholds, stem

_LETTERS = r"[^\W\d_]+"  # a word of any alphabet: German, French and Spanish notes too
_WORD = re.compile(rf"{_LETTERS}(?:'{_LETTERS})?")
_TOKEN = re.compile(rf"[$€£%]|°[cf]|\d+(?:[.,]\d+)*|{_WORD.pattern}")
# A comma before one or two final digits is a decimal comma (3,5 Prozent is 3.5 percent);
# before three it stays a thousands separator (€12,000).
_DECIMAL_COMMA = re.compile(r"\d+,\d{1,2}(?!\d)")
_NUMBER = rf"{_DECIMAL_COMMA.pattern}|\d+(?:,\d{{3}})*(?:\.\d+)?"
_QUANTITY = re.compile(
    rf"(?<![\w./-])(?P<cur>[$€£])?\s*(?P<a>{_NUMBER})"
    rf"(?:\s*(?:-|–|to|and)\s*(?P<b>{_NUMBER}))?"
    rf"(?:\s*(?P<unit>%|°[cf]|{_LETTERS}))?"
)
# An ISO date or a clock time is one value, not a range of two numbers (2024-03-01, 10:30).
_STAMP = re.compile(r"(?<![\w.:-])(?:(?P<y>\d{4})-(?P<mo>\d\d)-(?P<d>\d\d)"
                    r"|(?P<h>\d{1,2}):(?P<mi>\d\d))(?![\w:-])")
_LAST_WORD = re.compile(rf"({_LETTERS}|#)\.?\s*$")
_YEAR = "year-date"
_DATE = "date"
_CLOCK = "clock"
_EXACT = frozenset({_YEAR, _DATE, _CLOCK})  # values that must match exactly, no tolerance
_NEGATED = "¬"  # marks a negation cue among the stems: matched as written, never a content word


@dataclass(frozen=True)
class _Claim:
    tokens: tuple[str, ...]  # stems, in order, numbers included
    content: frozenset[str]  # stems that carry meaning: no stopwords, cues or numbers
    quantities: dict[str, tuple[tuple[float, float], ...]]  # unit -> value intervals
    surface: dict[str, str]  # stem -> the word as written, for the evidence shown to users
    proper: frozenset[str]  # stems of words written capitalised after the first: names


def _unelided(word: str, cues: Cues) -> str:
    """`word` without a leading elided article or pronoun (l'équipe, j'habite, n'est)."""
    head, sep, rest = word.partition("'")
    return rest if sep and rest and head in cues.elisions else word


def _stems(text: str, cues: Cues) -> tuple[tuple[str, ...], dict[str, str]]:
    raw = [_unelided(w, cues) for w in _TOKEN.findall(text.lower().replace("’", "'"))]
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


def _value(number: str) -> float:
    """A number as written: a decimal comma (3,5) or thousands separators (12,000)."""
    if _DECIMAL_COMMA.fullmatch(number):
        return float(number.replace(",", "."))
    return float(number.replace(",", ""))


def _spans(text: str, cues: Cues) -> list[tuple[str, tuple[float, float], int]]:
    """Each quantity of `text`: its unit, its values and where it ends in `text`."""
    found = []
    lowered = text.lower()
    for m in _STAMP.finditer(lowered):
        value = (int(m["y"]) * 10_000 + int(m["mo"]) * 100 + int(m["d"]) if m["y"]
                 else int(m["h"]) * 60 + int(m["mi"]))
        found.append((_DATE if m["y"] else _CLOCK, (float(value), float(value)), m.end()))
    lowered = _STAMP.sub(lambda m: " " * len(m.group()), lowered)
    for m in _QUANTITY.finditer(lowered):
        if _labelled(lowered[: m.start()], cues):
            continue
        low = _value(m["a"])
        high = _value(m["b"]) if m["b"] else low
        unit = _unit(m["cur"], cues) or _unit(m["unit"], cues)
        if unit is None:
            is_year = (m["a"].isdigit() and cues.year_range[0] <= low <= cues.year_range[1])
            unit = _YEAR if is_year else ""
        found.append((unit, (min(low, high), max(low, high)), m.end()))
    return found


def _quantities(text: str, cues: Cues) -> dict[str, tuple[tuple[float, float], ...]]:
    found: dict[str, list[tuple[float, float]]] = {}
    for unit, interval, _ in _spans(text, cues):
        found.setdefault(unit, []).append(interval)
    return {u: tuple(v) for u, v in found.items()}


def _parse(text: str, cues: Cues) -> _Claim:
    tokens, surface = _stems(text, cues)
    words = _WORD.findall(text.replace("’", "'"))
    # Title case only: an acronym (SSRI, CDCA) is as often another name for the same thing.
    proper = frozenset(stem(_unelided(w.lower(), cues), cues.suffixes)
                       for w in words[1:] if w[0].isupper() and not w.isupper())
    # A month that is also a stopword ("may") is the month only where it is written as a name
    # ("in May"): the modal ("we may ship") stays a stopword, and May is compared as a value.
    months = cues.months & proper
    content = frozenset(
        t for t in tokens if t.isalpha() and (t not in cues.stopwords or t in months)
    )
    return _Claim(tokens, content, _quantities(text, cues), surface, proper)


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


def _preference(claim: _Claim, cues: Cues) -> tuple[str, str] | None:
    """What a preference puts first and what after ("I prefer tea over coffee": tea, coffee)."""
    tokens = claim.tokens
    verb = next((i for i, t in enumerate(tokens) if t in cues.preference_verbs), None)
    if verb is None:
        return None
    marker = next((i for i in range(verb + 1, len(tokens))
                   if tokens[i] in cues.preference_markers), None)
    if marker is None:
        return None
    before = [t for t in tokens[verb + 1:marker] if t in claim.content]
    after = [t for t in tokens[marker + 1:] if t in claim.content]
    return (before[-1], after[0]) if before and after else None


def _preference_swapped(a: _Claim, b: _Claim, cues: Cues) -> str | None:
    """The preferred and the other thing trade places ("tea over coffee" / "coffee over tea")."""
    first, second = _preference(a, cues), _preference(b, cues)
    if first and second and first[0] != first[1] and first == second[::-1]:
        return first[0]
    return None


def _conflicts(a: _Claim, b: _Claim, tolerance: float) -> list[str]:
    """The units both claims quantify whose values never meet ("" for bare numbers)."""
    found = []
    for unit in sorted(a.quantities.keys() & b.quantities.keys()):
        # Dates and times must match exactly; other quantities within a relative tolerance.
        rel = 0.0 if unit in _EXACT else tolerance

        def meets(x: tuple[float, float], y: tuple[float, float], rel: float = rel) -> bool:
            slack = rel * max(abs(x[1]), abs(y[1]))
            return x[0] - slack <= y[1] and y[0] - slack <= x[1]

        if not any(meets(x, y) for x in a.quantities[unit] for y in b.quantities[unit]):
            found.append(unit)
    return found


def _same(words: AbstractSet[str], cues: Cues) -> set[str]:
    """`words` with each word of an antonym group's side as that side's first word."""
    return {cues.synonyms.get(w, w) for w in words}


def _differing(a: _Claim, b: _Claim, swapped: AbstractSet[str],
               cues: Cues) -> tuple[set[str], set[str]]:
    """The content words each claim has and the other lacks, beside the cue words; a word
    counts as present when a word of its side of an antonym group is (reduces / lowers)."""
    kept_a, kept_b = a.content - swapped, b.content - swapped
    same_a, same_b = _same(kept_a, cues), _same(kept_b, cues)
    return ({w for w in kept_a if cues.synonyms.get(w, w) not in same_b},
            {w for w in kept_b if cues.synonyms.get(w, w) not in same_a})


def _leading(claim: _Claim, only: set[str]) -> set[str]:
    """The words of `only` that come before the claim's first word the other claim shares:
    what the claim is about (my cat / my dog is not allowed on the sofa), where a word after
    it is more often the same thing in other words (flavour in bread / in loaves)."""
    shared = [i for i, t in enumerate(claim.tokens) if t in claim.content and t not in only]
    first = shared[0] if shared else len(claim.tokens)
    return {t for t in claim.tokens[:first] if t in only}


def _after(text: str, units: list[str], cues: Cues) -> str:
    """The words after each quantity in one of `units`, to the end of its clause: where a
    number's conditions stand (100 °C at sea level / 70 °C on the summit of Everest)."""
    tails = []
    for clause in cues.clause_break.split(text):
        ends = [end for unit, _, end in _spans(clause, cues) if unit in units]
        if ends:
            tails.append(clause[min(ends):])
    return " ".join(tails)


def _apart(texts: tuple[str, str], whole: tuple[_Claim, _Claim], focus: tuple[_Claim, _Claim],
           swapped: AbstractSet[str], conflicts: list[str],
           cues: Cues) -> tuple[set[str], set[str]]:
    """What each claim speaks of and the other does not: names (capitalised words) anywhere;
    for a number, the words after it in its clause (… a new washer, cost is 40 euros / … a
    whole new cartridge, cost is 120 euros still disagree on the cost); else, when both claims
    are judged whole, the words they open with."""
    only_a, only_b = _differing(*whole, swapped, cues)
    names_a, names_b = only_a & whole[0].proper, only_b & whole[1].proper
    if conflicts:
        tail_a, tail_b = (_parse(_after(t, conflicts, cues), cues) for t in texts)
        only_a = {w for w in tail_a.content - swapped
                  if cues.synonyms.get(w, w) not in _same(whole[1].content, cues)}
        only_b = {w for w in tail_b.content - swapped
                  if cues.synonyms.get(w, w) not in _same(whole[0].content, cues)}
    elif focus == whole:
        only_a, only_b = _leading(whole[0], only_a), _leading(whole[1], only_b)
    else:  # a clause may leave its subject out ("…, but was associated with …")
        only_a, only_b = set(), set()
    return only_a | names_a, only_b | names_b


def _valued(claim: _Claim, word: str, cues: Cues) -> bool:
    """`word` is what a single-valued word says (is on Monday, lives in Berlin)."""
    at = claim.tokens.index(word) - 1
    while at >= 0 and claim.tokens[at] in cues.slot_links:
        at -= 1
    return at >= 0 and claim.tokens[at] in cues.single_valued


def _value_swap(a: _Claim, b: _Claim, only_a: set[str], only_b: set[str],
                cues: Cues) -> tuple[str, str] | None:
    """One value for another of the same kind, all else the same: Monday / Thursday, March /
    October, Berlin / Munich as what a single-valued word says."""
    if len(only_a) != 1 or len(only_b) != 1:
        return None
    (x,), (y,) = only_a, only_b
    same_kind = any(x in kind and y in kind for kind in (cues.weekdays, cues.months)) or (
        x in a.proper and y in b.proper)
    return (x, y) if same_kind and _valued(a, x, cues) and _valued(b, y, cues) else None


def _scope(text_a: str, text_b: str, cues: Cues) -> str | None:
    """Why the claims speak of different circumstances, if they do: they do not carry the
    same conditions or qualifiers ("if it rains", "in moderation"), or time markers."""
    for name, pattern in (("condition", cues.conditions), ("condition", cues.opening_conditions),
                          ("condition", cues.qualifiers), ("time", cues.time_markers)):
        def found(text: str, pattern: re.Pattern[str] = pattern) -> set[str]:
            return {m["w"].lower() for m in pattern.finditer(text.replace("’", "'").strip())}
        if found(text_a) != found(text_b):
            return name
    return None


def _years_differ(a: _Claim, b: _Claim) -> bool:
    """Both claims give years, and none of them meet."""
    return _YEAR in _conflicts(a, b, 0.0)


def _heads(text: str, cues: Cues) -> list[str]:
    """`text` up to each quantity it states, unit included ("Total budget is now €15,000" of
    "… €15,000 after the permit costs"): what a number is about comes before it, and the words
    after it would otherwise dilute the overlap of two claims that give different numbers."""
    lowered = text.lower()
    if len(lowered) != len(text):  # positions would not carry over
        return []
    lowered = _STAMP.sub(lambda m: " " * len(m.group()), lowered)
    heads = []
    for m in _QUANTITY.finditer(lowered):
        if _labelled(lowered[: m.start()], cues):
            continue
        named = m["unit"] is not None and m["unit"] in cues.units
        end = m.end("unit") if named else m.end("b") if m["b"] else m.end("a")
        if not _says(text[end:], cues):
            heads.append(text[:end])
    return heads


def _says(text: str, cues: Cues) -> bool:
    """`text` holds a word that can flip a claim (a negation, an antonym, a comparative): the
    words up to a number must not leave it out ("Die Preise sind 2023 gestiegen")."""
    stems, _ = _stems(text, cues)
    return any(t.startswith(_NEGATED) or t in cues.antonyms or t in cues.comparatives
               for t in stems)


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
    if (scope := _scope(text_a, text_b, cues)) is not None:
        return Verdict(False, 0.0, scope)
    whole_a, whole_b = _parse(text_a, cues), _parse(text_b, cues)
    focus_a, focus_b = _focus(text_a, whole_b, cues), _focus(text_b, whole_a, cues)
    a, b = _parse(focus_a, cues), _parse(focus_b, cues)
    antonyms = _swaps(a, b, cues.antonyms)
    comparatives = _swaps(a, b, cues.comparatives)
    order = _order_swapped(a, b, cues) or _preference_swapped(a, b, cues)
    swapped = {w for pair in antonyms + comparatives for w in pair}
    only_a, only_b = _differing(whole_a, whole_b, swapped, cues)
    value = _value_swap(whole_a, whole_b, only_a, only_b, cues)
    if value:
        swapped.update(value)
    # Not counting words of one antonym side as one here: "decreased" / "has not declined"
    # then matched a SciFact abstract's clause about another group (a false alarm).
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
        detail["order_swapped_around"] = a.surface.get(order, order)
    cue = None
    conflicts = _conflicts(a, b, limits.number_tolerance)
    if sum(flips.values()) % 2 == 1:
        cue = next(name for name, count in flips.items() if count % 2 == 1)
    elif conflicts:
        cue = "number"
        detail["unit"] = conflicts[0] or "number"
    elif value:
        cue = "value"
        detail["values"] = [whole_a.surface[value[0]], whole_b.surface[value[1]]]
    if cue is not None and cue != "value":
        judged = (whole_a, whole_b) if (focus_a, focus_b) == (text_a, text_b) else (a, b)
        only_a, only_b = _apart((text_a, text_b), (whole_a, whole_b), judged, swapped,
                                conflicts if cue == "number" else [], cues)
    if cue is not None and cue != "value" and only_a and only_b:
        # Each claim names something the other does not: they speak of different things
        # (my cat / my dog, 2 days in Paris / 3 days in Rome, at sea level / on the summit).
        detail["differing"] = [sorted(whole_a.surface[w] for w in only_a),
                               sorted(whole_b.surface[w] for w in only_b)]
        return Verdict(False, 0.0, "different", detail)
    if (cue is not None and (cue != "number" or conflicts != [_YEAR])
            and _years_differ(whole_a, whole_b)):
        # Different years and something else differs too: the claims are about two times.
        return Verdict(False, 0.0, "time", detail)
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
