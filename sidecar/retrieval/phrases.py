"""A query found word for word: the phrase a user remembers from a note lifts the chunks that
hold it.

A multilingual embedder's fusion weighs its dense half above BM25, which serves questions but
not a phrase typed from memory: the note that holds the phrase ranks where the two lists agree
on it, and the dense half rarely ranks it first. A chunk holding the whole query, its words in
order, in its text or its note's name, is lifted by `phrase.weight` of the fused scale
(`schema/ranking.json`). Words are read as `languages.word_spans` reads them (casefolded, marks
inside their word, each character of a script written without spaces a word of its own), and
anything else between them is a gap: "quiet harbour, at dawn" holds "quiet harbour at dawn". A
question is rarely held word for word by a note, so it keeps its ranking.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import PurePosixPath

from sidecar.index.languages import unspaced_share, word_spans
from sidecar.schema import load_json
from sidecar.vault.marks import marks


@dataclass(frozen=True)
class PhraseSettings:
    weight: float
    min_words: int


@cache
def phrase_settings() -> PhraseSettings:
    raw = load_json("ranking.json")["phrase"]
    return PhraseSettings(float(raw["weight"]), int(raw["min_words"]))


def phrase(query: str, min_words: int) -> re.Pattern[str] | None:
    """What a text holding `query` word for word matches (casefolded), or None for a query of
    fewer than `min_words` words. A pattern, not the text's words compared one by one: a pool
    of 100 chunks is searched in well under a millisecond, where splitting each into words
    took ~13 ms."""
    words = [m.group().casefold() for m in word_spans(query)]
    if len(words) < min_words:
        return None
    letter, gap = f"[\\w{marks()}]", f"[^\\w{marks()}]"
    spaced = [not unspaced_share(word) for word in words]
    parts = []
    for i, word in enumerate(words):
        if i:  # a gap between spaced words; none needed around a character written unspaced
            parts.append(f"{gap}+" if spaced[i - 1] and spaced[i] else f"{gap}*")
        parts.append(re.escape(word))
        if not i and spaced[0]:  # no letter before it: looked at once the word is found, so
            # the search can scan for the word itself instead of testing every position
            parts.append(f"(?<!{letter}[\\s\\S]{{{len(word)}}})")
    parts.append(f"(?!{letter})" if spaced[-1] else "")
    return re.compile("".join(parts))


def holds(path: str, text: str, pattern: re.Pattern[str]) -> bool:
    """Whether the chunk `text` of the note at `path` holds the phrase, in its text or in its
    note's name (a query naming a note is a phrase of it)."""
    return bool(pattern.search(f"{PurePosixPath(path).stem}\n{text}".casefold()))
