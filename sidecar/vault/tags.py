"""A note's tags as Obsidian reads them: frontmatter `tags` (and the legacy `tag`), under any
capitalisation (`Tags:`), plus inline `#tags` in the body, where a nested tag `a/b` also counts
as `a`.

Frontmatter values may be a list or one string, comma- or space-separated, with or without `#`.
Inline tags follow Obsidian's syntax: `#` at the start of a line or after whitespace, then letters,
digits, `_`, `-` and `/`, not all digits. They are not read inside fenced code, indented code
blocks (4 columns past the paragraph's container after a blank line, a heading or the start; a
list item's indented text is the item's, not code), inline code, `$math$` (over a line break
within one paragraph too) and `$$math$$`, `%%comments%%`, `<!-- HTML comments -->`, wikilinks,
link targets or URLs; a heading's `# ` is not a tag. Privacy is stricter than Obsidian's tags:
`mentions_private` finds `#private` anywhere in the body, those hidden places included.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from typing import Any

from sidecar.schema import load_json

_SEPARATORS = re.compile(r"[,\s]+")
_INLINE = re.compile(r"(?<!\S)#([\w/-]+)")
_FENCE = re.compile(r"(`{3,}|~{3,})")  # on a stripped line, at most 3 columns in
_HEADING = re.compile(r"#{1,6}(?:\s|$)")
_BREAK = re.compile(r" *([-*_])(?: *\1){2,} *$")
_LIST_ITEM = re.compile(r"( *([-+*]|\d{1,9}[.)]))(?: |$)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_WIKILINK = re.compile(r"!?\[\[[^\]]*\]\]")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_COMMENTS = {"%%": re.compile(r"%%.*?%%"), "<!--": re.compile(r"<!--.*?-->")}
_COMMENT_END = {"%%": "%%", "<!--": "-->"}
# `$$…$$` on one line; `$…$` within a paragraph, a line break in it too (`[^$\\]` takes \n)
_INLINE_MATH = re.compile(
    r"\$\$[^\n]+?\$\$|(?<![\\$])\$(?=[^\s$])(?:[^$\\]|\\.)*?(?<=[^\s\\])\$(?!\d)", re.DOTALL)
_NOT_NEWLINE = re.compile(r"[^\n]+")
_PRIVATE_ANYWHERE = re.compile(r"(?<![\w#])#private(?![\w-])", re.IGNORECASE)


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


def _opens_math(stripped: str) -> bool:
    """A `$$` line that opens a display-math block (not `$$x$$` on one line)."""
    return stripped.startswith("$$") and (stripped == "$$" or not stripped[2:].endswith("$$"))


def _blank_comments(line: str) -> tuple[str, str | None]:
    """`line` with its comments blanked, and the opener of a comment it leaves open (which
    runs on to a later line), if any."""
    for pattern in _COMMENTS.values():
        line = pattern.sub(" ", line)
    starts = {opener: line.find(opener) for opener in _COMMENTS if opener in line}
    if not starts:
        return line, None
    first = min(starts, key=starts.__getitem__)
    return line[: starts[first]], first


def _indent(line: str) -> int:
    """Columns of the line's leading whitespace, a tab reaching the next multiple of 4."""
    lead = len(line) - len(line.lstrip(" \t"))
    return len(line[:lead].expandtabs(4))


def _item_column(line: str, in_paragraph: bool) -> int | None:
    """The column a list item's content starts at when `line` opens one, else None. Inside a
    paragraph only an item with text, and an ordered one only from 1, may start (CommonMark)."""
    expanded = line.expandtabs(4)
    item = _LIST_ITEM.match(expanded)
    if item is None or _BREAK.match(expanded):
        return None
    rest = expanded[item.end(1):]
    if in_paragraph and (not rest.strip() or item.group(2) not in ("-", "+", "*", "1.", "1)")):
        return None
    gap = len(rest) - len(rest.lstrip(" "))
    return item.end(1) + (gap if rest.strip() and gap <= 4 else 1)


class _Blocks:
    """Where each body line sits, read in order: in a code fence, a math block, a comment
    left open, an indented code block, list items, a paragraph."""

    def __init__(self) -> None:
        self.fence: str | None = None
        self.math = False
        self.comment: str | None = None  # the opener of the comment a line left open
        self.code: int | None = None  # the container column of the open indented code block
        self.items: list[int] = []  # content columns of the open list items, outermost first
        self.paragraph = False  # an open paragraph: its next line continues it, indented or not

    def read(self, line: str) -> tuple[str | None, bool]:
        """The part of `line` to read for tags (None: nothing), and whether it starts a new
        paragraph (inline math runs over a line break only within one)."""
        stripped = line.strip()
        if self.fence is not None:
            self.fence = None if stripped.startswith(self.fence) else self.fence
            return None, True
        if self.math:
            self.math = not stripped.endswith("$$")
            return None, True
        if self.comment is not None:
            end = _COMMENT_END[self.comment]
            if end not in line:
                return None, True
            self.comment, rest = None, line.split(end, 1)[1]
            self.paragraph = bool(rest.strip())
            return rest, True
        if not stripped:
            self.paragraph = False  # blank lines inside an indented code block keep it open
            return None, True
        indent = _indent(line)
        if self.code is not None and indent >= self.code + 4:
            return None, True
        self.code = None
        inner = [column for column in self.items if column <= indent]
        base = inner[-1] if inner else 0
        if indent >= base + 4:
            if self.paragraph:  # an indent cannot interrupt a paragraph: still its text
                return line, False
            # CommonMark's indented code block: 4 columns past the list item it sits in
            self.items, self.code = inner, base
            return None, True
        return self._unindented(line, stripped, inner)

    def _unindented(self, line: str, stripped: str, inner: list[int]) -> tuple[str | None, bool]:
        """A line less than 4 columns past its container: a block starts, or a paragraph goes
        on (lazily too: `- item` then `more text` at column 0 is still the item's)."""
        item = _item_column(line, self.paragraph)
        fence = _FENCE.match(stripped)
        ends = bool(_HEADING.match(stripped) or _BREAK.match(line.expandtabs(4)))
        if self.paragraph and not (fence or ends or item is not None or _opens_math(stripped)):
            return line, False
        self.items = inner
        self.paragraph = not ends
        if fence:
            self.fence, self.paragraph = fence.group(1), False
            return None, True
        if _opens_math(stripped):
            self.math, self.paragraph = True, False
            return None, True
        if item is not None:
            self.items.append(item)
        return line, True


def _paragraphs(body: str) -> Iterator[list[tuple[int, str]]]:
    """The body's prose as paragraphs of (0-based line, text), inline code and comments
    blanked; lines in code, math blocks and block comments are left out."""
    blocks = _Blocks()
    paragraph: list[tuple[int, str]] = []
    for n, line in enumerate(body.split("\n")):
        text, starts = blocks.read(line.removesuffix("\r"))
        if starts and paragraph:
            yield paragraph
            paragraph = []
        if text is not None:
            text = _CODE_SPAN.sub(" ", text)  # a comment mark inside code is code
            text, blocks.comment = _blank_comments(text)
            paragraph.append((n, text))
    if paragraph:
        yield paragraph


def _prose_lines(body: str) -> Iterator[tuple[int, str]]:
    """(0-based line, text) of the body's prose lines, with inline code, math (`$…$` over a
    line break within its paragraph too), comments, wikilinks, link targets and URLs blanked."""
    for paragraph in _paragraphs(body):
        joined = "\n".join(text for _, text in paragraph)
        joined = _INLINE_MATH.sub(lambda m: _NOT_NEWLINE.sub(" ", m.group()), joined)
        for (n, _), text in zip(paragraph, joined.split("\n"), strict=True):
            for pattern in (_WIKILINK, _LINK_TARGET, _URL):
                text = pattern.sub(" ", text)
            yield n, text


def inline_tags_with_lines(body: str) -> list[tuple[str, int]]:
    """(tag, 0-based body line) of every inline tag, in order."""
    found = []
    for n, text in _prose_lines(body):
        for match in _INLINE.finditer(text):
            tag = clean_tag(match.group(1))
            if tag and not tag.replace("/", "").isdigit():
                found.append((tag, n))
    return found


def mentions_private(body: str) -> bool:
    """True when `#private` (or `#private/…`) appears anywhere in the body, in code, math and
    comments too. Obsidian does not read tags there, but a user who wrote it may mean it: a
    note counts as private on it (fail safe), while its tags and filters follow Obsidian."""
    return _PRIVATE_ANYWHERE.search(body) is not None


def note_tags(frontmatter: Mapping[str, Any], body: str) -> tuple[str, ...]:
    """Frontmatter tags, then inline tags, each once (the first spelling of a tag kept)."""
    seen: dict[str, str] = {}
    inline = (t for t, _ in inline_tags_with_lines(body))
    for tag in (*frontmatter_tags(frontmatter), *inline):
        seen.setdefault(tag.casefold(), tag)
    return tuple(seen.values())


def with_ancestors(tags: Iterable[str]) -> frozenset[str]:
    """Casefolded tags plus every ancestor of a nested one (`a/b/c` → a/b/c, a/b, a)."""
    out: set[str] = set()
    for tag in tags:
        parts = tag.casefold().split("/")
        out.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    return frozenset(out)
