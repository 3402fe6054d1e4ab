"""Text from outside made inert before it is written into a note.

A saved web page, a model's answer or a question written into a chat note is text Ora did not
author. Obsidian plugins run some text of a note: Templater replaces `<% … %>` commands (on a new
file too, with its "trigger on new file creation" option), Dataview runs ```` ```dataviewjs ````
blocks and `` `$= …` `` inline queries when the note is shown, and the other query languages of
`schema/plugin_formats.json` run queries. Such text is written so that it reads the same and
nothing runs it (`plugin_formats.json` `inert`):

- an invisible word joiner goes between a Templater command's `<` and `%`, and before an inline
  query's prefix in a code span: the reading view shows the same characters, the plugins no
  longer see their syntax;
- a code fence in a query language is renamed to a plain-text fence, its language kept as the
  info string's second word (```` ```text dataviewjs ````): the code shows as code;
- outside code, the word joiner also goes after an image's `!` and after the `<` of an HTML tag:
  Obsidian draws an image (`![](https://…)`, `<img src=…>`) by fetching it as soon as the note is
  shown, and a model can put what it read (private notes, in private mode) into the address. The
  image shows as a link, the tag as its text. Code is left as it is: it is shown, not drawn.

Outside text may also hold lone UTF-16 surrogates (a JSON `"\\ud83d"` escape), which no UTF-8
file can hold: `encodable` pairs what it can and replaces the rest with U+FFFD.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from sidecar.schema import load_json

# A fence opener anywhere (in a quote, a callout, a list item): its marker and first word.
_LEAD = r"(?:[ \t>]|[-+*][ \t]|\d{1,9}[.)][ \t])*"
_FENCE = re.compile(rf"^(?P<lead>{_LEAD}(?:`{{3,}}|~{{3,}})[ \t]*)(?P<word>[^\s`]+)", re.M)
_FENCE_LINE = re.compile(rf"^{_LEAD}(`{{3,}}|~{{3,}})")
# A code span (its run of backticks, closed by the same run), or a lone run that opens none.
_CODE_SPAN = re.compile(r"(`+)[\s\S]*?[^`]\1(?!`)|`+")
# What Obsidian draws by fetching: an image (not an embed, `![[…]]`) and an HTML tag (a name
# then a space, `/` or `>`; not an autolink `<https://…>` nor a link's `](<a file.md>)`).
_DRAWN = re.compile(r"(!)(?=\[(?!\[))|(?<!\]\()<(?=/?[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$)|[!?])")


@dataclass(frozen=True)
class _Inert:
    mark: str
    fence_language: str
    languages: frozenset[str]
    template_open: str
    inline_query: re.Pattern[str]


@cache
def _spec() -> _Inert:
    formats = load_json("plugin_formats.json")
    prefixes = sorted(formats["inline_query_prefixes"], key=len, reverse=True)
    alternatives = "|".join(re.escape(p) for p in prefixes)
    return _Inert(
        mark=str(formats["inert"]["mark"]),
        fence_language=str(formats["inert"]["fence_language"]),
        languages=frozenset(str(lang).lower() for lang in formats["query_languages"]),
        template_open=str(formats["template_commands"]["open"]),
        # A code span opening (after spaces) with an inline query's prefix.
        inline_query=re.compile(rf"(`+[ \t]*)(?={alternatives})"),
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
    """`text` as it may be written into a note: encodable, no Templater command, query block or
    inline query in it runs, and nothing outside its code is fetched when it is shown."""
    spec = _spec()
    text = encodable(text)
    opener = spec.template_open
    text = text.replace(opener, opener[:1] + spec.mark + opener[1:])
    text = _FENCE.sub(lambda m: _fence(m, spec), text)
    text = spec.inline_query.sub(lambda m: m.group(1) + spec.mark, text)
    return _outside_code(text, lambda prose: _DRAWN.sub(lambda m: m.group() + spec.mark, prose))


def _outside_code(text: str, change: Callable[[str], str]) -> str:
    """`text` with `change` applied to all but its fenced blocks and code spans."""
    out: list[str] = []
    prose: list[str] = []
    fence: str | None = None

    def flush() -> None:
        if prose:
            out.append(_outside_spans("\n".join(prose), change))
            prose.clear()

    for line in text.split("\n"):
        marker = _FENCE_LINE.match(line)
        if fence is None and marker is None:
            prose.append(line)
            continue
        if fence is None and marker is not None:
            flush()
            fence = marker[1]
        elif marker is not None and fence is not None and marker[1][0] == fence[0] and len(
                marker[1]) >= len(fence):
            fence = None
        out.append(line)
    flush()
    return "\n".join(out)


def _outside_spans(prose: str, change: Callable[[str], str]) -> str:
    out, last = [], 0
    for span in _CODE_SPAN.finditer(prose):
        if span[1] is None:  # a lone run of backticks is text
            continue
        out += [change(prose[last:span.start()]), span.group()]
        last = span.end()
    return "".join([*out, change(prose[last:])])
