"""Text from outside made inert before it is written into a note.

A saved web page, a model's answer or a question written into a chat note is text Ora did not
author. Obsidian plugins run some text of a note: Templater replaces `<% … %>` commands (on a new
file too, with its "trigger on new file creation" option), Dataview runs ```` ```dataviewjs ````
blocks and `` `$= …` `` inline queries when the note is shown, and the other query languages of
`schema/plugin_formats.json` run queries. Such text is written so that it reads the same and
nothing runs it (`plugin_formats.json` `inert`):

- an invisible word joiner goes between a Templater command's `<` and `%`, and before an inline
  query's prefix in a code span, after whatever JavaScript's `trim()` removes (Dataview trims the
  span's text, then looks for the prefix: a no-break space or a line break before `$=` is
  trimmed too): the reading view shows the same characters, the plugins no longer see their
  syntax;
- a code fence in a query language is renamed to a plain-text fence, its language kept as the
  info string's second word (```` ```text dataviewjs ````): the code shows as code;
- outside code, the word joiner also goes after an image's or an embed's `!` and after the `<`
  of an HTML tag: Obsidian draws an image (`![](https://…)`, `<img src=…>`) by fetching it as
  soon as the note is shown, and a model can put what it read (private notes, in private mode)
  into the address; an embed (`![[Private/Diary]]`) would show another note of the vault inside
  this one. The image and the embed show as links, the tag as its text;
- outside code, the word joiner goes after the `#` of a tag (`#recipe` reads the same and is no
  tag), and after the `#` of a tag that changes what retrieval does with a note (`#private`,
  `#archived`, `#incubating`: `tags.json` `filters`) wherever it is, code included, as Ora reads
  `#private` there too: outside text never changes a note's tags, nor so its status.

Code is otherwise left as it is: it is shown, not drawn. Code is read as CommonMark reads it:
fenced blocks as its reference parser (markdown-it) finds them, at any depth (a fence in a quote
or a list item ends with it; an indented ```` ``` ```` opens none; an indented code block is
taken for prose, which shows the same; a table, GFM's as Obsidian reads it, is read a row's
cells apart), and code spans within a block of inline text (a run of backticks to the next run
of as many; a backslash escapes a backtick that would open one, and an autolink `<https://…>`
or a link's destination and title, `[a](x "`")`, is read before any backtick in it), found in
one pass over the block, each run of backticks looked at once: no pattern that backtracks.

A text written among others (a chat note's turns, each after its heading) must also leave no
block open: a fence left open takes in what follows, the next heading and the next text, whose
own fence then closes it, and that text's fenced image is drawn. `closed` ends such a block.

Outside text may also hold lone UTF-16 surrogates (a JSON `"\\ud83d"` escape), which no UTF-8
file can hold: `encodable` pairs what it can and replaces the rest with U+FFFD. Its line ends are
written as `\\n`: Obsidian ends a line at a lone `\\r` too, where a fence would not be seen.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.rules_block.html_block import HTML_SEQUENCES
from markdown_it.token import Token

from sidecar.schema import load_json
from sidecar.vault.marks import marks
from sidecar.vault.prose import COMMENT_END, blank_comments

# A fence opener anywhere (in a quote, a callout, a list item): its marker and first word.
_LEAD = r"(?:[ \t>]|[-+*][ \t]|\d{1,9}[.)][ \t])*"
_FENCE = re.compile(rf"^(?P<lead>{_LEAD}(?:`{{3,}}|~{{3,}})[ \t]*)(?P<word>[^\s`]+)", re.M)
# How many times the blocks are read before all the text is taken for prose (`_outside_code`).
_READS = 4
# What may hold a backtick that opens no code span: an escape, an autolink (URL or e-mail
# address, CommonMark's forms), or a link's destination and title after `](`; else a run of
# backticks, which may open one.
_OPENERS = re.compile(
    r"\\[!-/:-@\[-`{-~]"
    r"|<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\x00-\x20<>]*>"
    r"|<[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*>"
    r"|\]\("
    r"|`+")
# A table row's cell separators: each `|` not right after a backslash (markdown-it's rule).
_CELL = re.compile(r"(?<!\\)\|")
# How deep a link destination's parentheses may nest (markdown-it's limit).
_NESTING = 32
_TICKS = re.compile(r"`+")
# What Obsidian draws by fetching or showing: an image or an embed, and an HTML tag (a name
# then a space, `/` or `>`; not an autolink `<https://…>` nor a link's `](<a file.md>)`, but
# there too the tag of an element that fetches: `plugin_formats.json` `link_tags`).
_DRAWN = r"(!)(?=\[)|(?<!\]\()<(?=/?[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$)|[!?])"
# What JavaScript's `trim()` removes: WhiteSpace and LineTerminator (ECMA-262,
# String.prototype.trim): tab, VT, FF, space, NBSP, U+1680, U+2000-U+200A, U+202F, U+205F,
# U+3000 (the Zs spaces), U+FEFF, LF, CR, U+2028, U+2029.
_JS_TRIMMED = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


@dataclass(frozen=True)
class _Inert:
    mark: str
    fence_language: str
    languages: frozenset[str]
    template_open: str
    inline_query: re.Pattern[str]
    tag: re.Pattern[str]
    status_tag: re.Pattern[str]
    drawn: re.Pattern[str]


@cache
def _spec() -> _Inert:
    formats = load_json("plugin_formats.json")
    prefixes = sorted(formats["inline_query_prefixes"], key=len, reverse=True)
    alternatives = "|".join(re.escape(p) for p in prefixes)
    statuses = "|".join(re.escape(t) for t in load_json("tags.json")["filters"])
    link_tags = [str(name) for name in formats["inert"]["link_tags"]["names"]]
    return _Inert(
        mark=str(formats["inert"]["mark"]),
        fence_language=str(formats["inert"]["fence_language"]),
        languages=frozenset(str(lang).lower() for lang in formats["query_languages"]),
        template_open=str(formats["template_commands"]["open"]),
        # A code span opening (after what JavaScript's trim() removes) with an inline query's
        # prefix; possessive, from a run's first backtick: a long run is read once.
        inline_query=re.compile(rf"(?<!`)(`++[{_JS_TRIMMED}]*+)(?={alternatives})"),
        # A tag as Ora and Obsidian read one (vault/tags.py): `#` after a line's start, a space
        # or `_` (after a quote's `>` and a table's `|` too, where a block's text starts), then
        # a tag's characters, not digits alone (`#1` is no tag).
        tag=re.compile(rf"(?:(?<![^\s>|])|(?<=_))#(?=[\d/]*(?:[^\W\d]|[{marks()}-]))"),
        status_tag=re.compile(rf"#(?=(?:{statuses}))", re.IGNORECASE),
        # ... and right after `](` too, the tag of an element that fetches (`link_tags`).
        drawn=re.compile(rf"{_DRAWN}|(?<=\]\()<(?=/?(?:{_any_case(link_tags)})(?:[\s/>]|$))"),
    )


def _any_case(names: list[str]) -> str:
    """An alternation of `names` in any case, spelled out (JavaScript's twin has no inline
    case flag): `img` is `[iI][mM][gG]`."""
    return "|".join("".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c)
                            for c in name) for name in names)


def _fence(match: re.Match[str], spec: _Inert) -> str:
    word = match["word"]
    if word.lstrip("{.").lower() not in spec.languages:
        return match.group()
    return f"{match['lead']}{spec.fence_language} {word}"


def inert_mark() -> str:
    """The invisible character that breaks a syntax without changing what a reader sees."""
    return _spec().mark


def encodable(text: str) -> str:
    """`text` with surrogate pairs joined and lone surrogates replaced (U+FFFD): UTF-8 can
    hold it."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def inert(text: str) -> str:
    """`text` as it may be written into a note: encodable, `\\n` line ends, no Templater
    command, query block or inline query in it runs, nothing outside its code is fetched or
    embedded when it is shown, and no tag of it is read. Linear in the text's length."""
    spec = _spec()
    text = encodable(text).replace("\r\n", "\n").replace("\r", "\n")
    opener = spec.template_open
    text = text.replace(opener, opener[:1] + spec.mark + opener[1:])
    text = _FENCE.sub(lambda m: _fence(m, spec), text)
    text = spec.inline_query.sub(lambda m: m.group(1) + spec.mark, text)
    # Before the blocks are read: it may make a reference definition's label too long for one.
    text = spec.status_tag.sub("#" + spec.mark, text)
    return _outside_code(text, lambda prose: spec.tag.sub(
        "#" + spec.mark, spec.drawn.sub(lambda m: m.group() + spec.mark, prose)))


def closed(text: str) -> str:
    """`text` with a line of its own after it that ends the block it leaves open, if any, as
    CommonMark reads it (markdown-it): a fenced block (its fence's marker), an HTML block a
    blank line does not end (`<!--` …: its end marker). Then whatever follows it after a
    blank line is read as it would be alone. Only a block at the text's top level can stay
    open: a quote or a list item ends at a blank line then a line that is not indented; and
    the line ends it, as nothing follows it. Then a line that ends an Obsidian `%%` comment or
    `$$` math it leaves open outside its code (as `prose.py` reads them), which would hide
    what follows."""
    block = _open_block(text)
    text = text if block is None else f"{text}\n{_closing_line(block)}"
    opener = _open_comment(text)
    return text if opener is None else f"{text}\n{COMMENT_END[opener]}"


def _open_comment(text: str) -> str | None:
    """The opener of the comment or `$$` math `text` leaves open outside its code, read line
    by line as `prose.py` reads it, else None. Its code: fenced blocks and code spans
    (`_outside_code`), and indented code blocks, which `_outside_code` reads as prose (a `%%`
    there is shown: a `%%` line after it would open a comment)."""
    lines = text.split("\n")
    for token in _block_parser().parse(text + "\n"):
        if token.type == "code_block" and token.map is not None:
            for n in range(token.map[0], min(token.map[1], len(lines))):
                lines[n] = lines[n].replace("%", " ").replace("$", " ")  # same blocks, no marks
    pieces: list[str] = []

    def keep(prose: str) -> str:
        pieces.append(prose)
        return prose

    _outside_code("\n".join(lines), keep)
    opener: str | None = None
    for line in "\n".join(pieces).split("\n"):  # a piece of code between: a line break
        if opener is not None:
            end = COMMENT_END[opener]
            if end not in line:
                continue
            line = line.split(end, 1)[1]
        line, opener = blank_comments(line)
    return opener


# What a text is followed by, after a blank line, when seeing what it leaves open: a heading,
# which only a block left open takes in.
_PROBE = "#"
# A line that ends each kind of HTML block a blank line does not end (CommonMark's kinds 1-5,
# markdown-it's `HTML_SEQUENCES`): the first one its end pattern finds is written.
_HTML_ENDS = (">", "</script>", "-->", "?>", "]]>")


def _open_block(text: str) -> Token | None:
    """The block `text` leaves open: the one that takes in a heading after a blank line."""
    probe = text.count("\n") + 2
    for token in _block_parser().parse(f"{text}\n\n{_PROBE}"):
        if token.map is not None and token.map[0] < probe < token.map[1]:
            return token
    return None


def _closing_line(block: Token) -> str:
    """A line that ends `block`: its fence's marker, or the end of its kind of HTML block."""
    if block.type == "fence":
        return block.markup
    # its kind as CommonMark finds it: on the first line, indented up to 3 spaces
    first = re.sub(r"^ {1,3}", "", block.content.split("\n", 1)[0])
    ends = [end for start, end, _ in HTML_SEQUENCES if start.search(first)]
    return next((line for line in _HTML_ENDS for end in ends if end.search(line)), "")


def _outside_code(text: str, change: Callable[[str], str]) -> str:
    """`text` with `change` applied to all but its fenced blocks and code spans.

    The blocks are CommonMark's (markdown-it): a fence in a quote or a list item ends with it,
    an indented ```` ``` ```` opens none. A mark never begins or ends a block of inline text or
    a fence, but one in a line of neither may change the blocks: a broken HTML block's lines
    are read as Markdown again (a fence-looking line in it may then open a fence), a reference
    definition made too long is a paragraph. Then the blocks of the result are read again,
    until they are the blocks it was made by; past `_READS` reads every line is taken for
    prose, which shows the same and draws nothing."""
    blocks = _blocks(text)
    out, settled = _outside_blocks(text, blocks, change)
    if settled:
        return out
    for _ in range(_READS):
        again = _blocks(out)
        if again == blocks:
            return out
        blocks = again
        out = _outside_blocks(text, blocks, change)[0]
    return change(text)


@cache
def _block_parser() -> MarkdownIt:
    # Blocks only: the inline rules would find code spans too, but not where they are in the
    # text (a block's inline text has its quote and list markers taken out). GFM's tables, as
    # Obsidian reads them: a row's cells are read apart, so no code span runs across a `|`.
    return MarkdownIt("commonmark").enable("table").disable(["inline", "text_join"])


def _blocks(text: str) -> tuple[tuple[int, int, str], ...]:
    """(first line, end line, kind) of each fenced block ("fence"), at any depth, of each table
    ("table") and of each other block of inline text (a paragraph, a heading: "inline"), in
    order: CommonMark's leaf blocks, which never share a line. An indented code block is left
    out, so read as prose: it shows the same."""
    blocks, table_end = [], -1
    # ended by a line break, which adds no line: markdown-it-py's HTML block in a list item in
    # a quote reads past a text whose last line is a bare `>` (IndexError)
    for token in _block_parser().parse(text + "\n"):
        if token.map is None or token.map[0] < table_end:  # a table's cells: read with it
            continue
        if token.type == "table_open":
            table_end = token.map[1]
        if token.type in ("fence", "inline", "table_open"):
            blocks.append((token.map[0], token.map[1], token.type.removesuffix("_open")))
    return tuple(blocks)


def _outside_blocks(
        text: str, blocks: tuple[tuple[int, int, str], ...], change: Callable[[str], str],
) -> tuple[str, bool]:
    """`text` with `change` applied to all but the fenced `blocks` and the code spans of its
    blocks of inline text (each cell of a table's rows apart), and whether `change` left every
    line in no block as it was (a blank line, an HTML block, an indented code block, a
    reference definition: it holds no code span)."""
    lines = text.split("\n")
    out: list[str] = []
    at, settled = 0, True

    def between(end: int) -> None:
        nonlocal settled
        if at < end:
            kept = "\n".join(lines[at:end])
            out.append(change(kept))
            settled = settled and out[-1] == kept

    for start, end, kind in blocks:
        between(start)
        block = "\n".join(lines[start:end])
        if kind == "table":
            out.append("\n".join(_outside_cells(row, change) for row in lines[start:end]))
        else:
            out.append(block if kind == "fence" else _outside_spans(block, change))
        at = end
    between(len(lines))
    return "\n".join(out), settled


def _outside_cells(row: str, change: Callable[[str], str]) -> str:
    """A table's row with `change` applied outside the code spans of each of its cells."""
    return "|".join(_outside_spans(cell, change) for cell in _CELL.split(row))


def _outside_spans(prose: str, change: Callable[[str], str]) -> str:
    out, last = [], 0
    for start, end in _code_spans(prose):
        out += [change(prose[last:start]), prose[start:end]]
        last = end
    return "".join([*out, change(prose[last:])])


def _code_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each code span of one paragraph, CommonMark's way: a run of backticks
    opens one, closed by the next run of exactly as many; a run no such run follows is text.
    Each run is read once: the runs of each length wait in a queue, and those passed are
    dropped from its front.

    A link's destination and title bind before a code span can open in them (`[a](x "`")`):
    after each `](` whose text may be one (`_link_tail`), no span opens from a backtick before
    where it may end, nor past an autolink begun there and ending after: the paragraph's rest
    is read as prose (it may be a link or not; prose draws nothing either way)."""
    runs = [m.span() for m in _TICKS.finditer(text)]
    run_at = {end: n for n, (_, end) in enumerate(runs)}  # an opener ends where its run does
    later: dict[int, deque[int]] = {}
    for n, (start, end) in enumerate(runs):
        later.setdefault(end - start, deque()).append(n)
    at, tail = 0, 0  # tail: where the furthest link destination or title seen may end
    while (token := _OPENERS.search(text, at)) is not None:
        at = token.end()
        if token[0] == "](":
            if not runs or runs[-1][0] < at:  # no backtick left to open a span
                return
            if tail < len(text):  # else the rest is prose already
                tail = max(tail, _link_tail(text, at))
            continue
        if token.start() < tail and (token[0][0] == "`" or at > tail):
            return
        if token[0][0] != "`":  # an escape or an autolink: no span opens in it
            continue
        n = run_at[at]
        queue = later.get(at - token.start(), deque())
        while queue and queue[0] <= n:
            queue.popleft()
        if queue:
            at = runs[queue[0]][1]
            yield token.start(), at


def _link_tail(text: str, at: int) -> int:
    """Where an inline link's destination and title, if the text after a `](` at `at` is one,
    end (after its `)`), as markdown-it reads them; -1 if it is none. Where a line's quote
    marker or an escaped line end lies in it, the raw text cannot tell (the inline text lacks
    the marker), nor is it worth telling in parentheses nested past markdown-it's limit (each
    `](` would read them again): the text's end."""
    end = len(text)
    at = _link_space(text, at)
    if at < 0:
        return end
    if at >= end:
        return -1
    dest = _link_destination(text, at)
    if dest == end + 1:
        return end
    if dest >= 0:
        after = _link_space(text, dest)
        if after < 0:
            return end
        title = _link_title(text, after) if dest < after < end else -1
        at = _link_space(text, title) if title >= 0 else after
        if at < 0:
            return end
    return at + 1 if at < end and text[at] == ")" else -1


def _link_space(text: str, at: int) -> int:
    """Past the spaces, tabs and line ends at `at`; -1 past a line end a quote marker follows."""
    start = at
    while at < len(text) and text[at] in " \t\n":
        at += 1
    return -1 if text[at:at + 1] == ">" and "\n" in text[start:at] else at


def _link_destination(text: str, at: int) -> int:
    """The end of a link destination at `at` (`<…>`, or text with balanced parentheses), -1 if
    none is, past the text's end if it runs onto another line or nests too deep to tell."""
    end = len(text)
    if text[at] == "<":
        at += 1
        while at < end and text[at] not in "\n<":
            if text[at] == ">":
                return at + 1
            at += 2 if text[at] == "\\" and at + 1 < end else 1
        return -1
    start, level = at, 0
    while at < end and " " < text[at] != "\x7f":
        char = text[at]
        if char == "\\" and at + 1 < end:
            if text[at + 1] == " ":
                break
            if text[at + 1] == "\n":
                return end + 1
            at += 2
            continue
        if char == "(":
            level += 1
            if level > _NESTING:
                return end + 1
        elif char == ")":
            if level == 0:
                break
            level -= 1
        at += 1
    return at if at > start and level == 0 else -1


def _link_title(text: str, at: int) -> int:
    """The end of a link title at `at` (`"…"`, `'…'` or `(…)`), -1 if none is."""
    if text[at] not in "\"'(":
        return -1
    close = ")" if text[at] == "(" else text[at]
    at += 1
    while at < len(text):
        if text[at] == close:
            return at + 1
        if close == ")" and text[at] == "(":
            return -1
        at += 2 if text[at] == "\\" else 1
    return -1
