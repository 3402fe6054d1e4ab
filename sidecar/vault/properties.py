"""Obsidian's everyday properties that Ora reads (`schema/obsidian_properties.json`): a note's
other names (`aliases`) and its searchable summary (`description`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from sidecar.errors import UnreadableNote
from sidecar.schema import load_json
from sidecar.vault.note import read_note
from sidecar.vault.tags import property_values


@cache
def _properties() -> dict[str, Any]:
    return dict(load_json("obsidian_properties.json"))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def note_aliases(frontmatter: Mapping[str, Any]) -> tuple[str, ...]:
    """A note's other names: `aliases` (or `alias`), a list or one string (commas separate)."""
    found: dict[str, str] = {}
    for prop in property_values(frontmatter, _properties()["names"]):
        for value in _strings(prop):
            parts = value.split(",") if isinstance(prop, str) else [value]
            for part in parts:
                name = part.strip()
                if name:
                    found.setdefault(name.casefold(), name)
    return tuple(found.values())


def note_description(frontmatter: Mapping[str, Any]) -> str:
    """The note's searchable summary text (`description`, `summary`), one line."""
    texts = [v.strip() for key in _properties()["searchable"]
             for v in _strings(frontmatter.get(key))]
    return " ".join(t for t in texts if t)


def vault_aliases(
    vault: str | Path, paths: Iterable[str], max_bytes: int
) -> dict[str, tuple[str, ...]]:
    """The aliases of each note that has some (unreadable notes are skipped: lint reports them)."""
    found: dict[str, tuple[str, ...]] = {}
    for rel in paths:
        try:
            aliases = note_aliases(read_note(vault, rel, max_bytes).frontmatter)
        except (UnreadableNote, OSError):
            continue
        if aliases:
            found[rel] = aliases
    return found
