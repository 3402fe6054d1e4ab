"""Which files of a vault are documents, of what format, and what one may cost
(`schema/documents.json`)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from sidecar.schema import load_json
from sidecar.vault.scan import name_problem

# What a link's target cannot hold as it is: `#` and `^` start a heading or block, `|` the shown
# text, `[` `]` end a wikilink, a line break ends the line (and Obsidian's `openLinkText` splits
# a link at its first `#`).
_LINK_UNSAFE = re.compile(r"[#^\[\]|\r\n]")
_SHOWN_UNSAFE = re.compile(r"[\[\]\r\n]")


@dataclass(frozen=True)
class DocumentLimits:
    max_bytes: int
    max_pages: int
    max_text_bytes: int
    max_chunks: int
    seconds: float
    memory_mb: int


@dataclass(frozen=True)
class Formats:
    by_suffix: dict[str, str]
    paged: frozenset[str]
    needs_converter: frozenset[str]
    converter_module: str
    converter_extra: str
    limits: DocumentLimits
    note_suffix: str


@cache
def formats() -> Formats:
    data = load_json("documents.json")
    worker = data["worker"]
    return Formats(
        by_suffix={str(k).lower(): str(v) for k, v in data["formats"].items()},
        paged=frozenset(data["paged"]),
        needs_converter=frozenset(data["needs_converter"]),
        converter_module=str(data["converter"]["module"]),
        converter_extra=str(data["converter"]["extra"]),
        limits=DocumentLimits(
            max_bytes=int(data["max_bytes"]), max_pages=int(data["max_pages"]),
            max_text_bytes=int(data["max_text_bytes"]), max_chunks=int(data["max_chunks"]),
            seconds=float(worker["seconds"]), memory_mb=int(worker["memory_mb"]),
        ),
        note_suffix=str(data["ingest"]["note_suffix"]),
    )


def document_format(rel: str) -> str | None:
    """The format of a vault path that is a document (`pdf`, `docx`…), else None: not a known
    ending, a dot-file, under a dot-folder, or a name Ora cannot use (not UTF-8, a backslash:
    `name_problem`, reported by `unusable_names(vault, also=named_as_document)`)."""
    parts = PurePosixPath(rel).parts
    if not parts or any(part.startswith(".") for part in parts) or name_problem(rel):
        return None
    return formats().by_suffix.get(PurePosixPath(rel).suffix.lower())


def named_as_document(name: str) -> bool:
    """Whether a file name ends as a document's does, whatever else the name holds."""
    return PurePosixPath(name).suffix.lower() in formats().by_suffix


def is_document(rel: str) -> bool:
    return document_format(rel) is not None


def is_paged(fmt: str) -> bool:
    """Whether a format has pages a link can open (`file.pdf#page=N`)."""
    return fmt in formats().paged


def iter_document_paths(vault: str | Path) -> Iterator[str]:
    """Every document of the vault as a vault-relative `/` path, sorted; links not followed."""
    root = Path(vault)
    found = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        base = Path(folder)
        for name in files:
            full = base / name
            rel = full.relative_to(root).as_posix()
            if is_document(rel) and not full.is_symlink():
                found.append(rel)
    yield from sorted(found)


def _at_page(path: str, page: int | None) -> str:
    return path if page is None else f"{path}#page={page}"


def page_link(path: str, page: int | None) -> str:
    """What Obsidian opens at a page: `path#page=N` (the path itself when there is no page).
    A path holding a character a link's target cannot (`Invoice #12 [draft].pdf`) is
    URL-encoded, as Obsidian reads a Markdown link's target: `Invoice%20%2312%20%5Bdraft%5D.pdf`
    (its `#page=N` stays the one `#`)."""
    return _at_page(quote(path) if _LINK_UNSAFE.search(path) else path, page)


def document_link(path: str, page: int | None, shown: str | None = None) -> str:
    """A link that opens the document at `path` at the page, showing `shown` (default: its
    name and page): a wikilink, or where the path holds a character a wikilink cannot, a
    Markdown link to its URL-encoded path (`page_link`)."""
    if not _LINK_UNSAFE.search(path):
        return f"[[{page_link(path, page)}{'' if shown is None else f'|{shown}'}]]"
    if shown is None:
        shown = PurePosixPath(path).name + ("" if page is None else f", page {page}")
    text = _SHOWN_UNSAFE.sub("", shown)  # a bracket would end the shown text, a break the line
    return f"[{text}]({page_link(path, page)})"


def cited_where(c: Mapping[str, Any]) -> str:
    """Where a result or citation is, as one token: `path:3-9`, or `path#page=7` for a
    document's page."""
    if c.get("page") is not None or c.get("line_start") is None:
        return _at_page(str(c["path"]), c.get("page"))
    return f"{c['path']}:{c['line_start']}-{c['line_end']}"


def cited_span(c: Mapping[str, Any]) -> str:
    """`line 3`, `lines 3-9`, or `page 7` (a document's page), for prose."""
    if c.get("page") is not None:
        return f"page {c['page']}"
    if c.get("line_start") is None:
        return "the whole document"
    if c["line_start"] == c["line_end"]:
        return f"line {c['line_start']}"
    return f"lines {c['line_start']}-{c['line_end']}"


def unreadable_documents(errors: list[dict[str, str]],
                         private: Callable[[str], bool]) -> list[dict[str, str]]:
    """The documents among the index's `errors` that are not indexed (for the plugin's status
    details), less those `private` says are private: their names are their own."""
    return [e for e in errors if is_document(e["path"]) and not private(e["path"])
            and e["message"].startswith("not indexed")]
