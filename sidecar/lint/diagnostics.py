"""Diagnostics for notes: `lint_text` for one note (fast enough for keystroke debounce),
`lint_vault` for a whole vault, and `fix_dates`, the one automatic fix.

A diagnostic always carries the file line of the offending key (line 1, the opening fence, when
the key is absent). The rules and their codes live in `rules.py`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from sidecar.chunking.limits import too_long
from sidecar.documents.formats import iter_document_paths, named_as_document
from sidecar.errors import Conflict, NotFound, UnreadableNote
from sidecar.lint.rules import (
    CODES,
    Emit,
    check_links,
    check_placement,
    check_private_mention,
    check_schema,
    check_tags,
    check_templater,
    is_iso_date,
)
from sidecar.schema import get_schema
from sidecar.settings import SETTINGS
from sidecar.vault.drawings import drawing_format
from sidecar.vault.edit import edit_frontmatter
from sidecar.vault.frontmatter_edit import set_value
from sidecar.vault.links import NameIndex
from sidecar.vault.note import (
    NOT_MAPPING,
    UNCLOSED,
    Note,
    indexed_view,
    parse_note,
    read_note,
    split_frontmatter,
)
from sidecar.vault.properties import (
    iso_day,
    plugin_note,
    property_key,
    property_value,
    stated_created,
    vault_link_facts,
)
from sidecar.vault.scan import NAME_PROBLEMS, iter_note_paths, unusable_names, vault_path
from sidecar.vault.vault_settings import (
    VaultSettings,
    default_vault_settings,
    effective_type,
    is_excluded,
    is_lint_ignored,
    load_vault_settings,
    opted_out,
    settings_path,
)
from sidecar.vault.write import content_hash

__all__ = [
    "CODES",
    "Diagnostic",
    "LintContext",
    "adopted",
    "fix_dates",
    "lint_note",
    "lint_text",
    "lint_vault",
    "name_diagnostics",
    "settings_diagnostics",
]

DEFAULT_MAX_BYTES: int = next(s.default for s in SETTINGS if s.name == "max_file_bytes")
DEFAULT_CHUNK_TOKENS: int = next(s.default for s in SETTINGS if s.name == "chunk_tokens")

# UnreadableNote.code -> lint code
_FILE_CODES = {
    "binary_file": "file-binary",
    "file_too_large": "file-too-large",
    "undecodable_file": "file-undecodable",
}


@dataclass(frozen=True, order=True)
class Diagnostic:
    path: str
    line: int
    severity: str
    code: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "severity": self.severity,
                "code": self.code, "message": self.message}

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.severity} {self.code} {self.message}"


@dataclass(frozen=True)
class LintContext:
    """What a note is checked against besides itself: the vault's notes and domain tags, and
    the tags its plugins use as markers (`settings.plugin_tags`).

    `names=None` skips link checks (a lone file with no vault around it); `types` (each note's
    declared type, None without one) lets a nexus be checked to name a matrix. `public_only`:
    the names are the non-private notes' alone (a request outside private mode), so a link that
    resolves to none is reported as resolving to nothing *outside private mode*: a link to a
    private note and a link to nothing get the same diagnostic (no existence oracle).
    """

    names: NameIndex | None = None
    extra_domain_tags: frozenset[str] = field(default_factory=frozenset)
    settings: VaultSettings = field(default_factory=default_vault_settings)
    public_only: bool = False
    types: Mapping[str, str | None] | None = None

    def type_of(self, rel: str) -> str | None:
        """A vault note's effective type as the index types it; None when it is not known."""
        if self.types is None or rel not in self.types:
            return None
        return effective_type(self.settings, rel, self.types[rel])[0]

    @cached_property
    def domain_tags(self) -> frozenset[str]:
        defaults = get_schema().tag_groups.get("domain", ())
        return frozenset(t.casefold() for t in (*defaults, *self.extra_domain_tags))

    @cached_property
    def known_tags(self) -> frozenset[str]:
        # A plugin's marker tag (Tasks' `#task`) is the vault's own word, not a typo.
        own = (*get_schema().known_tags, *self.settings.plugin_tags)
        return frozenset(t.casefold() for t in own) | self.domain_tags

    @classmethod
    def build(cls, paths: Iterable[str], schema_note: Note | None = None,
              settings: VaultSettings | None = None,
              aliases: Mapping[str, Iterable[str]] | None = None,
              types: Mapping[str, str | None] | None = None,
              files: Iterable[str] = ()) -> LintContext:
        """A context from the vault's note paths, its parsed schema reference note, its
        settings (the defaults when None), its notes' aliases (links resolve to them) and
        declared types, and its other files links may name (documents)."""
        extra: frozenset[str] = frozenset()
        if schema_note is not None:
            value = schema_note.frontmatter.get(get_schema().domain_tags_property)
            if isinstance(value, list):
                extra = frozenset(v for v in value if isinstance(v, str))
        return cls(names=NameIndex(paths, aliases, files), extra_domain_tags=extra,
                   settings=settings or default_vault_settings(), types=types)

    @classmethod
    def for_vault(cls, vault: str | Path, paths: Iterable[str] | None = None,
                  max_bytes: int = DEFAULT_MAX_BYTES,
                  aliases: Mapping[str, Iterable[str]] | None = None,
                  types: Mapping[str, str | None] | None = None, *,
                  data: Path | None) -> LintContext:
        """A context read from disk: every note path, the schema note's domain tags, the
        vault's settings (ora.yaml) and its notes' aliases and types (read here unless
        given); `data`, the index's data folder, keeps what a missing ora.yaml said."""
        settings = load_vault_settings(vault, data)
        names = NameIndex(iter_note_paths(vault) if paths is None else paths)
        if aliases is None or types is None:
            aliases, types, _ = vault_link_facts(vault, names.paths, max_bytes)
        rel = names.resolve(get_schema().schema_note)
        schema_note = None
        if rel is not None:
            try:
                schema_note = read_note(vault, rel, max_bytes)
            except (UnreadableNote, OSError):
                schema_note = None  # its own lint reports the problem
        # A link to a document (`[[paper.pdf#page=3]]`) resolves, as in Obsidian.
        return cls.build(names.paths, schema_note, settings, aliases, types,
                         files=iter_document_paths(vault))


def _silenced(settings: VaultSettings, rel: str) -> bool:
    """Lint says nothing about notes excluded from Ora or listed in `lint.ignore`."""
    return is_excluded(settings, rel) or is_lint_ignored(settings, rel)


def adopted(note: Note) -> bool:
    """True when a note has adopted Ora's schema and is checked strictly: its `type` is one of
    Ora's types, or it carries Ora's own core property `nexus`. Other notes (no frontmatter, or
    only Obsidian's everyday properties, or a `type` of the vault's own) are indexed with an
    inferred type and get at most one hint."""
    return note.type in get_schema().types or "nexus" in note.frontmatter


def _hint_untyped(note: Note, settings: VaultSettings, emit: Emit) -> None:
    inferred, _ = effective_type(settings, note.path, note.type)
    searched = f"searched as {inferred}"
    if split_frontmatter(note.text) is None:
        emit(1, "frontmatter-missing",
             f"no Ora frontmatter: {searched}; to adopt the schema add a --- block with "
             "nexus, type and tags (`ora adopt` proposes one)")
    else:
        own = f" (`type: {note.type}` is not one of Ora's types)" if note.type else ""
        emit(note.line_of("type"), "untyped-note",
             f"no Ora type{own}: {searched}; add `type` and `nexus` to adopt the schema")


def settings_diagnostics(settings: VaultSettings) -> list[Diagnostic]:
    """One `settings-invalid` error on ora.yaml per value that could not be used."""
    rel = settings_path("").name
    return [Diagnostic(rel, 1, CODES["settings-invalid"].severity, "settings-invalid",
                       problem.removeprefix(f"{rel}: "))
            for problem in settings.problems]


def lint_note(note: Note, ctx: LintContext | None = None) -> list[Diagnostic]:
    """Diagnostics of a parsed note, sorted by line."""
    ctx = ctx or LintContext()
    if _silenced(ctx.settings, note.path):
        return []
    found: list[Diagnostic] = []

    def emit(line: int, code: str, message: str) -> None:
        found.append(Diagnostic(note.path, line, CODES[code].severity, code, message))

    long = too_long(indexed_view(note), DEFAULT_CHUNK_TOKENS)  # what the index reads of it
    if long is not None:
        emit(long[0], "note-too-long", long[1])
    if note.yaml_error is not None:
        message, line = note.yaml_error
        if message == UNCLOSED:
            emit(line, "frontmatter-unclosed", message)
        elif message == NOT_MAPPING:
            emit(line, "frontmatter-not-mapping", message)
        else:
            emit(line, "yaml-invalid", f"invalid YAML: {message}")
        return found
    if opted_out(note.frontmatter):
        return []
    check_templater(note, emit)  # about the text, not the schema: adopted or not
    check_private_mention(note, ctx.settings, emit)  # so too
    if not adopted(note):
        # A drawing or a plugin's own note (a Kanban board) is searched as it is, and an empty
        # note is one not written yet (`ora adopt` skips it): nothing for its owner to add or fix.
        if (ctx.settings.lint_untyped == "hint" and note.text.strip()
                and drawing_format(note) is None and plugin_note(note.frontmatter) is None):
            _hint_untyped(note, ctx.settings, emit)
        return sorted(found, key=lambda d: (d.line, d.code, d.message))
    check_schema(note, emit)
    check_tags(note, ctx.known_tags, ctx.domain_tags, emit)
    check_placement(note, emit)
    if ctx.names is not None:
        check_links(note, ctx.names, emit, ctx.type_of, public_only=ctx.public_only)
    return sorted(found, key=lambda d: (d.line, d.code, d.message))


def lint_text(text: str, path: str, ctx: LintContext | None = None) -> list[Diagnostic]:
    """Diagnostics of a note's text (unsaved editor contents work too); never raises."""
    return lint_note(parse_note(text, path), ctx)


def lint_file(vault: str | Path, rel: str, ctx: LintContext | None = None,
              max_bytes: int = DEFAULT_MAX_BYTES) -> list[Diagnostic]:
    """Diagnostics of VAULT/rel, including binary, oversized and undecodable files."""
    if ctx is not None and _silenced(ctx.settings, rel):
        return []
    try:
        note = read_note(vault, rel, max_bytes)
    except UnreadableNote as err:
        code = _FILE_CODES.get(err.code, "file-unreadable")
        message = err.message.removeprefix(f"{rel} ")
        return [Diagnostic(rel, 1, CODES[code].severity, code, message)]
    except OSError as err:
        return [Diagnostic(rel, 1, "error", "file-unreadable", f"cannot read {rel}: {err}")]
    ctx = ctx or LintContext()
    return sorted(lint_note(note, ctx) + _stale_modified(note, vault, ctx),
                  key=lambda d: (d.line, d.code, d.message))


def name_diagnostics(vault: str | Path) -> list[Diagnostic]:
    """One diagnostic per note or document skipped because its name cannot be used (named as
    shown)."""
    return [Diagnostic(shown, 1, CODES[code].severity, code,
                       f"{NAME_PROBLEMS[code]}, so Ora skips this file; rename it")
            for shown, code in unusable_names(vault, also=named_as_document)]


def lint_vault(vault: str | Path, max_bytes: int = DEFAULT_MAX_BYTES, *,
               data: Path | None) -> list[Diagnostic]:
    """Diagnostics of every note in the vault, sorted by path and line."""
    paths = list(iter_note_paths(vault))
    ctx = LintContext.for_vault(vault, paths, max_bytes, data=data)
    notes = [d for rel in paths if not is_excluded(ctx.settings, rel)
             for d in lint_file(vault, rel, ctx, max_bytes)]
    return settings_diagnostics(ctx.settings) + sorted([*notes, *name_diagnostics(vault)])


def file_dates(path: Path) -> tuple[dt.date, dt.date]:
    """(created, modified) from the filesystem; creation falls back to the oldest time known."""
    st = path.stat()
    created = getattr(st, "st_birthtime", None) or min(st.st_mtime, st.st_ctime)
    return dt.date.fromtimestamp(created), dt.date.fromtimestamp(st.st_mtime)


def _created(frontmatter: Mapping[str, Any], rel: str, path: Path) -> tuple[str, str]:
    """(date created, where it comes from): the note's own `date created`, else the date it
    states (`stated_created`), else the file's."""
    own = iso_day(property_value(frontmatter, get_schema().linter_managed_dates[0]))
    if own is not None:
        return own, "the note's `date created`"
    return stated_created(frontmatter, rel) or (file_dates(path)[0].isoformat(), "file times")


def dates_to_fill(frontmatter: Mapping[str, Any], rel: str, path: Path) -> tuple[str, str, str]:
    """(date created, date modified, where the creation date comes from) for a note about to be
    written. Modified: the day of the write, since writing the dates modifies the file (the
    file's mtime day afterwards, so lint finds it current), but never before created (a `date
    created` set ahead by a template)."""
    created, why = _created(frontmatter, rel, path)
    return created, max(dt.date.today().isoformat(), created), why


def stale_modified(frontmatter: Mapping[str, Any], rel: str, path: Path) -> str | None:
    """The day `date modified` should say when the note's differs from it, else None: the
    file's mtime day, never before `date created` ("linter-managed": the file system is the
    authority). An absent or unreadable value is `date-missing` / `date-invalid` instead."""
    day = iso_day(property_value(frontmatter, get_schema().linter_managed_dates[1]))
    if day is None:
        return None
    expected = max(file_dates(path)[1].isoformat(), _created(frontmatter, rel, path)[0])
    return expected if day != expected else None


def _stale_modified(note: Note, vault: str | Path, ctx: LintContext) -> list[Diagnostic]:
    """`date-modified-stale` for an adopted note whose `date modified` is not its file's
    mtime day (only a file on disk has one: the editor's unsaved text is not checked)."""
    if (_silenced(ctx.settings, note.path) or note.yaml_error is not None
            or opted_out(note.frontmatter) or not adopted(note)):
        return []
    expected = stale_modified(note.frontmatter, note.path, vault_path(vault, note.path))
    if expected is None:
        return []
    key = get_schema().linter_managed_dates[1]
    code = "date-modified-stale"
    return [Diagnostic(note.path, note.line_of(property_key(note.frontmatter, key) or key),
                       CODES[code].severity, code,
                       f"{key} is not the day the file was last changed ({expected}); "
                       "`ora lint --fix` updates it")]


def _planned_dates(vault: str | Path, rel: str, note: Note) -> dict[str, dt.date]:
    """The linter-managed dates `fix_dates` writes: the absent or unreadable ones, and a stale
    `date modified`."""
    managed = get_schema().linter_managed_dates  # listed as (created, modified)
    path = vault_path(vault, rel)
    created, modified, _ = dates_to_fill(note.frontmatter, rel, path)
    values = dict(zip(managed, (dt.date.fromisoformat(created), dt.date.fromisoformat(modified)),
                      strict=True))
    todo = {k: v for k, v in values.items()
            if not is_iso_date(property_value(note.frontmatter, k))}
    if stale_modified(note.frontmatter, rel, path) is not None:
        todo[managed[1]] = values[managed[1]]
    return todo


def fix_dates(vault: str | Path, rel: str, max_bytes: int = DEFAULT_MAX_BYTES) -> bool:
    """Fill absent or unreadable linter-managed dates, and bring a stale `date modified` up to
    date; True if written.

    Only those keys change (through edit.py); a note without frontmatter or with invalid YAML
    is left alone, since its other problems need a person. The edit is checked against the
    bytes read here (strict UTF-8 round-trips exactly), so a save in between is a Conflict.
    `date modified` becomes the day of the write, which is the file's mtime day after it: a
    write that crossed midnight is done once more, so the fix never leaves its own note stale.
    A note absent when it is read is NotFound; one removed after (a sync tool saving it by
    delete-and-create) is a Conflict, as a save in between is.
    """
    written = False
    for _ in range(2):
        try:
            note = read_note(vault, rel, max_bytes)
        except FileNotFoundError as exc:
            raise NotFound(f"no note at {rel}") from exc
        planned = content_hash(note.text.encode("utf-8"))
        if note.yaml_error is not None or split_frontmatter(note.text) is None:
            return written
        try:
            todo = _planned_dates(vault, rel, note)  # reads the file's times
        except FileNotFoundError as exc:
            raise Conflict(f"{rel} was removed since it was read (perhaps it is being saved); "
                           "nothing was written: reload it and try again") from exc
        if not todo:
            return written

        def mutate(cm: Any, todo: dict[str, dt.date] = todo) -> None:
            for key, value in todo.items():
                set_value(cm, key, value)

        edit_frontmatter(vault, rel, mutate, expected_hash=planned)
        written = True
    return written
