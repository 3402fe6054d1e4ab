"""Claims: the sentences of a note's body, in plain text, with the file lines they came from.

Contradictions are judged claim against claim, so a note is first cut into sentences. Markdown
that is not prose (headings, a callout's `> [!type]± Title` line — a quote's first line, in a
list item too — code, tables, rules, comments) is skipped; links and emphasis are reduced to
their text. Dataview's inline fields (`Mood:: 3` on its own line or as a list item,
`[due:: 2024-05-01]` inside a sentence;
`schema/plugin_formats.json`) are a note's properties written inline, not claims: two daily
notes' `Mood::` lines are two days, not a disagreement.
Nor is a task (`- [ ] Run 5 km 📅 2024-05-02`, a Kanban card): it is a plan for its day, and a
plan that changes from one day to the next contradicts nothing.
Lines are 1-based lines of the file, so the plugin can jump to them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from sidecar.chunking import markdown
from sidecar.language.languages import word_count
from sidecar.schema import load_json
from sidecar.vault import links

_FENCE = re.compile(r"^\s*(```|~~~)")
_SKIP_LINE = re.compile(r"^\s*(#{1,6}\s|\||-{3,}\s*$|\*{3,}\s*$|_{3,}\s*$|<!--|%%|\[\^[^\]]+\]:)")
_ITEM = re.compile(r"^\s*(?:>\s*)*(?:[-*+]\s+(?:\[.\]\s+)?|\d+[.)]\s+)")
_QUOTE = re.compile(r"^\s*(?:>\s*)+")
_MARKER = re.compile(r"^\[![^\]\s]+\][+-]?\s*")
_TASK = re.compile(r"^\s*(?:>\s*)*(?:[-*+]|\d+[.)])\s+\[.\](?:\s|$)")
_FOOTNOTE = re.compile(r"\[\^[^\]]+\]")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|~~|==|`)(?=\S)(.+?)(?<=\S)\1")
_SPACES = re.compile(r"\s+")
# A sentence ends at . ! ? (and closing quotes or brackets) before a space and a capital of any
# script or a digit, except after the abbreviations below; at Chinese and Japanese 。！？,
# written without a space after them, unless a closing quote follows (「本当？」と聞いた goes on).
_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?(?P<next>\w))"
                       r"|(?<=[。！？])(?![」』）”’\"'])\s*(?=\S)")
_ABBREV = re.compile(r"\b(?:e\.g|i\.e|et al|vs|Dr|Mr|Mrs|Ms|Prof|Fig|No|approx|ca|cf|St)\.$")
_WORD = re.compile(r"[^\W_]+")


@cache
def _fields() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A line that is one inline field (its key as Dataview reads one: words, spaces, `/`, `-`,
    after any formatting), and a field wrapped in brackets inside text (group `shown`: the value,
    for the wrapper the reading view shows as its value alone)."""
    spec = load_json("plugin_formats.json")["inline_fields"]
    sep = re.escape(spec["separator"])
    line = re.compile(rf"^\W*\w[\w\s/-]*?[*_~`]*{sep}")
    wrapped = []
    for pair, shows in spec["wrappers"].items():
        o, c = re.escape(pair[0]), re.escape(pair[1])
        value = rf"(?P<shown>[^{o}{c}]*)" if shows == "value" else rf"[^{o}{c}]*"
        wrapped.append(rf"{o}[^{o}{c}]+?{sep}\s*{value}{c}")
    return line, re.compile("|".join(wrapped))


@dataclass(frozen=True)
class Claim:
    """One sentence of a note: its plain text and the file lines it spans (1-based)."""

    text: str
    line_start: int
    line_end: int


def plain(text: str) -> str:
    """Markdown inline syntax reduced to its readable text."""
    text = links.shown(text)  # each link as Obsidian shows it
    text = _FOOTNOTE.sub("", text)
    for _ in range(2):  # nested emphasis such as ***bold italic***
        text = _EMPHASIS.sub(r"\2", text)
    return _SPACES.sub(" ", text).strip()


def _depth(line: str) -> int:
    """How many quotes a line is in, counted after a list item's marker (`- > text` is 1)."""
    quote = _QUOTE.match(_ITEM.sub("", line, count=1) if _ITEM.match(line) else line)
    return quote.group().count(">") if quote else 0


def _callout_header(line: str, text: str, above: int) -> bool:
    """Whether a quote line opens a callout (`> [!warning]- Title`, in a quote at any depth,
    in a list item too): its type and title head the box as a heading would, they are not a
    claim. Only a quote's first line opens one (the line `above` is in fewer quotes): a later
    `> [!note] …` is plain text in Obsidian. `text` is the line without its quote markers; it
    is read as the chunker reads a callout."""
    if _depth(line) <= above:
        return False
    return any(block.label for block in markdown.blocks([f"> {text}"]))


def _paragraphs(body: str, first_line: int) -> list[list[tuple[int, str]]]:
    """Prose paragraphs as lists of (file line, text); a list item starts a new paragraph."""
    paragraphs: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    in_fence = False
    field_line, field = _fields()
    depth = 0  # the quote depth of the line above: a callout opens only a quote's first line
    for offset, line in enumerate(body.splitlines()):
        number = first_line + offset
        if _FENCE.match(line):
            in_fence = not in_fence
            line = ""
        above, depth = depth, _depth(line) if not in_fence else 0
        if in_fence or not line.strip() or _SKIP_LINE.match(line):
            if current:
                paragraphs.append(current)
            current = []
            continue
        text = _QUOTE.sub("", _ITEM.sub("", line)).strip()
        if _callout_header(line, text, above):  # a heading of sorts: it ends the paragraph above
            if current:
                paragraphs.append(current)
            current = []
            continue
        text = _MARKER.sub("", text)  # a callout's marker where it opens none: not words
        no_claim = field_line.match(text) is not None or _TASK.match(line) is not None
        if (_ITEM.match(line) or no_claim) and current:
            paragraphs.append(current)
            current = []
        if not no_claim:
            current.append((number, field.sub(lambda m: m.group("shown") or "", text)))
    if current:
        paragraphs.append(current)
    return paragraphs


def _sentences(paragraph: list[tuple[int, str]]) -> list[Claim]:
    """Split one paragraph into sentences, mapping each back to its first and last line."""
    text, starts = "", []
    for number, line in paragraph:
        starts.append((len(text), number))
        text += line + " "
    claims: list[Claim] = []
    begin = 0
    cuts = [m for m in _BOUNDARY.finditer(text)
            if (m["next"] is None or m["next"].isupper() or m["next"].isdigit())
            and not _ABBREV.search(text[: m.start()])]
    for end in [m.start() for m in cuts] + [len(text)]:
        raw = text[begin:end]
        if raw.strip():
            first = _line_at(starts, begin + len(raw) - len(raw.lstrip()))
            last = _line_at(starts, begin + len(raw.rstrip()) - 1)
            claims.append(Claim(plain(raw), first, last))
        begin = end
    return claims


def _line_at(starts: list[tuple[int, int]], position: int) -> int:
    line = starts[0][1]
    for offset, number in starts:
        if offset > position:
            break
        line = number
    return line


def paragraphs(body: str, first_line: int = 1) -> list[tuple[int, int, str]]:
    """The prose paragraphs of a note body as (first file line, last file line, text): a
    paragraph's lines are consecutive lines of the file, so its text splits back onto them."""
    return [(p[0][0], p[-1][0], "\n".join(text for _, text in p))
            for p in _paragraphs(body, first_line)]


def split_claims(body: str, first_line: int = 1, min_words: int = 1) -> list[Claim]:
    """The claims of a note body whose first line is file line `first_line`."""
    claims = [c for p in _paragraphs(body, first_line) for c in _sentences(p)]
    return [c for c in claims if word_count(_WORD.findall(c.text)) >= min_words]
