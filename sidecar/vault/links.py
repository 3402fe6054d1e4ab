"""Wikilinks: `[[Target#heading|alias]]`, resolved to vault paths the way Obsidian does.

A target is a file name without `.md` (matched case-insensitively anywhere in the vault) or a
vault path (`Folder/Note`, with or without `.md`); failing both, one of a note's `aliases`. When
several notes share a name Obsidian picks one; we pick the shortest path, then the first in sort
order, so the choice is stable. A file name always wins over another note's alias.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath

WIKILINK = re.compile(r"^\s*!?\[\[([^\[\]]*)\]\]\s*$")


def parse_wikilink(value: str) -> str | None:
    """The target of `[[Target#heading|alias]]` (here `Target`); None if not a wikilink."""
    match = WIKILINK.match(value)
    if match is None:
        return None
    target = re.split(r"[#|^]", match.group(1), maxsplit=1)[0].strip()
    return target or None


def link_target(value: str) -> str | None:
    """The target named by a wikilink or by a bare note name (as `nexus` allows)."""
    if "[[" in value or "]]" in value:
        return parse_wikilink(value)
    target = value.strip()
    return target or None


def _strip_md(name: str) -> str:
    return name[:-3] if name.lower().endswith(".md") else name


class NameIndex:
    """Resolves link targets against a fixed set of note paths and their aliases."""

    def __init__(
        self, paths: Iterable[str], aliases: Mapping[str, Iterable[str]] | None = None,
        files: Iterable[str] = (),
    ) -> None:
        """`files` are other files a link may name by their full name (`paper.pdf`), as in
        Obsidian; they resolve but are not among `paths` (the notes)."""
        self.paths: tuple[str, ...] = tuple(sorted(paths))
        self._by_path: dict[str, str] = {}
        self._by_name: dict[str, str] = {}
        self._by_alias: dict[str, str] = {}
        for path in sorted({*self.paths, *files}, key=lambda p: (p.count("/"), len(p), p)):
            self._by_path.setdefault(_strip_md(path).casefold(), path)
            self._by_name.setdefault(_strip_md(PurePosixPath(path).name).casefold(), path)
            for alias in (aliases or {}).get(path, ()):
                self._by_alias.setdefault(alias.strip().casefold(), path)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and _strip_md(path).casefold() in self._by_path

    def __len__(self) -> int:
        return len(self._by_path)

    def resolve(self, target: str) -> str | None:
        """The vault path a link target points at, or None when no note matches."""
        key = _strip_md(target.strip().lstrip("/")).casefold()
        if not key:
            return None
        if "/" in key:
            return self._by_path.get(key) or self._by_alias.get(key)
        return self._by_name.get(key) or self._by_alias.get(key)

    def resolve_link(self, value: str) -> str | None:
        """Resolve a wikilink or bare name straight to a vault path."""
        target = link_target(value)
        return self.resolve(target) if target else None
