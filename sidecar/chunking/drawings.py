"""What of a drawing note is read: the parts of its body to chunk.

A drawing plugin keeps each drawing as a Markdown note (Excalidraw: `Name.excalidraw.md`): a
banner asking the reader to switch to the drawing view, then the drawing's data under headings
of its own (`# Excalidraw Data`, `## Text Elements`, `## Element Links`, `## Embedded Files`,
the drawing itself in a `%%` comment). Indexed as Markdown, every drawing was mostly that banner
and those headings, so all drawings looked alike to search, related notes and contradictions.

A note is a drawing when its frontmatter has a format's key (`schema/drawings.json`), as the
plugin decides (`sidecar/vault/drawings.py`). What a reader sees of it is kept: the text
elements, and any notes written above the data (the "back of the card"). Each run of kept lines
is chunked on its own, so a chunk never spans a left-out line and cites exactly the file lines it
holds; its breadcrumb is the drawing's name, not the plugin's headings. An ordinary note is one
part, the note itself.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sidecar.chunking.markdown import COMMENT, heading
from sidecar.vault.drawings import DrawingFormat, drawing_format, note_title
from sidecar.vault.note import Note


@dataclass(frozen=True)
class Part:
    """A run of body lines chunked on its own (`note.body`, from file line `note.body_line`),
    and the title its breadcrumb starts with when it has no H1."""

    note: Note
    title: str


def _section(line: str, fmt: DrawingFormat) -> str | None:
    """The casefolded name of one of the format's own headings on `line`, else None."""
    found = heading(line)
    if found is None or found[0] > fmt.heading_levels:
        return None
    name = found[1].casefold()
    return name if name in fmt.headings else None


def _kept(lines: list[str], fmt: DrawingFormat) -> list[bool]:
    """Which body lines a reader sees: the notes above the data (banner left out) and the text
    elements (a placeholder left out); not the data's headings, id lists or drawing."""
    start = next((i for i, line in enumerate(lines) if _section(line, fmt)), len(lines))
    while start > 0 and lines[start - 1].strip() in ("", COMMENT, "#"):
        start -= 1  # the `%%` that hides the data (and the plugin's bare `#` before it)
    kept = [i < start and not fmt.banner.search(line) for i, line in enumerate(lines)]
    text = next((i for i in range(start, len(lines))
                 if _section(lines[i], fmt) in fmt.text_headings), len(lines))
    for i in range(text + 1, len(lines)):
        if _section(lines[i], fmt) or lines[i].strip() == COMMENT:
            break
        kept[i] = lines[i].strip() not in fmt.placeholders
    return kept


def body_parts(note: Note) -> list[Part]:
    """What to chunk of a note: the note itself, or a drawing's runs of kept lines (runs with
    nothing but blank lines left out)."""
    fmt = drawing_format(note)
    if fmt is None:
        return [Part(note, note.title)]
    raw = note.body.split("\n")
    kept = _kept([line.removesuffix("\r") for line in raw], fmt)
    title = note_title(note)
    parts: list[Part] = []
    start = 0
    for i in range(len(raw) + 1):
        if i < len(raw) and kept[i]:
            continue
        if any(raw[j].strip() for j in range(start, i)):
            part = replace(note, body="\n".join(raw[start:i]), body_line=note.body_line + start)
            parts.append(Part(part, title))
        start = i + 1
    return parts
