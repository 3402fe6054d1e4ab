"""The languages of BM25 analysis (`schema/languages.json`): one analyzer each, a note's language
detected from its script, letters and stopwords, and the character n-grams that let compounds
match their parts.

Detection takes the script most of a text's letters are in; a language of that script whose own
letters the text holds (Ukrainian, Persian) is the text's; else it counts, for each language of
that script (and English) with a stopword list, how many of the text's words are its stopwords,
and takes the language with the most (English on a tie): on Obsidian's help vault in six
languages it named every note's language, and 98 % of 300-character excerpts, as py3langid did,
at a third of its cost (~0.2 ms an excerpt, ~2 ms a note) and without a dependency; in 33
languages it names 164–173 of each vault's 173 notes (docs/benchmarks.md, "Multilingual").
Chinese, Japanese and Korean have no stopwords to count: a text mostly of their characters is
told by them; a script none of whose languages has stopwords (Greek, Hebrew, Thai) tells its
first language. A text with too few stopwords to tell (a list, code, a name) is given the
default.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

import tantivy

from sidecar.language.letters import composed, hex_range, unified
from sidecar.schema import load_json
from sidecar.vault import marks

_KANA = re.compile("[\u3040-\u30ff\uff66-\uff9f]")
_HANGUL = re.compile("[\uac00-\ud7af]")

# Chinese and Japanese write words without spaces (Korean attaches particles to them): a run of
# their characters is one token to the tokenizer, so a word inside it never matched. Runs are
# indexed and queried as their overlapping character pairs, as Lucene's CJK bigram filter does
# (a run of one character stays itself; their characters are indexed one by one as well, for a
# word of one character: `indexed`); other text is left as it is. The other scripts written
# without spaces (Thai, Khmer: languages.json `scripts`) are paired the same way.
_CJK_RANGES = ("\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
               "\U00020000-\U0003134f")
_CJK = re.compile(f"[{_CJK_RANGES}]+")


def _pairs(run: re.Match[str]) -> str:
    text = run.group()
    return " " + " ".join(text[i : i + 2] for i in range(max(1, len(text) - 1))) + " "


# A word of one character ("茶" tea, "猫" cat, "책" book) is no pair: the characters of Chinese,
# Japanese and Korean runs are also indexed one by one, in a field of their own (`indexed`),
# and a query's run of one character is looked up there (`lone_characters`). The pairs' fields
# keep their statistics: a query of longer runs ranks as it did.


def _letters(joined: str) -> str:
    """The letters of the Chinese, Japanese and Korean runs of `joined` (`_joined`'s), one by
    one, separated by spaces."""
    return " ".join(c for run in _CJK.findall(joined) for c in run if c.isalnum())


def word_count(tokens: Iterable[str]) -> int:
    """How many words a text's tokens (split at spaces and punctuation) are: a run of a script
    written without spaces between words (Chinese, Japanese, Thai…) is a word per two of its
    letters, about their words' length, not one word however long the sentence."""
    spaced = letters = 0
    for token in tokens:
        unspaced = sum(len(run) for run in _unspaced().findall(token))
        letters += unspaced
        spaced += not unspaced
    return spaced + (letters + 1) // 2


def lone_characters(text: str) -> list[str]:
    """`text`'s Chinese, Japanese and Korean runs of one letter (a query's one-character word),
    as `indexed` writes them."""
    return [run for run in _CJK.findall(_joined(text)) if len(run) == 1 and run.isalnum()]


@cache
def _splitting_marks() -> dict[int, None]:
    """The combining marks and joiners the tokenizer would cut a word at, to be dropped: it
    keeps letters, digits and the marks Unicode calls alphabetic, so a Bengali or Hindi word
    broke at its virama or nukta into one-letter tokens that match everything, a Thai word at
    its tone mark, and a Persian word at its zero-width non-joiner. Asked of the tokenizer
    itself, so the two never disagree."""
    plain = _plain()
    return {cp: None for cp in marks.codepoints() if len(plain.analyze(f"a{chr(cp)}a")) != 1}


@cache
def _joining() -> dict[int, str | None]:
    return {**_splitting_marks(), **unified()}


def _joined(text: str) -> str:
    return text if text.isascii() else composed(text).translate(_joining())


def words(text: str) -> list[str]:
    """`text`'s words as the index cuts them (lowercased, marks kept within their word), a run of
    a script written without spaces whole: Python's `\\w` stops at every combining mark, so a
    query's Hindi or Thai word reached the index as pieces no note held."""
    return list(_lowered().analyze(_joined(text)))


@cache
def _unspaced_class() -> str:
    """The character class body of the scripts written without spaces between words."""
    s = spec()
    return _CJK_RANGES + "".join(s.scripts[name] for name in s.unspaced)


@cache
def _word_pattern() -> re.Pattern[str]:
    unspaced = _unspaced_class()
    # (?=\w): the blocks of those scripts hold their punctuation too (Khmer's "។", the katakana
    # middle dot "・"), which is no word
    return re.compile(f"(?=\\w)[{unspaced}][{marks.marks()}]*"
                      f"|(?:[^\\W{unspaced}]|[{marks.marks()}])+")


def word_spans(text: str) -> list[re.Match[str]]:
    """`text`'s words where they stand, for comparing texts word by word: a word keeps its
    marks, and each letter of a script written without spaces is a word of its own (a Chinese
    sentence is not one word)."""
    return list(_word_pattern().finditer(text))


def unspaced_share(text: str) -> float:
    """The share of `text`'s letters in scripts written without spaces between words."""
    letters = sum(1 for c in text if c.isalpha())
    inside = sum(1 for run in _unspaced().findall(text) for c in run if c.isalpha())
    return inside / letters if letters else 0.0


def segment(text: str) -> str:
    """`text` composed (NFC), with the marks the tokenizer would cut a word at dropped, the
    scripts' letters unified (`unified`), and every run of a script written without spaces as
    its overlapping character pairs."""
    return _unspaced().sub(_pairs, _joined(text))


def indexed(text: str) -> tuple[str, str]:
    """What BM25 indexes of `text`: `segment(text)`, and the letters of its Chinese, Japanese
    and Korean runs one by one, separated by spaces (composed and unified once for both)."""
    joined = _joined(text)
    return _unspaced().sub(_pairs, joined), _letters(joined)


# Longer tokens are not words (hashes, base64, URLs run together).
MAX_TOKEN = 40


@dataclass(frozen=True)
class Language:
    code: str
    stemmer: str | None  # a snowball stemmer of tantivy's; None: words are not stemmed
    stopwords: str | tuple[str, ...] | None  # tantivy's built-in list by name, or the words
    index_stopwords: bool  # dropped from the index as well as from queries
    compounds: bool
    script: str = "latin"  # languages.json `scripts`, or a CJK one: "han", "kana", "hangul"
    feedback: bool = True  # its queries are expanded by pseudo-relevance feedback
    letters: str = ""  # letters of its script that tell it from the script's other languages

    @property
    def field(self) -> str:
        """Its index field: English keeps the field of the first layout."""
        return "body" if self.code == "en" else f"body_{self.code}"


@dataclass(frozen=True)
class Spec:
    default: str
    languages: Mapping[str, Language]
    scripts: Mapping[str, str]  # name: its ranges as a regular expression's character class
    unspaced: tuple[str, ...]  # the scripts written without spaces between words
    max_chars: int
    min_stopwords: int
    min_share: float
    kana_share: float
    gram_n: int
    gram_min_length: int
    gram_weight: float
    feedback_docs: int
    feedback_terms: int
    feedback_weight: float
    anchor_window: int
    anchor_most: int
    note_weight: float


@cache
def spec() -> Spec:
    doc: dict[str, Any] = load_json("languages.json")
    languages = {
        code: Language(code, entry["stemmer"], _stopwords(entry.get("stopwords")),
                       bool(entry.get("index_stopwords", True)), bool(entry.get("compounds")),
                       str(entry.get("script", "latin")), bool(entry.get("feedback", True)),
                       str(entry.get("letters", "")))
        for code, entry in doc["languages"].items()}
    scripts = {name: "".join(hex_range(r) for r in entry["ranges"])
               for name, entry in doc["scripts"].items() if not name.startswith("$")}
    grams = doc["grams"]
    detect = doc["detect"]
    feedback = doc["feedback"]
    unspaced = tuple(name for name, entry in doc["scripts"].items()
                     if not name.startswith("$") and not entry.get("spaced", True))
    return Spec(str(doc["default"]), languages, scripts, unspaced, int(detect["max_chars"]),
                int(detect["min_stopwords"]), float(detect["min_share"]),
                float(detect["kana_share"]), int(grams["n"]),
                int(grams["min_length"]), float(grams["weight"]), int(feedback["docs"]),
                int(feedback["terms"]), float(feedback["weight"]), int(doc["anchors"]["window"]),
                int(doc["anchors"]["most"]), float(doc["notes"]["weight"]))


def _stopwords(listed: str | list[str] | None) -> str | tuple[str, ...] | None:
    return tuple(listed) if isinstance(listed, list) else listed


def _stopword_filter(stopwords: str | tuple[str, ...]) -> tantivy.Filter:
    if isinstance(stopwords, str):
        return tantivy.Filter.stopword(stopwords)
    return tantivy.Filter.custom_stopword(list(stopwords))


@cache
def _unspaced() -> re.Pattern[str]:
    return re.compile(f"[{_unspaced_class()}]+")


@cache
def _script_patterns() -> dict[str, re.Pattern[str]]:
    return {name: re.compile(f"[{ranges}]") for name, ranges in spec().scripts.items()}


def _script(text: str) -> str:
    """The script of most of `text`'s letters, of languages.json's; else Latin."""
    if text.isascii():
        return "latin"
    letters = sum(1 for c in text if c.isalpha())
    return next((name for name, pattern in _script_patterns().items()
                 if 2 * len(pattern.findall(text)) > letters), "latin")


def _marked_language(text: str, script: str) -> str | None:
    """The language of `script` whose own letters `text` holds most (Ukrainian's і, ї, є, ґ,
    Persian's پ, چ, ژ, گ), if it holds any: the stopwords of Russian, or of none (Arabic), would
    otherwise name it."""
    found = {code: sum(map(text.count, lang.letters)) for code, lang in spec().languages.items()
             if lang.script == script and lang.letters}
    best = max(found, key=found.__getitem__, default=None)
    return best if best and found[best] else None


def _script_language(script: str) -> str | None:
    """The first language of a script none of whose languages has stopwords to tell it."""
    found = [lang for lang in spec().languages.values() if lang.script == script]
    return (found[0].code if script != "latin" and not any(lang.stopwords for lang in found)
            else None)


def codes() -> tuple[str, ...]:
    return tuple(spec().languages)


def _builder() -> tantivy.TextAnalyzerBuilder:
    return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(MAX_TOKEN))
            .filter(tantivy.Filter.lowercase()))


def analyzer(language: Language) -> tantivy.TextAnalyzer:
    """The analyzer of a language's field. English folds before stemming, as SciFact was tuned
    on; the others stem first (snowball stemmers read ä, é, ø) and drop their stopwords before
    (the lists are spelled with accents). A word the accent kept from a suffix is indexed again,
    folded, beside the text (`unaccented_words`)."""
    if language.code == "en":
        return (_builder().filter(tantivy.Filter.ascii_fold())
                .filter(tantivy.Filter.stemmer(language.stemmer or "english")).build())
    builder = _builder()
    if language.stopwords and language.index_stopwords:
        builder = builder.filter(_stopword_filter(language.stopwords))
    if language.stemmer:
        builder = builder.filter(tantivy.Filter.stemmer(language.stemmer))
    return builder.filter(tantivy.Filter.ascii_fold()).build()


@cache
def _analyzers() -> dict[str, tantivy.TextAnalyzer]:
    return {code: analyzer(lang) for code, lang in spec().languages.items()}


def analyze(code: str, text: str) -> list[str]:
    return list(_analyzers()[code].analyze(text))


# A word's accents can keep the stemmer from a suffix (es "azafrán" stems to "azafran", typed
# "azafran" to "azafr"; de "Café" to "cafe", "Cafe" to "caf"): such a word is indexed in both
# forms, stemmed then folded (as written) and folded then stemmed (as typed without accents),
# and a query word with accents is sought in both (bm25_engine.py `analyze`). Folding before
# the stemmer alone would lose what the accent tells it (es "capitán" would stem to "capit",
# "capitanes" to "capitan"; docs/benchmarks.md).


def unaccented(code: str, word: str) -> list[str] | None:
    """The terms of one query `word` (segmented) folded before its language's stemmer, where
    they differ from its terms as written (`analyze`) term by term; else None. English, which
    folds first, and a stopword have none."""
    if word.isascii() or code == "en":
        return None
    return _unaccented(code, word)


@lru_cache(maxsize=1 << 16)
def _unaccented(code: str, word: str) -> list[str] | None:
    written = analyze(code, word)
    if not written:
        return None
    folded = analyze(code, " ".join(_folded().analyze(word)))
    return folded if len(folded) == len(written) and folded != written else None


def unaccented_words(code: str, text: str) -> str:
    """The words of `text` (segmented, as `indexed` writes it) that `unaccented` reads
    otherwise, folded, separated by spaces: indexed beside the text, in its language's field,
    they give it the terms a word typed without accents is read as (each time it stands)."""
    if text.isascii() or code == "en" or not spec().languages[code].stemmer:
        return ""
    # every occurrence, so the folded form counts as often in the note as the written one
    return " ".join(ascii_folded(w) for w in _plain().analyze(text)
                    if not w.isascii() and _unaccented(code, w) is not None)


@cache
def _plain() -> tantivy.TextAnalyzer:
    return _builder().build()


@cache
def _lowered() -> tantivy.TextAnalyzer:
    return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.lowercase()).build())


@cache
def _folded() -> tantivy.TextAnalyzer:
    return _builder().filter(tantivy.Filter.ascii_fold()).build()


@cache
def _stopword_filters() -> dict[str, tantivy.TextAnalyzer]:
    return {code: _builder().filter(_stopword_filter(lang.stopwords)).build()
            for code, lang in spec().languages.items() if lang.stopwords}


def ascii_folded(word: str) -> str:
    """`word` as the English field reads it: its accents folded away (`à` is `a`)."""
    return "".join(_folded().analyze(word))


def query_stopword(code: str, word: str) -> bool:
    """Whether a query word is one of the language's stopwords but for its accents ("cómo",
    "dónde" for the list's "como", "donde"; "où" for "ou"). The analyzer drops the list's own
    spelling only; another spelling would stay a query term whose stem (es "com", "dond") matches
    other words. Queries only: a note's text keeps its analysis, so no index is rebuilt."""
    lang = spec().languages.get(code)
    if lang is None or not lang.stopwords or not lang.index_stopwords:
        return False
    folded = list(_folded().analyze(word))
    return len(folded) == 1 and not list(_stopword_filters()[code].analyze(folded[0]))


def detect(text: str) -> str | None:
    """The language of `text`'s script that its letters name, or whose stopwords are most of its
    words, or the CJK language of a text whose CJK character pairs outnumber them, or its
    script's when none of the script's languages has stopwords; None when too few words tell (a
    CJK run counts as its pairs: Latin words in Chinese text do not make it Portuguese, nor a
    Chinese note of names and links English). Remembered for the last `_DETECTED_MOST` texts,
    by digest: a note is read again whenever what other notes' links say of it changes
    (`anchors.py`)."""
    head = text[: spec().max_chars]
    key = hashlib.blake2b(head.encode(), digest_size=16).digest()
    if key in _detected:
        return _detected[key]
    found = _detect(head)
    if len(_detected) >= _DETECTED_MOST:
        del _detected[next(iter(_detected))]  # the oldest
    _detected[key] = found
    return found


_DETECTED_MOST = 16_384
_detected: dict[bytes, str | None] = {}


def _detect(head: str) -> str | None:
    s = spec()
    sample = segment(head)
    tokens = _plain().analyze(sample)
    words = len(tokens)
    if not words:
        return None
    script = _script(head)
    marked = _marked_language(head, script)
    if marked:
        return marked
    counts = {code: words - len(stop.analyze(sample))
              for code, stop in _stopword_filters().items()
              if s.languages[code].script == script or code == s.default}
    best = max(counts, key=lambda code: (counts[code], code == s.default))
    found = counts[best]
    pairs = sum(1 for token in tokens if _CJK.match(token))
    if pairs > found and pairs >= s.min_stopwords:
        return _cjk_language(sample)
    if found >= max(s.min_stopwords, s.min_share * words):
        return best
    return _script_language(script)


def _cjk_language(text: str) -> str | None:
    """Korean when most CJK characters are Hangul, Japanese when enough are kana, else Chinese
    (the language of `languages.json` of that script)."""
    s = spec()
    chars = sum(len(run) for run in _CJK.findall(text))
    hangul, kana = len(_HANGUL.findall(text)), len(_KANA.findall(text))
    script = ("hangul" if 2 * hangul > chars else "kana" if kana >= s.kana_share * chars
              else "han")
    return next((code for code, lang in s.languages.items() if lang.script == script), None)


def language_of(texts: Iterable[str], setting: str | None = None) -> str:
    """A note's analysis language: `setting` (ora.yaml) when it names one, else detected from
    the note's text, else the default."""
    s = spec()
    if setting is not None and setting in s.languages:
        return setting
    return detect("\n".join(texts)) or s.default


def compounds(code: str) -> bool:
    lang = spec().languages.get(code)
    return lang is not None and lang.compounds


def grams(text: str) -> list[str]:
    """The character n-grams of `text`'s long words (lowercased, accents folded), in order."""
    out: list[str] = []
    for word in _folded().analyze(text):
        out.extend(_word_grams(word))
    return out


@lru_cache(maxsize=1 << 16)
def _word_grams(word: str) -> tuple[str, ...]:
    # A vault's words repeat: their n-grams are cut once (a note and its chunks are both indexed).
    s = spec()
    if len(word) < s.gram_min_length:
        return ()
    return tuple(word[i : i + s.gram_n] for i in range(len(word) - s.gram_n + 1))


def shares(notes: Iterable[tuple[str, str]]) -> dict[str, float]:
    """The share of notes in each language, of (text, setting) pairs, largest first."""
    counts: dict[str, int] = {}
    for text, setting in notes:
        code = language_of([text], setting or None)
        counts[code] = counts.get(code, 0) + 1
    total = sum(counts.values())
    return {code: round(n / total, 3)
            for code, n in sorted(counts.items(), key=lambda c: (-c[1], c[0]))}
