"""The user's web registry: the vault note `Registry — Trusted Web Sources`.

Its frontmatter configures the web tier (schema/README.md, "Registry — Trusted Web Sources"):

    whitelist: ["nature.com", "en.wikipedia.org/wiki/*"]      # weighed as curated reference
    overrides:                                                # exact pages, any tier
      - {url: "https://example.org/great-article", tier: whitelisted}
    excluded: ["*.contentfarm.example", "spam.example/*"]     # removed before ranking

The note is found by name anywhere in the vault and only read, never written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sidecar.errors import BadRequest, OraError
from sidecar.schema import get_schema
from sidecar.vault.links import NameIndex
from sidecar.vault.note import read_note
from sidecar.vault.scan import iter_note_paths
from sidecar.web.urls import normalise_url


@dataclass(frozen=True)
class Registry:
    whitelist: tuple[str, ...] = ()
    overrides: dict[str, str] = field(default_factory=dict)  # normalised URL -> tier
    excluded: tuple[str, ...] = ()
    source: str | None = None  # vault path of the note, None when absent


def _patterns(fm: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = fm.get(key) or []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise BadRequest(f"{where}: `{key}` must be a list of URL patterns")
    return tuple(v.strip() for v in value)


def _overrides(fm: dict[str, Any], where: str) -> dict[str, str]:
    tiers = get_schema().web_tiers
    found: dict[str, str] = {}
    for item in fm.get("overrides") or []:
        if not (isinstance(item, dict) and isinstance(item.get("url"), str)
                and item.get("tier") in tiers):
            raise BadRequest(f"{where}: each override needs `url` and `tier` "
                             f"(one of {', '.join(tiers)}); got {item!r}")
        try:
            found[normalise_url(item["url"])] = item["tier"]
        except BadRequest as err:
            raise BadRequest(f"{where}: override {err.message}") from err
    return found


def parse_registry(frontmatter: dict[str, Any], where: str) -> Registry:
    return Registry(
        whitelist=_patterns(frontmatter, "whitelist", where),
        overrides=_overrides(frontmatter, where),
        excluded=_patterns(frontmatter, "excluded", where),
        source=where,
    )


def load_registry(vault: Path, max_bytes: int) -> Registry:
    """The registry note of `vault`, or an empty registry when the vault has none."""
    rel = NameIndex(iter_note_paths(vault)).resolve(get_schema().web_registry_note)
    if rel is None:
        return Registry()
    try:
        note = read_note(vault, rel, max_bytes)
    except OraError as err:
        raise BadRequest(f"{rel}: {err.message}") from err
    if note.yaml_error is not None:
        message, line = note.yaml_error
        raise BadRequest(f"{rel} line {line}: {message}")
    return parse_registry(note.frontmatter, rel)
