"""Letters read without their accents, where a phrase is sought word for word: "como hago" typed
is "cómo hago" written.

People type a remembered phrase without its accents as often as with them, and BM25 already
reads both alike (its ASCII folding). Each Latin or Greek letter of `languages.json` `fold` folds
to what is left of it without its combining marks ("é" to "e", "ώ" to "ω"), and its `letters`
(ł, ø, đ, ı) as BM25 folds them; a combining mark of the Latin and Greek block is dropped, so a
file name saved decomposed ("e" + U+0301) reads as the same word. Other scripts keep their marks:
a Thai or Hindi vowel sign is no accent.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from sidecar.schema import load_json

# The Combining Diacritical Marks block: the accents of Latin, Greek and Cyrillic letters.
_ACCENTS = (0x300, 0x36F)


@cache
def _folds() -> dict[str, str]:
    """Each casefolded accented letter to its letter without the accents."""
    doc = load_json("languages.json")["fold"]
    out: dict[str, str] = {}
    for hex_range in doc["ranges"]:
        first, _, last = hex_range.partition("-")
        for cp in range(int(first, 16), int(last or first, 16) + 1):
            letter = chr(cp).casefold()
            base = "".join(c for c in unicodedata.normalize("NFD", letter)
                           if not unicodedata.combining(c))
            if len(letter) == 1 and len(base) == 1 and base != letter:
                out[letter] = base
    out.update({str(k): str(v) for k, v in doc["letters"].items()})
    return out


@cache
def _table() -> dict[int, str | None]:
    return {**{ord(k): v for k, v in _folds().items()},
            **dict.fromkeys(range(_ACCENTS[0], _ACCENTS[1] + 1))}


@cache
def _accented() -> re.Pattern[str]:
    """Runs of accented letters and accents: a text is folded run by run, so most of its
    letters never leave the regular expression engine (a whole text through `str.translate`
    took 5 ms for 100 chunks of Spanish, this 1.4 ms). Runs of code points a few apart are
    merged into one range, as a class of hundreds of ranges is slower to scan than one of 22."""
    spans: list[list[int]] = []
    for cp in sorted(_table()):
        if spans and cp - spans[-1][1] <= 8:
            spans[-1][1] = cp
        else:
            spans.append([cp, cp])
    return re.compile("[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}"
                                    for a, b in spans) + "]+")


@cache
def _bases() -> frozenset[str]:
    return frozenset(_folds().values())


def fold(text: str) -> str:
    """`text`, casefolded, without its accents."""
    if text.isascii():
        return text
    table = _table()
    return _accented().sub(lambda run: run.group().translate(table), text)


def may_be_accented(text: str) -> bool:
    """Whether a text holding `text` folded could hold it written otherwise: whether any of
    its letters is one an accented letter folds to."""
    return not _bases().isdisjoint(text)
