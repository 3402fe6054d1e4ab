"""What of the web tier an answer's chat note may hold: its web sources by URL, never their text.

'The Vault': "Nothing about external retrieval enters the vault unless the user manually saves
it as `type: web`." An answer asked with `web` was written from the vault's passages and the web
results (`[W1]`, `[W2]`, … in the prompt); its chat note is a vault note, searched like any
other. So the note records the answer with every run of words it repeats verbatim from a web
result's text left out (`[W2: quoted web text left out]`), and cites each web result the answer
refers to or quoted as `- [W2] [Title](<https://…>)` under its sources, its title inert like
the answer (`vault/inert.py`: a title holding `#private` does not make the chat note private, one
holding `![[Private/Diary]]` embeds nothing). The answer document returned to the asker is
unchanged: only what enters the vault is cut.

A run is `web_quote_words` words (`schema/memory.json` `answers`), compared case-insensitively
word by word; a result's whole text counts as a run when it is shorter, down to
`web_quote_min_words`. In a result mostly in a script written without spaces (Chinese, Japanese,
Thai) a character is a word, and a run twice as many of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sidecar.language.languages import unspaced_share, word_spans
from sidecar.schema import load_json
from sidecar.vault.inert import inert
from sidecar.web.urls import link_safe

_WEB_REF = re.compile(r"\[W(\d+)\]")
# A web marker with the blanks around it, so a removed one leaves no double or dangling space.
_SPACED_WEB_REF = re.compile(r"(?P<lead>[ \t]*)\[W(?P<n>\d+)\](?P<trail>[ \t]*)")
_TITLE_CHARS = 120


def _scale(text: str) -> int:
    """Words a run counts in `text`'s script: a character of Chinese, Japanese or Thai is a word
    here, and about two make a word of a spaced language."""
    return 2 if unspaced_share(text) > 0.5 else 1


def _runs(text: str, size: int) -> set[tuple[str, ...]]:
    words = [m.group().casefold() for m in word_spans(text)]
    return {tuple(words[i:i + size]) for i in range(len(words) - size + 1)}


def without_web_text(answer: str, web: Sequence[dict[str, Any]]) -> tuple[str, set[int]]:
    """`answer` with every run of words it repeats from a web result's text replaced by a
    pointer to that result, and the numbers (from 1) of the results it quoted."""
    spec = load_json("memory.json")["answers"]
    run, least = int(spec["web_quote_words"]), int(spec["web_quote_min_words"])
    words = word_spans(answer)
    keys = [m.group().casefold() for m in words]
    owner: list[int | None] = [None] * len(words)
    for n, result in enumerate(web, start=1):
        text = result.get("text", "")
        scale = _scale(text)
        size = min(run * scale, len(word_spans(text)))
        if size < least * scale:
            continue
        runs = _runs(result["text"], size)
        for i in range(len(keys) - size + 1):
            if tuple(keys[i:i + size]) in runs:
                for j in range(i, i + size):
                    owner[j] = owner[j] or n
    out, quoted, at, i = [], set[int](), 0, 0
    while i < len(words):
        source = owner[i]
        if source is None:
            i += 1
            continue
        end = i
        while end + 1 < len(words) and owner[end + 1] == source:
            end += 1
        out += [answer[at:words[i].start()], f"[W{source}: quoted web text left out]"]
        at, i = words[end].end(), end + 1
        quoted.add(source)
    out.append(answer[at:])
    return "".join(out), quoted


def given_web_refs(answer: str, count: int) -> str:
    """`answer` without each `[Wn]` marker naming no web result 1..count: the model was given
    no such result. One is taken out as `prompt.given_refs` takes out a passage number: with the
    blank before it (or, at a line's start, after it)."""

    def kept(m: re.Match[str]) -> str:
        if 1 <= int(m["n"]) <= count:
            return m.group()
        at_line_start = m.start() == 0 or answer[m.start() - 1] == "\n"
        return "" if at_line_start else m["trail"]

    return _SPACED_WEB_REF.sub(kept, answer)


def web_refs(answer: str, count: int) -> set[int]:
    """The web results 1..count the answer cites as `[Wn]`."""
    return {n for n in map(int, _WEB_REF.findall(answer)) if 1 <= n <= count}


def web_source_line(n: int, result: dict[str, Any]) -> str:
    """`- [Wn] [Title](<url>)`: the title on one line, short, inert (no tag of it is read),
    without brackets; the URL with nothing that could end the link."""
    title = re.sub(r"[\[\]\\]", "", " ".join(str(result.get("title", "")).split()))
    title = title[:_TITLE_CHARS] or result.get("domain", "") or "web page"
    return inert(f"- [W{n}] [{title}](<{link_safe(result['url'])}>)")
