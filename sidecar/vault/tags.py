"""A note's tags as Obsidian reads them: frontmatter `tags` (and the legacy `tag`), under any
capitalisation (`Tags:`), plus inline `#tags` in the body, where a nested tag `a/b` also counts
as `a`.

Frontmatter values may be a list or one string, comma- or space-separated, with or without `#`.
Inline tags follow Obsidian's syntax: `#` at the start of a line, after whitespace or right after
another tag (`#a#b`, `#a/#b`), then letters (with their combining marks: `#पढ़ाई`, `#เที่ยว`),
digits, `_`, `-` and `/`, not all digits, read only
in the body's prose (`prose.py`: not in code, math, comments or HTML blocks, block-quoted ones
included) and never in wikilinks, link targets or URLs; a heading's `# ` is not a tag. Privacy is
stricter than Obsidian's tags: `mentions_private` finds `#private` anywhere in the body, those
hidden places included (`private_mentions` says where: lint's `private-by-mention` hint).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from typing import Any

from sidecar.schema import load_json
from sidecar.vault.marks import marks
from sidecar.vault.prose import prose_lines

_SEPARATORS = re.compile(r"[,\s]+")
_WIKILINK = re.compile(r"!?\[\[[^\]]*\]\]")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_PRIVATE_AT = re.compile("#private", re.IGNORECASE)  # what every match of it holds


@cache
def _inline() -> re.Pattern[str]:
    # after whitespace, a line's start or `_` (Obsidian reads `snake_case_#tag` and `_#tag_` as
    # `tag`)
    return re.compile(rf"(?:(?<!\S)|(?<=_))#([\w{marks()}/-]+)")


@cache
def _chained() -> re.Pattern[str]:
    # a `#` right after a tag starts another (`#a#b`, `#a/#b`)
    return re.compile(rf"#([\w{marks()}/-]+)")


@cache
def _private_anywhere() -> re.Pattern[str]:
    # `#private` after no letter, digit or `#` (`_` too), or chained to a tag-like run
    # (`#work#private`), and ending its word (an `_` that closes emphasis too: `_#private_`)
    m = marks()
    return re.compile(rf"(?<![^\W_])(?<![{m}])(?<!#)(?:#[\w{m}/-]+)*#private"
                      rf"(?!-|[^\W_]|[{m}]|_[^\W_])", re.IGNORECASE)


@cache
def tag_properties() -> tuple[str, ...]:
    """The frontmatter keys Obsidian reads tags from (`tags`, legacy `tag`)."""
    return tuple(load_json("obsidian_properties.json")["tags"])


def clean_tag(raw: str) -> str:
    """A tag as written (`#a/b/`) reduced to its name (`a/b`); '' when nothing is left."""
    return raw.strip().lstrip("#").strip("/")


def tag_words(text: str) -> list[str]:
    """The tags of one string value as written (`"#a, b c"` → `#a`, `b`, `c`): split at commas
    and whitespace, empty parts dropped."""
    return [part for part in _SEPARATORS.split(text) if clean_tag(part)]


def only_tags(text: str) -> bool:
    """Whether `text` holds inline tags and nothing else (`#recipe #breakfast`)."""
    return bool(_inline().search(text)) and not _inline().sub("", text).strip(" \t\r\n,")


def property_values(frontmatter: Mapping[str, Any], names: Iterable[str]) -> list[Any]:
    """The values of the properties called one of `names`, in `names` order. Obsidian matches
    these names case-insensitively (`Tags:` holds tags, so `Tags: [private]` is private)."""
    by_name: dict[str, list[Any]] = {}
    for key, value in frontmatter.items():
        by_name.setdefault(str(key).casefold(), []).append(value)
    return [value for name in names for value in by_name.get(name.casefold(), [])]


def frontmatter_tags(frontmatter: Mapping[str, Any]) -> tuple[str, ...]:
    """Tags of the frontmatter's tag properties: lists, or strings split at commas and spaces."""
    found: list[str] = []
    for value in property_values(frontmatter, tag_properties()):
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, str):
                found.extend(clean_tag(part) for part in tag_words(item))
    return tuple(t for t in found if t)


# Each pattern with what a line must hold for it to match (most lines hold none: no work).
_UNREAD = ((_WIKILINK, "[["), (_LINK_TARGET, "]("), (_URL, "://"))


def _tagged_lines(body: str) -> Iterator[tuple[int, str]]:
    """(0-based line, text) of the body's prose lines that hold a `#` (`prose.py`: no code,
    math, comments or HTML blocks), with wikilinks, link targets and URLs blanked too."""
    for n, text in prose_lines(body):
        if "#" not in text:
            continue
        for pattern, mark in _UNREAD:
            if mark in text:
                text = pattern.sub(" ", text)
        yield n, text


def inline_tags_with_lines(body: str) -> list[tuple[str, int]]:
    """(tag, 0-based body line) of every inline tag, in order."""
    found = []
    for n, text in _tagged_lines(body):
        at = 0
        while (match := _inline().search(text, at)) is not None:
            emphasis = text[match.start() - 1: match.start()] == "_"
            while match is not None:
                at = match.end()
                tag = clean_tag(match.group(1))
                tag = tag.rstrip("_") if emphasis else tag  # `_#tag_`: the `_` closes emphasis
                if not tag or tag.replace("/", "").isdigit():
                    break
                found.append((tag, n))
                match = _chained().match(text, at)
    return found


def mentions_private(body: str) -> bool:
    """True when `#private` (or `#private/…`) appears anywhere in the body, in code, math and
    comments too. Obsidian does not read tags there, but a user who wrote it may mean it: a
    note counts as private on it (fail safe), while its tags and filters follow Obsidian."""
    # Most bodies hold no `#private` at all: found at once, where the full pattern tries its
    # look-behinds at every character.
    return _PRIVATE_AT.search(body) is not None and _private_anywhere().search(body) is not None


def private_mentions(body: str) -> list[tuple[int, int]]:
    """The (start, end) offsets in `body` of every `#private` that `mentions_private` counts,
    in order: lint says where a note private only by such a mention got its privacy."""
    if _PRIVATE_AT.search(body) is None:
        return []
    return [m.span() for m in _private_anywhere().finditer(body)]


def lowered(tag: str) -> str:
    """`tag` as Obsidian compares tags: lower-cased (JavaScript's toLowerCase, which Python's
    `str.lower` matches), not case-folded (#Straße and #STRASSE, #ﬁnance and #finance are two
    tags), composed (NFC) before and after (a tag saved decomposed is the tag typed)."""
    composed = unicodedata.normalize("NFC", tag)
    return unicodedata.normalize("NFC", composed.lower())


def may_have_inline(body: str, tag: str) -> bool:
    """Whether the body may hold the inline tag `tag` (casefolded) or one nested under it: it
    holds `#tag` casefolded, after the `/`s a tag may start with (`#/tag` reads as `tag`)."""
    return _inline_mark(tag).search(body.casefold()) is not None


@cache
def _inline_mark(tag: str) -> re.Pattern[str]:
    return re.compile(f"#/*{re.escape(tag)}")


def note_tags(frontmatter: Mapping[str, Any], body: str) -> tuple[str, ...]:
    """Frontmatter tags, then inline tags, each once (the first spelling of a tag kept)."""
    seen: dict[str, str] = {}
    inline = (t for t, _ in inline_tags_with_lines(body))
    for tag in (*frontmatter_tags(frontmatter), *inline):
        # as Obsidian tells tags apart (`lowered`): #Straße and #STRASSE are two, both kept
        seen.setdefault(tag.lower(), tag)
    return tuple(seen.values())


def with_ancestors(tags: Iterable[str]) -> frozenset[str]:
    """Casefolded tags plus every ancestor of a nested one (`a/b/c` → a/b/c, a/b, a): how Ora's
    own tags (private, archived, a provenance tag) and lint's vocabulary are looked up, words
    that case-fold as they lower-case. Search filters compare as Obsidian does (`lowered`)."""
    out: set[str] = set()
    for tag in tags:
        parts = tag.casefold().split("/")
        out.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    return frozenset(out)
