"""Drawing notes: which notes a drawing plugin keeps (Excalidraw: `Name.excalidraw.md`), and
their titles.

A note is a drawing when its frontmatter has a format's key (`schema/drawings.json`), as the
plugin decides. Lint and `ora adopt` leave drawings to their plugin; what of one is chunked is
`sidecar/chunking/drawings.py`'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import PurePosixPath
from typing import Any

from sidecar.schema import load_json
from sidecar.vault.note import Note


@dataclass(frozen=True)
class DrawingFormat:
    """One plugin's layout (`schema/drawings.json`); heading names are casefolded."""

    key: str
    name_suffix: str
    banner: re.Pattern[str]
    data_headings: frozenset[str]
    text_headings: frozenset[str]
    other_headings: frozenset[str]
    heading_levels: int
    placeholders: frozenset[str]

    @property
    def headings(self) -> frozenset[str]:
        return self.data_headings | self.text_headings | self.other_headings


def _names(values: list[str]) -> frozenset[str]:
    return frozenset(v.casefold() for v in values)


def _format(data: dict[str, Any]) -> DrawingFormat:
    return DrawingFormat(
        key=str(data["frontmatter_key"]), name_suffix=str(data["name_suffix"]),
        banner=re.compile(str(data["banner"])), data_headings=_names(data["data_headings"]),
        text_headings=_names(data["text_headings"]),
        other_headings=_names(data["other_headings"]),
        heading_levels=int(data["heading_levels"]),
        placeholders=frozenset(data["placeholders"]),
    )


@cache
def drawing_formats() -> tuple[DrawingFormat, ...]:
    """The drawing formats of `schema/drawings.json`."""
    return tuple(_format(f) for f in load_json("drawings.json")["formats"].values())


def drawing_format(note: Note) -> DrawingFormat | None:
    """The format of a drawing note (its frontmatter names one), else None."""
    return next((f for f in drawing_formats() if f.key in note.frontmatter), None)


def note_title(note: Note) -> str:
    """A note's title: its file name; for a drawing, without the format's suffix
    (`Kitchen.excalidraw.md` is the drawing "Kitchen")."""
    found = drawing_format(note)
    name = PurePosixPath(note.path).name.removesuffix(".md")
    if found is not None and name.casefold().endswith(found.name_suffix.casefold()):
        return name[: len(name) - len(found.name_suffix)] or note.title
    return note.title
