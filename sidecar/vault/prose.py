"""A note body's prose as Obsidian's metadata cache reads it for tags: the lines of its paragraphs,
list items, headings, block quotes and callouts, with everything Obsidian reads no tags in left
out or blanked.

Left out: fenced code (a closing fence carries no info string and is at least as long as its
opener), indented code blocks (4 columns past the paragraph's container after a blank line, a
heading or the start; a list item's indented text is the item's, not code), HTML blocks
(CommonMark's seven kinds: `<div>` to the next blank line, `<!-- … -->` to the end of its
closing line, `<pre>` to `</pre>`, …), and the same blocks inside block quotes and callouts
(`> ````, `>     code`). Blanked: inline code, `%%comments%%`, inline `<!-- comments -->`,
`$$math$$` (over any number of lines, from wherever it opens to the next `$$`) and `$math$`
(within one paragraph, over its line breaks too). Links and URLs are left to `tags.py`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_FENCE = re.compile(r"(`{3,}|~{3,})(.*)")  # on a stripped line, at most 3 columns in
_HEADING = re.compile(r"#{1,6}(?:\s|$)")
_BREAK = re.compile(r" *([-*_])(?: *\1){2,} *$")
_LIST_ITEM = re.compile(r"( *([-+*]|\d{1,9}[.)]))(?: |$)")
_QUOTE = re.compile(r" {0,3}> ?")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
# `%%` and inline HTML comments, `$$` math: blanked within a line, or left open to a later one
_COMMENTS = {"%%": re.compile(r"%%.*?%%"), "<!--": re.compile(r"<!--.*?-->"),
             "$$": re.compile(r"\$\$.*?\$\$")}
COMMENT_END = {"%%": "%%", "<!--": "-->", "$$": "$$"}
# `$…$` within a paragraph, a line break in it too (`[^$\\]` takes \n)
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?=[^\s$])(?:[^$\\]|\\.)*?(?<=[^\s\\])\$(?!\d)", re.DOTALL)
_NOT_NEWLINE = re.compile(r"[^\n]+")
# GFM's table delimiter row (`|-|:-:|`), under a header row of as many cells
_TABLE_DELIMITER = re.compile(r" {0,3}\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
_CELL_EDGE = re.compile(r"^\s*\||(?<!\\)\|\s*$")
_CELL_BAR = re.compile(r"(?<!\\)\|")

_BLOCK_TAGS = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|"
    "dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|"
    "header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|"
    "param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul")
_RAW_TAGS = "pre|script|style|textarea"
_ATTRIBUTE = r"""\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?"""
_UNTIL_BLANK = re.compile(r"(?!)")  # an HTML block a blank line ends (kinds 6 and 7)
# CommonMark's HTML blocks, kinds 1 to 6 (any may interrupt a paragraph): start, end
_HTML_BLOCKS = (
    (re.compile(rf"<(?:{_RAW_TAGS})(?:[\s>]|$)", re.I), re.compile(rf"</(?:{_RAW_TAGS})>", re.I)),
    (re.compile(r"<!--"), re.compile(r"-->")),
    (re.compile(r"<\?"), re.compile(r"\?>")),
    (re.compile(r"<![A-Za-z]"), re.compile(r">")),
    (re.compile(r"<!\[CDATA\["), re.compile(r"]]>")),
    (re.compile(rf"</?(?:{_BLOCK_TAGS})(?:\s|/?>|$)", re.I), _UNTIL_BLANK),
)
# kind 7: a whole open or closing tag (not a raw one) alone on its line; it cannot interrupt one
_HTML_TAG_LINE = re.compile(
    rf"(?:<(?!(?:{_RAW_TAGS})\b)[A-Za-z][A-Za-z0-9-]*(?:{_ATTRIBUTE})*\s*/?>"
    rf"|</(?!(?:{_RAW_TAGS})\b)[A-Za-z][A-Za-z0-9-]*\s*>)\s*$", re.I)


def _indent(line: str) -> int:
    """Columns of the line's leading whitespace, a tab reaching the next multiple of 4."""
    lead = len(line) - len(line.lstrip(" \t"))
    return len(line[:lead].expandtabs(4))


def _unquote(line: str, most: int | None) -> tuple[int, str]:
    """(how many block-quote markers `>` open the line, at most `most`; the line inside them)."""
    depth = 0
    while most is None or depth < most:
        marker = _QUOTE.match(line)
        if marker is None:
            break
        line, depth = line[marker.end():], depth + 1
    return depth, line


def _fence(stripped: str) -> str | None:
    """The fence a stripped line opens a code block with (a backtick fence's info string has
    no backtick), else None."""
    match = _FENCE.match(stripped)
    if match is None or (match.group(1)[0] == "`" and "`" in match.group(2)):
        return None
    return match.group(1)


def _closes(fence: str, stripped: str) -> bool:
    """A closing fence: the opener's character, at least as many, nothing after but spaces."""
    match = _FENCE.match(stripped)
    return (match is not None and not match.group(2).strip()
            and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence))


def _html_block(stripped: str, in_paragraph: bool) -> tuple[re.Pattern[str], int] | None:
    """(the end, where to look for it) of the HTML block a stripped line opens, else None."""
    for start, end in _HTML_BLOCKS:
        opened = start.match(stripped)
        if opened:
            return end, opened.end()
    if not in_paragraph and _HTML_TAG_LINE.match(stripped):
        return _UNTIL_BLANK, len(stripped)
    return None


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


def _interrupts(content: str, stripped: str) -> bool:
    """Whether a line less than 4 columns past its container starts a block that ends an open
    paragraph."""
    return bool(_fence(stripped) or _HEADING.match(stripped) or _BREAK.match(content)
                or _item_column(content, True) is not None or _html_block(stripped, True))


def _lazy(content: str) -> bool:
    """Whether a line outside a block quote still continues the quote's paragraph (CommonMark's
    lazy continuation: any text that starts no block)."""
    stripped = content.strip()
    return bool(stripped) and (_indent(content) >= 4 or not _interrupts(content, stripped))


class _Blocks:
    """Where each body line sits, read in order: in a block quote, a code fence, an HTML block,
    a comment or `$$` math left open, an indented code block, list items, a paragraph."""

    def __init__(self) -> None:
        self.depth = 0  # how many block quotes the open blocks sit in
        self.fence: tuple[str, int] | None = None  # the open fence and its container's column
        self.html: re.Pattern[str] | None = None  # the end of the open HTML block
        self.comment: str | None = None  # the opener of the comment (or `$$`) a line left open
        self.code: int | None = None  # the container column of the open indented code block
        self.items: list[int] = []  # content columns of the open list items, outermost first
        self.paragraph = False  # an open paragraph: its next line continues it, indented or not

    def read(self, line: str) -> tuple[str | None, bool]:
        """The part of `line` to read for tags (None: nothing), and whether it starts a new
        paragraph (inline math runs over a line break only within one)."""
        line = line.expandtabs(4)  # a tab after `>` reaches the next stop, as CommonMark counts
        if self.comment is not None:
            end = COMMENT_END[self.comment]
            content = _unquote(line, self.depth)[1]
            if end not in content:
                return None, True
            self.comment, rest = None, content.split(end, 1)[1]
            self.paragraph = bool(rest.strip())
            return rest, True
        raw = self.fence is not None or self.html is not None  # `>` inside is the block's own
        depth, content = _unquote(line, self.depth if raw else None)
        if depth < self.depth and not (self.paragraph and _lazy(content)):
            # the quote ends, and every block in it: a fence or HTML in `> ` ends with it
            self.fence = self.html = self.code = None
            self.items, self.paragraph = [], False
            depth, content = _unquote(line, None)
            self.depth = depth
        elif depth > self.depth:  # a quote opens
            self.depth, self.items, self.paragraph, self.code = depth, [], False, None
        return self._inside(content)

    def _inside(self, content: str) -> tuple[str | None, bool]:
        """`read` for the line inside its block quotes."""
        stripped = content.strip()
        if self.fence is not None:
            fence, base = self.fence
            if _closes(fence, stripped) and _indent(content) < base + 4:
                self.fence = None
            return None, True
        if self.html is not None:
            if self.html is _UNTIL_BLANK and not stripped:
                self.html, self.paragraph = None, False
            elif self.html.search(content):
                self.html = None
            return None, True
        if not stripped:
            self.paragraph = False  # blank lines inside an indented code block keep it open
            return None, True
        indent = _indent(content)
        if self.code is not None and indent >= self.code + 4:
            return None, True
        self.code = None
        inner = [column for column in self.items if column <= indent]
        base = inner[-1] if inner else 0
        if indent >= base + 4:
            if self.paragraph:  # an indent cannot interrupt a paragraph: still its text
                return content, False
            # CommonMark's indented code block: 4 columns past the list item it sits in
            self.items, self.code = inner, base
            return None, True
        return self._unindented(content, stripped, inner, base)

    def _unindented(self, content: str, stripped: str, inner: list[int],
                    base: int) -> tuple[str | None, bool]:
        """A line less than 4 columns past its container: a block starts, or a paragraph goes
        on (lazily too: `- item` then `more text` at column 0 is still the item's)."""
        if self.paragraph and not _interrupts(content, stripped):
            return content, False
        self.items = inner
        fence, html = _fence(stripped), _html_block(stripped, self.paragraph)
        ends = bool(_HEADING.match(stripped) or _BREAK.match(content))
        self.paragraph = not (ends or fence or html)
        if fence:
            self.fence = fence, base
            return None, True
        if html:
            end, after = html
            self.html = None if end.search(stripped, after) else end
            return None, True
        item = _item_column(content, in_paragraph=False)
        if item is not None:
            self.items.append(item)
        return content, True


def blank_comments(line: str) -> tuple[str, str | None]:
    """`line` with its comments (and `$$` math) blanked, and the opener of one it leaves open
    (which runs on to a later line), if any."""
    for pattern in _COMMENTS.values():
        line = pattern.sub(" ", line)
    starts = {opener: line.find(opener) for opener in _COMMENTS if opener in line}
    if not starts:
        return line, None
    first = min(starts, key=starts.__getitem__)
    return line[: starts[first]], first


def _paragraphs(body: str) -> Iterator[list[tuple[int, str]]]:
    """The body's prose as paragraphs of (0-based line, text), inline code, comments and `$$`
    math blanked; lines in code, HTML blocks and comments left open are left out."""
    blocks = _Blocks()
    paragraph: list[tuple[int, str]] = []
    for n, line in enumerate(body.split("\n")):
        text, starts = blocks.read(line.removesuffix("\r"))
        if starts and paragraph:
            yield paragraph
            paragraph = []
        if text is not None:
            text = _CODE_SPAN.sub(" ", text)  # a comment mark inside code is code
            text, blocks.comment = blank_comments(text)
            paragraph.append((n, text))
    if paragraph:
        yield paragraph


def _cells(row: str) -> int:
    """How many cells a table row has (its edge bars aside; `\\|` is a cell's own)."""
    return len(_CELL_BAR.split(_CELL_EDGE.sub("", row)))


def _table_start(lines: list[str]) -> int | None:
    """Where a GFM table starts in a paragraph's lines (its header row), else None: the rest
    of the paragraph is its rows."""
    for i in range(1, len(lines)):
        delimiter, header = lines[i], lines[i - 1]
        if ("|" in delimiter and "|" in header and _TABLE_DELIMITER.match(delimiter)
                and _cells(header) == _cells(delimiter)):
            return i - 1
    return None


def prose_lines(body: str) -> Iterator[tuple[int, str]]:
    """(0-based line, text) of the body's prose lines, block-quote markers stripped, with inline
    code, math (`$…$` over a line break within its paragraph too) and comments blanked, and a
    table's cell bars blanked (a cell starts its text, as a line does: `|#tag|` is a tag)."""
    for paragraph in _paragraphs(body):
        joined = "\n".join(text for _, text in paragraph)
        lines = _INLINE_MATH.sub(lambda m: _NOT_NEWLINE.sub(" ", m.group()), joined).split("\n")
        table = _table_start(lines)
        if table is not None:
            lines[table:] = [line.replace("|", " ") for line in lines[table:]]
        yield from zip((n for n, _ in paragraph), lines, strict=True)
