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
taken for prose, which shows the same), and code spans within a block of inline text (a run of
backticks to the next run of as many; a backslash escapes a backtick that would open one, and an
autolink `<https://…>` is read before any backtick in it), found in one pass over the block,
each run of backticks looked at once: no pattern that backtracks.

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

from sidecar.schema import load_json
from sidecar.vault.marks import marks

# A fence opener anywhere (in a quote, a callout, a list item): its marker and first word.
_LEAD = r"(?:[ \t>]|[-+*][ \t]|\d{1,9}[.)][ \t])*"
_FENCE = re.compile(rf"^(?P<lead>{_LEAD}(?:`{{3,}}|~{{3,}})[ \t]*)(?P<word>[^\s`]+)", re.M)
# How many times the blocks are read before all the text is taken for prose (`_outside_code`).
_READS = 4
# What may hold a backtick that opens no code span: an escape, or an autolink (URL or e-mail
# address, CommonMark's forms); else a run of backticks, which may open one.
_OPENERS = re.compile(
    r"\\[!-/:-@\[-`{-~]"
    r"|<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\x00-\x20<>]*>"
    r"|<[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*>"
    r"|`+")
_TICKS = re.compile(r"`+")
# What Obsidian draws by fetching or showing: an image or an embed, and an HTML tag (a name
# then a space, `/` or `>`; not an autolink `<https://…>` nor a link's `](<a file.md>)`).
_DRAWN = re.compile(r"(!)(?=\[)|(?<!\]\()<(?=/?[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$)|[!?])")
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


@cache
def _spec() -> _Inert:
    formats = load_json("plugin_formats.json")
    prefixes = sorted(formats["inline_query_prefixes"], key=len, reverse=True)
    alternatives = "|".join(re.escape(p) for p in prefixes)
    statuses = "|".join(re.escape(t) for t in load_json("tags.json")["filters"])
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
    )


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
        "#" + spec.mark, _DRAWN.sub(lambda m: m.group() + spec.mark, prose)))


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
    # text (a block's inline text has its quote and list markers taken out).
    return MarkdownIt("commonmark").disable(["inline", "text_join"])


def _blocks(text: str) -> tuple[tuple[int, int, bool], ...]:
    """(first line, end line, is code) of each fenced block, at any depth, and of each block of
    inline text (a paragraph, a heading), in order: CommonMark's leaf blocks, which never share
    a line. An indented code block is left out, so read as prose: it shows the same."""
    return tuple(
        (token.map[0], token.map[1], token.type == "fence")
        for token in _block_parser().parse(text)
        if token.map is not None and token.type in ("fence", "inline"))


def _outside_blocks(
        text: str, blocks: tuple[tuple[int, int, bool], ...], change: Callable[[str], str],
) -> tuple[str, bool]:
    """`text` with `change` applied to all but the fenced `blocks` and the code spans of its
    blocks of inline text, and whether `change` left every line in no block as it was (a blank
    line, an HTML block, an indented code block, a reference definition: it holds no code
    span)."""
    lines = text.split("\n")
    out: list[str] = []
    at, settled = 0, True

    def between(end: int) -> None:
        nonlocal settled
        if at < end:
            kept = "\n".join(lines[at:end])
            out.append(change(kept))
            settled = settled and out[-1] == kept

    for start, end, code in blocks:
        between(start)
        block = "\n".join(lines[start:end])
        out.append(block if code else _outside_spans(block, change))
        at = end
    between(len(lines))
    return "\n".join(out), settled


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
    dropped from its front."""
    runs = [m.span() for m in _TICKS.finditer(text)]
    run_at = {end: n for n, (_, end) in enumerate(runs)}  # an opener ends where its run does
    later: dict[int, deque[int]] = {}
    for n, (start, end) in enumerate(runs):
        later.setdefault(end - start, deque()).append(n)
    at = 0
    while (token := _OPENERS.search(text, at)) is not None:
        at = token.end()
        if token[0][0] != "`":  # an escape or an autolink: no span opens in it
            continue
        n = run_at[at]
        queue = later.get(at - token.start(), deque())
        while queue and queue[0] <= n:
            queue.popleft()
        if queue:
            at = runs[queue[0]][1]
            yield token.start(), at
