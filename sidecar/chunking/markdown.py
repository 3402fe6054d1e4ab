"""A note body as blocks, with their line indices: just enough Obsidian-flavoured Markdown for
chunking.

Blocks: ATX and setext headings, paragraphs, fenced code, `$$` math, block quotes and callouts
(`> [!note] Title`), tables. A `#` line inside a ``` or ~~~ fence or a `$$` block is not a
heading (CommonMark's rule for fences: the fence closes on the same character, at least as long,
nothing after). A line of `===` or `---` right under a paragraph makes that paragraph a setext
H1 or H2; after a blank line, `---` is a thematic break (front matter never reaches this module).

Each line also has a readable form (`Readable`): what a reader of the rendered note sees, which
is what gets embedded. `%%comments%%` (inline or spanning lines; not in code) and block ids
(`^id` at a line's end) are left out, a link or embed `[[Note#Part|alias]]` reads as its alias
or "Note > Part", and a Markdown link `[text](url)` as its text (`vault/links.shown`), as Obsidian
shows them. An unclosed `%%` stays literal text: one stray `%%`
must not hide the rest of a note from search. Structure is read from the readable lines, so a
heading inside a comment is not a heading. A query block (```` ```dataview ````, `dataviewjs`,
`tasks`, `query`, `base`: `schema/plugin_formats.json`) reads as nothing: the reading view shows
the query's results, drawn from other notes, never its code; so does an inline query
(`` `= this.rating` ``, `` `$= dv.current().rating` ``), which shows its value.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache

from sidecar.schema import load_json
from sidecar.vault.links import shown

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-+*]|\d{1,9}[.)])(?:\s|$)")
_QUOTE = re.compile(r"^ {0,3}>")
_CALLOUT = re.compile(r"^ {0,3}>\s*\[!([^\]]+)\][+-]?[ \t]*(.*?)\s*$")
_TABLE_DELIMITER = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_MATH = "$$"
COMMENT = "%%"
_BLOCK_ID = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*$")
_BACKTICKS = re.compile(r"`+")


@dataclass(frozen=True)
class Block:
    """Lines first..last (0-based, inclusive) of the body; `level` > 0 for a heading. `label`
    names a block whose parts need it when the block is split: a callout's title, a table's
    header row. `markup` lines render as nothing (a setext underline, a table's delimiter row).
    `resumed`: the rest of a callout after a query block inside it, already a part of it, so
    its breadcrumb carries the callout's title even when it fits whole.
    """

    first: int
    last: int
    level: int = 0
    title: str = ""
    label: str = ""
    markup: int | None = None
    resumed: bool = False


@dataclass(frozen=True)
class Readable:
    """Every body line as a reader sees it, and the block ids each line carries. `kept` holds
    the (start, end) spans of each raw line that are not comment; `part` reads a piece of one."""

    raw: list[str]
    kept: list[list[tuple[int, int]]]
    verbatim: list[bool]  # code or math: shown as written
    lines: list[str]
    ids: list[tuple[str, ...]]
    query: list[bool] = field(default_factory=list)  # a query block's line: shows its results

    def part(self, i: int, start: int, end: int) -> tuple[str, tuple[str, ...]]:
        """The readable text and block ids of raw line i's characters start..end."""
        line = self.raw[i]
        text = "".join(line[max(a, start) : min(b, end)] for a, b in self.kept[i] if a < end)
        if self.verbatim[i]:
            return text, ()
        found = _BLOCK_ID.search(text)
        ids = (found.group(1),) if found else ()
        if found:
            text = text[: found.start()]
        return shown(text), ids


def heading(line: str) -> tuple[int, str] | None:
    """(level, title) of an ATX heading line, else None."""
    match = _HEADING.match(line)
    if match is None:
        return None
    return len(match.group(1)), (match.group(2) or "").strip()


def _closes(line: str, marker: str) -> bool:
    """Whether `line` closes a fence opened with `marker`."""
    m = _FENCE.match(line)
    return bool(m and m.group(1)[0] == marker[0] and len(m.group(1)) >= len(marker)
                and not m.group(2).strip())


def _fence_end(lines: list[str], start: int, marker: str) -> int:
    """Index of the line closing the fence opened at `start` (the last line if never closed)."""
    for i in range(start + 1, len(lines)):
        if _closes(lines[i], marker):
            return i
    return len(lines) - 1


def _fence_opener(line: str) -> str | None:
    """The marker of a code fence opened by `line` (a ``` info string may not hold a backtick)."""
    fence = _FENCE.match(line)
    if fence is None or (fence.group(1)[0] == "`" and "`" in fence.group(2)):
        return None
    return fence.group(1)


@cache
def _query_languages() -> frozenset[str]:
    return frozenset(load_json("plugin_formats.json")["query_languages"])


@cache
def _inline_query() -> re.Pattern[str]:
    """An inline code span's content that is an inline query: a prefix, then a space or a letter
    (so `` `==` `` and `` `=>` `` stay code)."""
    prefixes = sorted(load_json("plugin_formats.json")["inline_query_prefixes"], key=len)
    return re.compile(rf"^(?:{'|'.join(re.escape(p) for p in reversed(prefixes))})[\s\w]")


def _without_inline_queries(line: str, kept: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """`kept` less the inline query spans of `line`."""
    for a, b in _code_spans(line):
        if _inline_query().match(line[a:b].strip("`").lstrip(" ")):
            kept = [(x, y) for s, e in kept for x, y in ((s, min(e, a)), (max(s, b), e)) if x < y]
    return kept


def _is_query(line: str) -> bool:
    """Whether a fence opener's info string names a query language (`dataview`, `tasks`, …)."""
    fence = _FENCE.match(line)
    words = fence.group(2).split() if fence else []
    return bool(words) and words[0].lower() in _query_languages()


def _math_closers(lines: list[str]) -> list[int]:
    """Indices of the lines that can close a `$$` block, ascending."""
    return [i for i, line in enumerate(lines) if line.rstrip().endswith(_MATH)]


def _math_end(lines: list[str], start: int, closers: list[int]) -> int | None:
    """The line closing a `$$` block opened at `start` (itself for `$$ x $$`), None if none."""
    if not _opens_math(lines[start]):
        return None
    if _MATH in lines[start].strip()[len(_MATH) :]:
        return start
    after = bisect.bisect_right(closers, start)
    return closers[after] if after < len(closers) else None


def _opens_math(line: str) -> bool:
    return line.lstrip().startswith(_MATH) and len(line) - len(line.lstrip()) < 4


# ---- readable lines ----------------------------------------------------------------------------


def _code_spans(line: str) -> list[tuple[int, int]]:
    """(start, end) of each inline code span: a backtick run up to the next run as long."""
    spans: list[tuple[int, int]] = []
    runs = list(_BACKTICKS.finditer(line))
    i = 0
    while i < len(runs):
        opener = runs[i]
        close = next(
            (j for j in range(i + 1, len(runs)) if len(runs[j].group()) == len(opener.group())),
            None,
        )
        if close is None:
            i += 1
            continue
        spans.append((opener.start(), runs[close].end()))
        i = close + 1
    return spans


def _comment_marks(line: str) -> list[int]:
    """Positions of `%%` outside inline code."""
    spans = _code_spans(line)
    marks, pos = [], line.find(COMMENT)
    while pos >= 0:
        if not any(a <= pos < b for a, b in spans):
            marks.append(pos)
            pos = line.find(COMMENT, pos + 2)
        else:
            pos = line.find(COMMENT, pos + 1)
    return marks


_QUOTE_PREFIX = re.compile(r"^((?: {0,3}>[ \t]?)+)(.*)$")


def _quoted_queries(lines: list[str], kept: list[list[tuple[int, int]]],
                    verbatim: list[bool]) -> list[tuple[int, int]]:
    """(first, last) of each closed query block inside a block quote or callout (`> ```dataview`),
    among the lines read as prose (whole: no comment in them)."""
    def prose(k: int) -> bool:
        return not verbatim[k] and kept[k] == [(0, len(lines[k]))]

    def inside(k: int) -> tuple[int, str] | None:
        if k >= len(lines) or not prose(k) or (m := _QUOTE_PREFIX.match(lines[k])) is None:
            return None
        return m.group(1).count(">"), m.group(2)

    found, i = [], 0
    while i < len(lines):
        opened = inside(i)
        marker = _fence_opener(opened[1]) if opened else None
        if opened is None or marker is None or not _is_query(opened[1]):
            i += 1
            continue
        end = _quoted_end(i, opened[0], marker, inside)
        if end is not None:
            found.append((i, end))
        i = (end if end is not None else i) + 1
    return found


def _quoted_end(start: int, depth: int, marker: str,
                inside: Callable[[int], tuple[int, str] | None]) -> int | None:
    """The line closing a fence opened at `start` in a quote `depth` deep, None if the quote
    ends first."""
    k = start + 1
    while (inner := inside(k)) is not None and inner[0] == depth:
        if _closes(inner[1], marker):
            return k
        k += 1
    return None


def readable(lines: list[str]) -> Readable:
    """Each line without comments and block ids, links and embeds by name; code and math kept
    verbatim; a query block's lines empty."""
    kept: list[list[tuple[int, int]]] = [[(0, len(line))] for line in lines]
    verbatim = [False] * len(lines)
    query = [False] * len(lines)
    later = [False] * (len(lines) + 1)  # later[i]: a `%%` occurs on some line >= i
    for i in range(len(lines) - 1, -1, -1):
        later[i] = later[i + 1] or COMMENT in lines[i]
    closers = _math_closers(lines)
    in_comment = False
    verbatim_until = -1  # last line of the code or math block being passed through
    for i, line in enumerate(lines):
        start = 0
        if in_comment:
            close = line.find(COMMENT)
            if close < 0:
                kept[i] = []
                continue
            in_comment, start = False, close + len(COMMENT)
        elif i <= verbatim_until:
            verbatim[i], query[i] = True, query[i - 1]
            if query[i]:
                kept[i] = []
            continue
        else:
            marker = _fence_opener(line)
            end = _fence_end(lines, i, marker) if marker else _math_end(lines, i, closers)
            if end is not None:
                verbatim[i], verbatim_until = True, end
                if marker and _is_query(line) and end > i and _closes(lines[end], marker):
                    query[i], kept[i] = True, []  # unclosed, it stays code: it hides nothing
                continue
        kept[i], in_comment = _uncommented(line, start, later[i + 1])
        kept[i] = _without_inline_queries(line, kept[i])
    for first, last in _quoted_queries(lines, kept, verbatim):
        for k in range(first, last + 1):
            verbatim[k], query[k], kept[k] = True, True, []
    seen = Readable(list(lines), kept, verbatim, [], [], query)
    for i, line in enumerate(lines):
        text, ids = seen.part(i, 0, len(line))
        seen.lines.append(text)
        seen.ids.append(ids)
    return seen


def _uncommented(line: str, start: int, closes_later: bool) -> tuple[list[tuple[int, int]], bool]:
    """The spans of line[start:] outside `%%…%%`, and whether a comment stays open past it."""
    marks = [m for m in _comment_marks(line) if m >= start]
    kept = []
    for n in range(0, len(marks) - 1, 2):
        kept.append((start, marks[n]))
        start = marks[n + 1] + len(COMMENT)
    if len(marks) % 2 and closes_later:
        kept.append((start, marks[-1]))
        return kept, True
    kept.append((start, len(line)))
    return kept, False


# ---- blocks ------------------------------------------------------------------------------------


def _table_at(lines: list[str], i: int) -> bool:
    return (
        "|" in lines[i]
        and i + 1 < len(lines)
        and "|" in lines[i + 1]
        and _TABLE_DELIMITER.match(lines[i + 1]) is not None
    )


def _interrupts(lines: list[str], i: int, closers: list[int]) -> bool:
    """Whether line i starts a new block even right under a paragraph line."""
    line = lines[i]
    return (
        not line.strip()
        or heading(line) is not None
        or _fence_opener(line) is not None
        or _QUOTE.match(line) is not None
        or _math_end(lines, i, closers) is not None
        or _table_at(lines, i)
    )


def _callout_label(line: str) -> str:
    match = _CALLOUT.match(line)
    if match is None:
        return ""
    return match.group(2) or match.group(1).strip().capitalize()


def blocks(lines: list[str], text: Readable | None = None) -> list[Block]:
    """Headings, paragraphs, code, math, quotes/callouts and tables, in order.

    `lines` are the body's lines; structure is read from their readable form. A line holding
    only a block id (`^id`, Obsidian's way to name a table or callout) joins the block above it.
    """
    text = text if text is not None else readable(lines)
    seen, ids = text.lines, text.ids
    closers = _math_closers(seen)
    out: list[Block] = []
    i = 0
    while i < len(seen):
        line = seen[i]
        if not line.strip():
            if ids[i] and out:
                out[-1] = replace(out[-1], last=i)
            i += 1
            continue
        head = heading(line)
        marker = _fence_opener(line)
        math_end = _math_end(seen, i, closers)
        if head is not None:
            out.append(Block(i, i, head[0], head[1]))
            i += 1
        elif marker is not None:
            end = _fence_end(seen, i, marker)
            out.append(Block(i, end))
            i = end + 1
        elif math_end is not None:
            out.append(Block(i, math_end))
            i = math_end + 1
        elif _QUOTE.match(line):
            end = i
            while end + 1 < len(seen) and _QUOTE.match(seen[end + 1]):
                end += 1
            title = _callout_label(line)
            resumed = "" if title else _resumed(out, text, i)
            out.append(Block(i, end, label=title or resumed, resumed=bool(resumed)))
            i = end + 1
        elif _table_at(seen, i):
            end = i + 1
            while end + 1 < len(seen) and not _interrupts(seen, end + 1, closers):
                end += 1
            out.append(Block(i, end, label=line.strip(), markup=i + 1))
            i = end + 1
        else:
            out.append(_paragraph(seen, i, closers))
            i = out[-1].last + 1
    return out


def _resumed(out: list[Block], text: Readable, start: int) -> str:
    """The title of the callout that a query block interrupted when the quote at `start` goes
    on right after it (`> ```dataview` … `> ````): the same callout, so its rest is titled too."""
    if not out or not out[-1].label or not _QUOTE.match(text.lines[out[-1].first]):
        return ""
    between = range(out[-1].last + 1, start)
    if not between or not all(text.query[k] for k in between if k < len(text.query)):
        return ""
    return out[-1].label


def _paragraph(seen: list[str], start: int, closers: list[int]) -> Block:
    """A run of lines from `start`, or a setext heading when an underline closes it."""
    end = start
    while end + 1 < len(seen) and not _interrupts(seen, end + 1, closers):
        underline = _SETEXT.match(seen[end + 1])
        if underline and not any(_LIST_ITEM.match(seen[k]) for k in range(start, end + 1)):
            title = " ".join(seen[k].strip() for k in range(start, end + 1))
            level = 1 if underline.group(1)[0] == "=" else 2
            return Block(start, end + 1, level, title, markup=end + 1)
        end += 1
    return Block(start, end)


@dataclass(frozen=True)
class Section:
    """The blocks under one heading chain (the heading's own line is the first block)."""

    path: tuple[str, ...]
    blocks: list[Block]


def sections(all_blocks: list[Block]) -> list[Section]:
    """Blocks grouped by heading; text before the first heading has the empty path."""
    out: list[Section] = []
    stack: list[tuple[int, str]] = []
    current = Section((), [])
    for block in all_blocks:
        if block.level:
            if current.blocks:
                out.append(current)
            while stack and stack[-1][0] >= block.level:
                stack.pop()
            stack.append((block.level, block.title))
            current = Section(tuple(title for _, title in stack), [block])
        else:
            current.blocks.append(block)
    if current.blocks:
        out.append(current)
    return out
