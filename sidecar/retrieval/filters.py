"""Which chunks a query may see, and the flags a returned chunk carries.

The rules are 'The Vault', 'Tag-based filters'.

The index already keeps private chunks apart and drops archived ones inside its stores; these
checks run again on every candidate so a result can never break the rules even if a store does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from sidecar.errors import SchemaDataError
from sidecar.schema import get_schema
from sidecar.vault.tags import with_ancestors


@dataclass(frozen=True)
class StatusTags:
    """The three status tags that steer retrieval, checked against the schema's vocabulary."""

    archived: str
    incubating: str
    private: str


@cache
def status_tags() -> StatusTags:
    """The status tags named in `schema/tags.json` `filters`, each one in the `status` group."""
    schema = get_schema()
    status = set(schema.tag_groups.get("status", ()))
    names = ("archived", "incubating", "private")
    missing = [name for name in names if name not in status]
    if missing:
        raise SchemaDataError(f"schema/tags.json status group lacks {', '.join(missing)}")
    return StatusTags(*names)


def _folded(tags: Iterable[str]) -> frozenset[str]:
    # As the vault parser's `Note.has_tag`: case-insensitive, `private/health` counts as private.
    return with_ancestors(tags)


def is_admissible(
    type_name: str,
    tags: Iterable[str],
    private: bool,
    *,
    private_mode: bool,
    include_archived: bool,
) -> bool:
    """True when a chunk may be returned: a retrievable type, not archived unless asked for,
    and not private unless the query runs in private mode."""
    if type_name not in get_schema().retrievable_types:
        return False
    status = status_tags()
    tag_set = _folded(tags)
    if status.archived in tag_set and not include_archived:
        return False
    is_private = private or status.private in tag_set
    return private_mode or not is_private


def result_flags(tags: Iterable[str]) -> list[str]:
    """Status flags shown on a result: `incubating` always, `archived` when it was asked for."""
    status = status_tags()
    tag_set = _folded(tags)
    return [name for name in (status.incubating, status.archived) if name in tag_set]
