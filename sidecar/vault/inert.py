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
  info string's second word (```` ```text dataviewjs ````): the code shows as code.

Outside text may also hold lone UTF-16 surrogates (a JSON `"\\ud83d"` escape), which no UTF-8
file can hold: `encodable` pairs what it can and replaces the rest with U+FFFD.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from sidecar.schema import load_json

# A fence opener anywhere (in a quote, a callout, a list item): its marker and first word.
_FENCE = re.compile(r"^(?P<lead>(?:[ \t>]|[-+*][ \t]|\d{1,9}[.)][ \t])*(?:`{3,}|~{3,})[ \t]*)"
                    r"(?P<word>[^\s`]+)", re.M)


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
    """`text` as it may be written into a note: encodable, and no Templater command, query
    block or inline query in it runs."""
    spec = _spec()
    text = encodable(text)
    opener = spec.template_open
    text = text.replace(opener, opener[:1] + spec.mark + opener[1:])
    text = _FENCE.sub(lambda m: _fence(m, spec), text)
    return spec.inline_query.sub(lambda m: m.group(1) + spec.mark, text)
