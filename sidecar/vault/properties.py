"""Obsidian's everyday properties that Ora reads (`schema/obsidian_properties.json`): a note's
other names (`aliases`) and its searchable summary (`description`); and finding a property under
the user's own capitalisation (`Date Created:` is `date created`)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

from sidecar.errors import UnreadableNote
from sidecar.schema import load_json
from sidecar.vault.note import read_note
from sidecar.vault.tags import property_values


@cache
def _properties() -> dict[str, Any]:
    return dict(load_json("obsidian_properties.json"))


def property_key(frontmatter: Mapping[Any, Any], name: str) -> str | None:
    """The key that holds property `name` as the note spells it, or None. Obsidian treats
    property names case-insensitively (`Date Created`, `DATE CREATED` are `date created`), so
    reading one spelling only missed the user's value and `--fix` added a second key beside it.
    The exact spelling wins when a note has several."""
    if name in frontmatter:
        return name
    folded = name.casefold()
    return next((k for k in frontmatter if isinstance(k, str) and k.casefold() == folded), None)


def plugin_note(frontmatter: Mapping[Any, Any]) -> str | None:
    """What a plugin's own note is ("a Kanban board (`kanban-plugin`)"), by the frontmatter key
    the plugin marks it with (`schema/plugin_formats.json` `plugin_notes`), else None."""
    for key, what in load_json("plugin_formats.json")["plugin_notes"].items():
        if property_key(frontmatter, key) is not None:
            return f"{what} (`{key}`)"
    return None


def property_value(frontmatter: Mapping[Any, Any], name: str) -> Any:
    """The value of property `name` under any capitalisation (`property_key`), else None."""
    key = property_key(frontmatter, name)
    return None if key is None else frontmatter[key]


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


def vault_link_facts(
    vault: str | Path, paths: Iterable[str], max_bytes: int
) -> tuple[dict[str, tuple[str, ...]], dict[str, str | None], set[str]]:
    """What links resolve to, read in one pass: the aliases of each note that has some, the
    declared `type` (None without one) of every readable note, and which notes are private by
    their own words or cannot be read (their private tag, if any, cannot be seen: fail closed;
    lint reports them). Not those private by where they lie (ora.yaml `private`): that is the
    caller's to ask (`is_private_path`), with the settings it holds, since the settings change
    without the notes (see `server/lint_cache.py`)."""
    aliases: dict[str, tuple[str, ...]] = {}
    types: dict[str, str | None] = {}
    private: set[str] = set()
    for rel in paths:
        try:
            note = read_note(vault, rel, max_bytes)
        except (UnreadableNote, OSError):
            private.add(rel)
            continue
        if note.is_private:
            private.add(rel)
        frontmatter = note.frontmatter
        declared = frontmatter.get("type")
        types[rel] = declared if isinstance(declared, str) else None
        found = note_aliases(frontmatter)
        if found:
            aliases[rel] = found
    return aliases, types, private


_NAME_DATE = re.compile(r"(?<!\d)(\d{4}-\d{2}-\d{2})(?!\d)")


def iso_day(value: Any) -> str | None:
    """`YYYY-MM-DD` of a value that starts with an ISO date, else None."""
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return dt.date.fromisoformat(value[:10]).isoformat()
    except ValueError:
        return None


def stated_created(frontmatter: Mapping[str, Any], rel: str) -> tuple[str, str] | None:
    """(day, where it comes from) of the creation date a note states itself: an everyday
    `created` property (schema/adopt.json `created_properties`), else a date in its file name
    (a daily note). File times are no such statement: a copy, a clone or a sync resets them."""
    for key in load_json("adopt.json")["created_properties"]:
        day = iso_day(property_value(frontmatter, key))
        if day is not None:
            return day, "the note's `created` property"
    named = _NAME_DATE.search(PurePosixPath(rel).stem)
    day = iso_day(named.group(1)) if named else None
    return (day, "the date in its file name") if day is not None else None
