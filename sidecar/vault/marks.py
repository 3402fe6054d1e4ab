"""The combining marks and zero-width joiners that belong inside a word.

Python's `\\w` holds letters and digits but no combining mark, so a pattern of `\\w` cut a Hindi
or Bengali word at its vowel signs and virama, a Thai word at its vowels and tone marks, and a
Persian word at its zero-width non-joiner: `#पढ़ाई` was the tag `पढ`. Patterns that read words
add `marks()` to their class. Both are worked out at their first use (~25 ms), not at start-up.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache


@cache
def codepoints() -> tuple[int, ...]:
    """Every combining mark (none lies above U+1FFFF but the variation selectors), and ZWNJ and
    ZWJ."""
    return (*(cp for cp in [*range(0x300, 0x20000), *range(0xE0100, 0xE01F0)]
              if unicodedata.category(chr(cp))[0] == "M"), 0x200C, 0x200D)


@cache
def marks() -> str:
    """The body of a regular expression's character class: `[\\w{marks()}]` is a word's
    character."""
    runs: list[list[int]] = []
    for cp in sorted(codepoints()):
        if runs and runs[-1][1] == cp - 1:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp])
    return "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in runs)


@cache
def letters() -> re.Pattern[str]:
    """A run of a word's characters (`[\\w{marks()}]*`, maybe empty): `letters().match(text,
    at)` ends where the word standing at `at` ends; a one-character `fullmatch` tells a word's
    character."""
    return re.compile(f"[\\w{marks()}]*")
