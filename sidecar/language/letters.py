"""Letters read as others before text is cut into words: by keyword search (`languages.segment`,
its documents and queries alike), the phrase lift and the accent restoration (`accents.fold`), and,
from the same data, the plugin's highlight (plugin/src/search/accents.ts).

A text is composed (NFC) and its half-width and full-width forms read at their usual width
(`composed`); each script's vowel points and other marks are read as if not written, its letters
typed for one another as one (languages.json `scripts` `marks`, `same`), a capital the search
engine would lowercase with a mark as its letter (`lowercase`: Turkish İ), and each Traditional
Chinese character as its Simplified form (`han_variants.json`).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from sidecar.schema import load_json


def code_points(text: str) -> range:
    """A range of code points written in hex: "0600-06FF", or one, "0670"."""
    first, _, last = text.partition("-")
    return range(int(first, 16), int(last or first, 16) + 1)


def hex_range(text: str) -> str:
    """A range of code points written in hex (`code_points`) as a character class's body."""
    points = code_points(text)
    return f"{chr(points[0])}-{chr(points[-1])}"


@cache
def script_letters() -> dict[int, str | None]:
    """The scripts' `marks`, to be dropped, and their `same` letters, each to the letter it
    stands for (languages.json `scripts`), and the capitals of `lowercase` as their letter: a
    vowelled Arabic or Hebrew word, or one typed on the other Arabic-script keyboard, reads as
    the same word, and a Turkish "İstanbul" as "istanbul"."""
    doc = load_json("languages.json")
    table: dict[int, str | None] = {ord(capital): str(letter) for capital, letter
                                    in doc["lowercase"].items() if not capital.startswith("$")}
    for name, entry in doc["scripts"].items():
        if name.startswith("$"):
            continue
        for marks in entry.get("marks", ()):
            table.update(dict.fromkeys(code_points(marks)))
        table.update({ord(letter): str(same) for letter, same in entry.get("same", {}).items()})
    return table


@cache
def han() -> dict[int, str]:
    """Each Traditional Chinese character to its Simplified form (`han_variants.json`): "後來"
    reads as "后来"."""
    return {ord(traditional): str(simplified) for traditional, simplified
            in load_json("han_variants.json")["traditional"].items()}


# The CJK ideographs, where a Traditional character may stand.
HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")


@cache
def unified() -> dict[int, str | None]:
    """Every letter read as another by keyword search: `script_letters` and `han`."""
    return {**script_letters(), **han()}


@cache
def marked() -> re.Pattern[str]:
    """A letter of a script that has `marks`: a word of it may be written with them or not."""
    doc = load_json("languages.json")["scripts"]
    return re.compile("[" + "".join(hex_range(r) for name, entry in doc.items()
                                    if not name.startswith("$") and entry.get("marks")
                                    for r in entry["ranges"]) + "]")


# Half-width katakana and full-width letters, digits and punctuation (ｱﾌﾟﾘ, ＡＰＩ１２).
_WIDTHS = re.compile("[\uff00-\uffef]+")


@cache
def width_forms() -> frozenset[str]:
    """The letters a half-width or full-width form stands for (ア for ｱ, A for Ａ)."""
    return frozenset(c for cp in range(0xFF00, 0xFFF0)
                     if len(c := unicodedata.normalize("NFKC", chr(cp))) == 1 and c != chr(cp))


def composed(text: str) -> str:
    """`text` composed (NFC), its half-width and full-width forms as their usual width (NFKC):
    a name macOS saved decomposed (Japanese ペ as ヘ and a sound mark, Korean syllables as their
    jamo) is the word typed, and a half-width ｱﾌﾟﾘ is アプリ."""
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return _WIDTHS.sub(lambda run: unicodedata.normalize("NFKC", run.group()), text)
