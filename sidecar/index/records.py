"""What the index stores about a note and its chunks, and the record a search returns.

Chunk metadata in Chroma mirrors the note's YAML (path, title, effective type and whether it was
inferred, tags (frontmatter and inline), nexus, subtype, cluster, conversation (a chat note's
conversation id), date, aliases, description, source_* fields) plus the chunk's place in the
note and the hashes that let the index reuse vectors. Chroma rejects empty lists and nested
values, so empty lists are left out and other values are flattened to strings.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sidecar.schema import get_schema
from sidecar.vault.drawings import note_title
from sidecar.vault.note import Note
from sidecar.vault.properties import (
    note_aliases,
    note_description,
    property_value,
    stated_created,
)
from sidecar.vault.vault_settings import (
    VaultSettings,
    default_vault_settings,
    effective_type,
    holds_private_text,
)

# Chroma stores a heading path as one string; this joins and splits it.
HEADING_SEPARATOR = " > "


@dataclass(frozen=True)
class NoteInfo:
    """The properties of one note the index files its chunks under."""

    path: str
    title: str
    type: str | None
    tags: tuple[str, ...]
    nexus: tuple[str, ...]
    subtype: str | None
    declared_cluster: str | None
    date: str
    private: bool
    archived: bool
    source: dict[str, str | int | float | bool]
    type_inferred: bool = False
    aliases: tuple[str, ...] = ()
    description: str = ""
    conversation: str | None = None  # a chat note's conversation id (its `conversation`)

    @property
    def retrievable(self) -> bool:
        return self.type in get_schema().retrievable_types

    @property
    def decays(self) -> bool:
        return self.type in get_schema().decay_types


@dataclass(frozen=True)
class ChunkRecord:
    """One indexed chunk as search results show it."""

    id: str
    path: str
    title: str
    type: str
    tags: tuple[str, ...]
    heading_path: tuple[str, ...]
    line_start: int
    line_end: int
    text: str
    private: bool
    cluster: str | None
    date: str
    newer_in_cluster: int
    nexus: tuple[str, ...]
    subtype: str | None
    type_inferred: bool = False
    block_ids: tuple[str, ...] = ()  # Obsidian block ids in the cited lines (`Note#^id`)
    conversation: str | None = None
    page: int | None = None  # a document's page (1-based): the chunk cites it, not lines
    aliases: tuple[str, ...] = ()  # its note's


@dataclass(frozen=True)
class ChunkFacts:
    """What ranking and the search filters read of a chunk: its note's properties and its text
    (which tells copies apart, `retrieval/copies.py`), without the chunk's place in the note (that
    comes from Chroma, for the results shown only)."""

    id: str
    path: str
    type: str
    tags: tuple[str, ...]
    private: bool
    cluster: str | None
    date: str
    newer_in_cluster: int
    text: str
    conversation: str | None = None
    aliases: tuple[str, ...] = ()  # its note's: a query that is one names the note


def _iso(value: Any) -> str | None:
    """A sortable ISO timestamp (YYYY-MM-DDTHH:MM:SS) from a YAML date value, else None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = dt.datetime.fromisoformat(value)
        if parsed.tzinfo is not None:
            parsed = parsed.astimezone(dt.UTC).replace(tzinfo=None)
    except (ValueError, OverflowError):  # in UTC before year 1 or after 9999: no date
        return None
    return parsed.isoformat(timespec="seconds")


def mtime_date(mtime_ns: int) -> str:
    """A file's mtime as the same kind of ISO timestamp (UTC, whole seconds)."""
    moment = dt.datetime.fromtimestamp(mtime_ns // 1_000_000_000, dt.UTC)
    return moment.replace(tzinfo=None).isoformat("T", "seconds")


def decay_date(frontmatter: Mapping[str, Any], mtime_ns: int, rel: str) -> str:
    """`date created`, else the creation date the note states (an everyday `created` or `date`
    property, or a date in its file name: `stated_created`), else `date modified`, else the
    file's mtime (UTC), as an ISO timestamp. A plain vault's notes are dated as their owner
    dated them, not by when a sync or a clone last touched the files."""
    created, modified = get_schema().linter_managed_dates
    found = _iso(property_value(frontmatter, created))
    if found:
        return found
    stated = stated_created(frontmatter, rel)
    if stated is not None:
        return f"{stated[0]}T00:00:00"
    return _iso(property_value(frontmatter, modified)) or mtime_date(mtime_ns)


def _scalar(value: Any) -> str | int | float | bool:
    if isinstance(value, str | int | float | bool):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def gives_anchors(note: Note, settings: VaultSettings) -> bool:
    """Whether the chunks `note_info` files the note under give incoming-link text
    (`anchors.py`): a public note, not archived, of a retrievable type (read without its date,
    title and every inline tag: `Note.has_tag`)."""
    return (effective_type(settings, note.path, note.type)[0] in get_schema().retrievable_types
            and not holds_private_text(note, settings) and not note.is_archived)


def note_info(note: Note, mtime_ns: int, settings: VaultSettings | None = None) -> NoteInfo:
    """What the index files a note under; its type is the effective type (vault_settings.py)."""
    fm = note.frontmatter
    settings = settings or default_vault_settings()
    note_type, inferred = effective_type(settings, note.path, note.type)
    subtype = fm.get("subtype")
    conversation = fm.get("conversation")
    source = {
        key: _scalar(fm[key])
        for key in get_schema().source_properties
        if key in fm and fm[key] is not None
    }
    return NoteInfo(
        path=note.path,
        title=note_title(note),
        type=note_type,
        tags=note.tags,
        nexus=note.nexus,
        subtype=subtype if isinstance(subtype, str) else None,
        declared_cluster=note.cluster,
        date=decay_date(fm, mtime_ns, note.path),
        private=holds_private_text(note, settings),
        archived=note.is_archived,
        source=source,
        type_inferred=inferred,
        aliases=note_aliases(fm),
        description=note_description(fm),
        conversation=conversation if isinstance(conversation, str) and conversation else None,
    )


def chunk_metadata(
    info: NoteInfo,
    *,
    heading_path: tuple[str, ...],
    line_start: int,
    line_end: int,
    index: int,
    note_hash: str,
    chunk_hash: str,
    model: str,
    cluster: str | None,
    block_ids: tuple[str, ...] = (),
    page: int | None = None,
) -> dict[str, Any]:
    """The Chroma metadata of one chunk. Absent optional keys are None, which makes Chroma delete
    them: an upsert merges into the stored metadata rather than replacing it."""
    optional = ("tags", "nexus", "subtype", "cluster", "conversation", "aliases", "description",
                "block_ids", "page", *get_schema().source_properties)
    meta: dict[str, Any] = dict.fromkeys(optional)
    meta |= {
        "path": info.path,
        "title": info.title,
        "type": info.type or "",
        "heading_path": HEADING_SEPARATOR.join(heading_path),
        "line_start": line_start,
        "line_end": line_end,
        "chunk_index": index,
        "date": info.date,
        "private": info.private,
        "archived": info.archived,
        "type_inferred": info.type_inferred,
        "note_hash": note_hash,
        "chunk_hash": chunk_hash,
        "model": model,
    }
    meta.update(info.source)
    if info.tags:
        meta["tags"] = list(info.tags)
    if info.nexus:
        meta["nexus"] = list(info.nexus)
    if info.subtype:
        meta["subtype"] = info.subtype
    if info.aliases:
        meta["aliases"] = list(info.aliases)
    if info.description:
        meta["description"] = info.description
    if cluster:
        meta["cluster"] = cluster
    if info.conversation:
        meta["conversation"] = info.conversation
    if block_ids:
        meta["block_ids"] = list(block_ids)
    if page is not None:
        meta["page"] = page
    return meta


def record_from_store(
    chunk_id: str, text: str, meta: Mapping[str, Any], newer_in_cluster: int
) -> ChunkRecord:
    """A ChunkRecord from a chunk's stored document and metadata."""
    heading = str(meta.get("heading_path") or "")
    cluster = meta.get("cluster")
    subtype = meta.get("subtype")
    conversation = meta.get("conversation")
    page = meta.get("page")
    return ChunkRecord(
        id=chunk_id,
        path=str(meta["path"]),
        title=str(meta.get("title", "")),
        type=str(meta.get("type", "")),
        tags=tuple(str(t) for t in meta.get("tags") or ()),
        heading_path=tuple(heading.split(HEADING_SEPARATOR)) if heading else (),
        line_start=int(meta.get("line_start", 0)),
        line_end=int(meta.get("line_end", 0)),
        text=text,
        private=bool(meta.get("private", False)),
        cluster=str(cluster) if cluster else None,
        date=str(meta.get("date", "")),
        newer_in_cluster=newer_in_cluster,
        nexus=tuple(str(n) for n in meta.get("nexus") or ()),
        subtype=str(subtype) if subtype else None,
        type_inferred=bool(meta.get("type_inferred", False)),
        block_ids=tuple(str(b) for b in meta.get("block_ids") or ()),
        conversation=str(conversation) if conversation else None,
        page=int(page) if isinstance(page, int | float) and not isinstance(page, bool) else None,
        aliases=tuple(str(a) for a in meta.get("aliases") or ()),
    )
