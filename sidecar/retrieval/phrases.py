"""A query found word for word: the phrase a user remembers from a note lifts the chunks that
hold it.

A multilingual embedder's fusion weighs its dense half above BM25, which serves questions but
not a phrase typed from memory: the note that holds the phrase ranks where the two lists agree
on it, and the dense half rarely ranks it first. A chunk holding the whole query, its words in
order, in its text or its note's name, is lifted by `phrase.weight` of the fused scale
(`schema/ranking.json`). Words are read as `languages.word_spans` reads them (casefolded, marks
inside their word, each letter of a script written without spaces a word of its own) and
compared without their accents (`accents.py`: "como hago" is held by "Cómo hago"), and anything
else between them is a gap: "quiet harbour, at dawn" holds "quiet harbour at dawn". A question
is rarely held word for word by a note, so it keeps its ranking. A query that is a note's file
name or one of its aliases, whole (one word too: "TFAS"), names that note (`Phrase.names`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import PurePosixPath

from sidecar.language.accents import fold, may_be_accented
from sidecar.language.languages import unspaced_share, word_spans
from sidecar.schema import load_json
from sidecar.vault.marks import letters


@dataclass(frozen=True)
class PhraseSettings:
    weight: float
    min_words: int


@cache
def phrase_settings() -> PhraseSettings:
    raw = load_json("ranking.json")["phrase"]
    return PhraseSettings(float(raw["weight"]), int(raw["min_words"]))


@dataclass(frozen=True)
class Phrase:
    """A query's words without their accents, and a pattern that finds every place they may
    stand in order. Python's `\\W` holds the combining marks, so the pattern lets a gap run over
    one and each place found is checked word by word: gaps of "neither a letter nor a mark" took
    5 ms to compile for eight words, 85 ms for forty. A text is sought as written, then, if
    it may hold the words otherwise accented, without its accents: a pattern of each letter's
    accented forms took 3 ms to compile for nine words."""

    words: tuple[str, ...]  # casefolded, without accents
    pattern: re.Pattern[str]
    spaced: tuple[bool, bool]  # whether the first and the last word need a word boundary
    accentable: bool  # whether a text may hold the words otherwise accented
    short: bool = False  # fewer words than a phrase: it may only name a note

    def names(self, path: str, aliases: Sequence[str] = ()) -> bool:
        """Whether the words are the file name of the note at `path` or one of its `aliases`,
        whole, as a user types a note's name to find it."""
        return any(_words(name) == self.words for name in (PurePosixPath(path).stem, *aliases))

    def held_by(self, path: str, text: str, aliases: Sequence[str] = ()) -> bool:
        """Whether the chunk `text` of the note at `path` holds the phrase, in its text or in
        its note's file name or `aliases` (a query naming a note is a phrase of it); never a
        `short` one."""
        if self.short:
            return False
        text = "\n".join((PurePosixPath(path).stem, *aliases, text)).casefold()
        if self._found(text):
            return True
        plain = _folded(text) if self.accentable else text  # an em dash or a quote is no accent
        return plain != text and self._found(plain)

    def _found(self, text: str) -> bool:
        start = 0
        while match := self.pattern.search(text, start):
            start = match.start() + 1  # a place rejected may overlap the one that holds them
            before = text[match.start() - 1 : match.start()]
            after = text[match.end() : match.end() + 1]
            if ((self.spaced[0] and before and letters().fullmatch(before))
                    or (self.spaced[1] and after and letters().fullmatch(after))):
                continue
            if tuple(fold(m.group()) for m in word_spans(match.group())) == self.words:
                return True
        return False


@lru_cache(maxsize=2048)
def _folded(text: str) -> str:
    """`fold(text)`, kept for the last texts sought: a search as the user types seeks the same
    chunks at each key."""
    return fold(text)


@lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, ...]:
    """The words of `text` as a phrase holds them (casefolded, without accents); kept for the
    names sought again at each search."""
    return tuple(word for m in word_spans(text) if (word := fold(m.group().casefold())))


def phrase(query: str, min_words: int) -> Phrase | None:
    """`query` as a phrase to find (casefolded, without accents), `short` with fewer than
    `min_words` words; None for a query without words."""
    words = _words(query)
    if not words:
        return None
    spaced = [not unspaced_share(word) for word in words]
    parts = [re.escape(words[0])]
    for i in range(1, len(words)):  # a gap between spaced words; maybe none beside one unspaced
        parts += ["\\W+" if spaced[i - 1] and spaced[i] else "\\W*", re.escape(words[i])]
    return Phrase(words, re.compile("".join(parts)), (spaced[0], spaced[-1]),
                  may_be_accented("".join(words)), len(words) < min_words)

