"""Letters read without their accents, where a phrase is sought word for word: "como hago" typed
is "cómo hago" written.

People type a remembered phrase without its accents as often as with them, and BM25 already
reads both alike (its ASCII folding). Each Latin or Greek letter of `languages.json` `fold` folds
to what is left of it without its combining marks ("é" to "e", "ώ" to "ω"), and its `letters`
(ł, ø, đ, ı) as BM25 folds them; a text is composed first, so a file name saved decomposed
("e" + U+0301) reads as the same word. Arabic and Hebrew words are read as keyword search reads
them, without their vowel points and with the letters typed for one another unified
(`letters.py`), and Russian "ё" as the "е" most writers type for it. Other scripts keep
their letters and marks: Cyrillic "й" is no "и" with an accent, a Thai or Hindi vowel sign is no
accent.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterator, Sequence
from functools import cache

from sidecar.language.languages import word_spans
from sidecar.language.letters import (
    HAN,
    code_points,
    composed,
    han,
    marked,
    script_letters,
    width_forms,
)
from sidecar.schema import load_json
from sidecar.vault import marks

# The Combining Diacritical Marks block: the accents of Latin, Greek and Cyrillic letters.
_ACCENTS = (0x300, 0x36F)


@cache
def _folds() -> dict[str, str]:
    """Each casefolded accented letter to its letter without the accents."""
    doc = load_json("languages.json")["fold"]
    out: dict[str, str] = {}
    for hex_range in doc["ranges"]:
        for cp in code_points(hex_range):
            letter = chr(cp).casefold()
            base = "".join(c for c in unicodedata.normalize("NFD", letter)
                           if not unicodedata.combining(c))
            if len(letter) == 1 and len(base) == 1 and base != letter:
                out[letter] = base
    out.update({str(k): str(v) for k, v in doc["letters"].items()})
    out.update({chr(k): v for k, v in script_letters().items() if v is not None})
    return out


@cache
def _table() -> dict[int, str | None]:
    return {**{ord(k): v for k, v in _folds().items()},
            **dict.fromkeys(range(_ACCENTS[0], _ACCENTS[1] + 1)), **script_letters()}


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
    """`text`, casefolded, without its accents. Composed first (NFC), so a letter saved
    decomposed is folded as the letter it is: "e" + U+0301 as "é", "и" + U+0306 as "й", which
    keeps its breve (only a mark no letter composes with is dropped as it stands, as the stress
    mark of a Russian dictionary)."""
    if text.isascii():
        return text
    table = _table()
    text = composed(text)
    if HAN.search(text):  # apart from the runs: a class of every Traditional character is slow
        text = text.translate(han())
    return _accented().sub(lambda run: run.group().translate(table), text)


def may_be_accented(text: str) -> bool:
    """Whether a text holding `text` folded could hold it written otherwise: whether any of
    its letters is one an accented letter folds to, or of a script written with or without
    its vowel points, or one a half-width or full-width form stands for."""
    return (not _bases().isdisjoint(text) or marked().search(text) is not None
            or not width_forms().isdisjoint(text) or HAN.search(text) is not None)


def _past_letters(text: str, at: int) -> int:
    """Where the run of a word's letters from `at` ends."""
    found = marks.letters().match(text, at)
    return found.end() if found else at


def _accented_words(text: str) -> Iterator[str]:
    """The words of `text` that hold an accented letter or an accent: each run of them found
    (one scan, 0.3 ms for 30 chunks) and widened to its word either way (the text read
    backwards for the way back), so a text with none costs no more (a pattern of whole words
    took 9 ms for the same chunks)."""
    backwards = text[::-1]
    end = -1
    for run in _accented().finditer(text):
        if run.start() < end:
            continue  # within the word of the run before
        back = len(text) - run.start()
        end = _past_letters(text, run.end())
        yield text[run.start() - (_past_letters(backwards, back) - back) : end]


def restore(query: str, texts: Sequence[str]) -> str:
    """`query` with each word typed without accents written as `texts` (the chunks keyword
    search found for it) write it, where they write it accented more often than plain: "creer
    un encadre" beside notes that say "créer" and "encadré" is "créer un encadré", and "ou"
    stays "ou" beside notes that say it more often than "où". An embedder reads "creer" as
    another word than "créer" (keyword search folds both alike)."""
    spans = word_spans(query)
    plain = {word for m in spans
             if (word := m.group().casefold()) == fold(word) and may_be_accented(word)}
    if not plain or all(text.isascii() for text in texts):
        return query
    joined = "\n".join(texts).casefold()
    forms = Counter(_accented_words(joined))
    chosen: dict[str, str] = {}
    for form, count in forms.most_common():
        word = fold(form)
        if word in plain and word not in chosen and count > _occurrences(word, joined):
            chosen[word] = form
    if not chosen:
        return query
    out, last = [], 0
    for m in spans:
        written = chosen.get(m.group().casefold())
        if written is not None:
            out += [query[last:m.start()],
                    written.capitalize() if m.group()[:1].isupper() else written]
            last = m.end()
    return "".join([*out, query[last:]])


def _occurrences(word: str, text: str) -> int:
    """How often `word` stands whole in `text`."""
    letter = marks.letters().fullmatch
    count, at = 0, text.find(word)
    while at >= 0:
        end = at + len(word)
        count += not ((at and letter(text[at - 1])) or (end < len(text) and letter(text[end])))
        at = text.find(word, at + 1)
    return count


@cache
def restore_from() -> int:
    """How many of keyword search's first chunks `restore` reads (`languages.json` `fold`)."""
    return int(load_json("languages.json")["fold"]["restore_from"])
