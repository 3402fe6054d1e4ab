"""The lint rules: the code table, JSON-Schema checks mapped to codes, and the vault-aware checks.

Shapes and closed vocabularies come from `schema/frontmatter.schema.json` (validated with
jsonschema); each schema error is mapped to one stable code. Checks the schema cannot express
(tag vocabulary with user domain tags, links that must resolve, properties allowed only on some
types, Templater commands that never ran) are plain functions below. Every code is listed in
CODES and documented in docs/lint-codes.md (a test keeps the two equal).
"""

from __future__ import annotations

import bisect
import datetime as dt
import difflib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import cache
from itertools import accumulate

from jsonschema import Draft202012Validator, FormatChecker, ValidationError

from sidecar.schema import get_schema, load_json
from sidecar.vault.links import NameIndex, link_target, parse_wikilink
from sidecar.vault.note import Note, split_frontmatter
from sidecar.vault.properties import property_key
from sidecar.vault.prose import prose_lines
from sidecar.vault.tags import (
    frontmatter_tags,
    inline_tags_with_lines,
    private_mentions,
    tag_properties,
    with_ancestors,
)
from sidecar.vault.vault_settings import VaultSettings, note_private


@dataclass(frozen=True)
class Code:
    severity: str  # "error" | "warning" | "info"
    summary: str


CODES: dict[str, Code] = {
    "file-binary": Code("error", "The file contains NUL bytes: it is not a text note."),
    "file-too-large": Code("error", "The file is larger than max_file_bytes; it is not indexed."),
    "file-undecodable": Code("error", "The file is not valid UTF-8."),
    "file-unreadable": Code("error", "The file could not be read (permissions, vanished)."),
    "file-name-undecodable": Code("error", "The file's name (or a folder's) is not valid "
                                           "UTF-8; the note is skipped."),
    "file-name-backslash": Code("error", "The file's name (or a folder's) holds a backslash, "
                                         "which no note's name may hold; the note is skipped."),
    "note-too-long": Code("warning", "The note is over the per-note caps of schema/limits.json; "
                                     "only its beginning is indexed."),
    "frontmatter-missing": Code("info", "The note has no frontmatter; it is indexed with an "
                                        "inferred type (a hint towards adopting the schema)."),
    "untyped-note": Code("info", "The note has frontmatter but no Ora type or nexus; it is "
                                 "indexed with an inferred type (a hint)."),
    "settings-invalid": Code("error", "The vault's ora.yaml has a value Ora cannot use; its "
                                      "default applies."),
    "frontmatter-unclosed": Code("error", "Line 1 opens frontmatter with --- that never closes."),
    "frontmatter-not-mapping": Code("error", "The frontmatter is YAML but not a key: value map."),
    "yaml-invalid": Code("error", "The frontmatter is not valid YAML (or repeats a key)."),
    "nexus-missing": Code("error", "The core property `nexus` is absent ([] means general)."),
    "type-missing": Code("error", "The core property `type` is absent."),
    "tags-missing": Code("error", "The core property `tags` is absent ([] is allowed)."),
    "type-unknown": Code("error", "`type` is not one of the twelve note types."),
    "subtype-unknown": Code("error", "`subtype` is not a known claim type."),
    "writing-unknown": Code("error", "`writing` is not a known book-production role."),
    "project-type-unknown": Code("error", "`project_type` is not a known matrix classification."),
    "project-type-misplaced": Code("error", "`project_type` is set on a non-matrix note."),
    "tag-invalid": Code("error", "A tag contains a space, # or comma (or is not a string)."),
    "tag-unknown": Code("warning", "A tag is neither in the vocabulary nor a domain tag."),
    "relationship-unknown": Code("error", "A `relationships` kind is not one of the known kinds."),
    "relationship-malformed": Code("error", "A relationship value is not a list of wikilinks."),
    "wikilink-unquoted": Code("error", "An unquoted [[link]] in YAML became a nested list."),
    "link-malformed": Code("error", "A value that must be a wikilink is not one."),
    "link-broken": Code("warning", "A wikilink in nexus, relationships or source_document "
                                   "names no note of the vault."),
    "nexus-not-matrix": Code("warning", "A `nexus` link names a note that is not a matrix."),
    "date-invalid": Code("error", "A date property is not an ISO date or date-time."),
    "date-missing": Code("warning", "A linter-managed date is absent (`ora lint --fix` adds it)."),
    "date-modified-stale": Code("info", "`date modified` is not the day the file was last "
                                        "changed (`ora lint --fix` updates it)."),
    "cluster-misplaced": Code("warning", "`cluster` is set on a type that does not decay."),
    "value-wrong-type": Code("error", "A property has the wrong kind of value (list, text, ...)."),
    "value-invalid": Code("error", "A property's value breaks another schema rule."),
    "templater-unrun": Code("info", "A Templater command (<% … %>) was never run: the note was "
                                    "made from a template without Templater."),
    "private-by-mention": Code("info", "The note is private only because `#private` appears "
                                       "where Obsidian reads no tag (code, a comment, a URL)."),
}

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")

Emit = Callable[[int, str, str], None]  # (line, code, message)


def is_iso_date(value: object) -> bool:
    """True for `YYYY-MM-DD` or an ISO date-time that Python can read."""
    if not isinstance(value, str):
        return False
    try:
        if _DATE.match(value):
            dt.date.fromisoformat(value)
            return True
        if _DATETIME.match(value):
            dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
            return True
    except ValueError:
        return False
    return False


def _date_format(value: object) -> bool:
    return not isinstance(value, str) or (bool(_DATE.match(value)) and is_iso_date(value))


def _datetime_format(value: object) -> bool:
    return not isinstance(value, str) or is_iso_date(value)


@cache
def _validator() -> Draft202012Validator:
    # Our own date checks: jsonschema's "date-time" needs an optional package and passes
    # anything without it, which would hide bad dates behind the schema's anyOf.
    checker = FormatChecker(formats=())
    checker.checks("date")(_date_format)
    checker.checks("date-time")(_datetime_format)
    return Draft202012Validator(get_schema().frontmatter_schema, format_checker=checker)


def _closest(value: object, choices: Iterable[str]) -> str:
    options = sorted(choices)
    close = difflib.get_close_matches(str(value), options, n=1, cutoff=0.6)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return f"{hint}; choose from: {', '.join(options)}"


def _enum_code(key: str) -> str:
    code = f"{key.replace('_', '-')}-unknown"
    return code if code in CODES else "value-invalid"


def _schema_error(err: ValidationError) -> tuple[str, str]:
    """(code, message) for one JSON-Schema error, keyed by where in the frontmatter it sits."""
    path = [str(p) for p in err.absolute_path]
    key = path[0] if path else ""
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)[1:]
    schema = get_schema()
    if key == "relationships":
        if err.validator == "enum" and len(path) == 1:
            return "relationship-unknown", (
                f"unknown relationship kind '{err.instance}'"
                f"{_closest(err.instance, schema.relationship_kinds)}"
            )
        if isinstance(err.instance, list) and len(path) == 3:
            return "wikilink-unquoted", f"{where}: quote the wikilink, e.g. \"[[Note]]\""
        return "relationship-malformed", (
            f"{where} must be a list of quoted wikilinks like \"[[Note]]\", got {err.instance!r}"
        )
    if key in schema.date_properties:
        return "date-invalid", f"{key}: {err.instance!r} is not an ISO date (YYYY-MM-DD)"
    if err.validator == "enum":
        options = err.validator_value if isinstance(err.validator_value, list) else []
        return _enum_code(key), f"unknown {key} '{err.instance}'{_closest(err.instance, options)}"
    if err.validator == "type" and len(path) == 2 and isinstance(err.instance, list):
        return "wikilink-unquoted", f"{where}: quote the wikilink, e.g. \"[[Note]]\""
    if key == "tags" and len(path) == 2:
        return "tag-invalid", f"tag {err.instance!r} must be one word without spaces, # or commas"
    if err.validator == "pattern":
        return "link-malformed", f"{where}: {err.instance!r} is not a wikilink like \"[[Note]]\""
    if err.validator == "type":
        return "value-wrong-type", f"{where or 'frontmatter'}: {err.message}"
    return "value-invalid", f"{where or 'frontmatter'}: {err.message}"


def check_schema(note: Note, emit: Emit) -> None:
    """Required core properties and every JSON-Schema rule, one diagnostic per problem."""
    fm = note.frontmatter
    for key in get_schema().frontmatter_schema.get("required", []):
        if key not in fm:
            emit(1, f"{key}-missing", f"missing core property `{key}`")
    seen: set[tuple[str, str]] = set()
    for err in _validator().iter_errors(fm):
        if err.validator == "required":
            continue
        code, message = _schema_error(err)
        key = str(err.absolute_path[0]) if err.absolute_path else ""
        if (code, message) not in seen:
            seen.add((code, message))
            emit(note.line_of(key), code, message)


def _shaped(tag: object) -> bool:
    return isinstance(tag, str) and bool(tag) and not any(c.isspace() or c in "#," for c in tag)


def _written_tags(note: Note) -> Iterator[tuple[str, int]]:
    """(tag, file line) of every tag the note carries: frontmatter `tags` items of a valid shape
    (the schema check reports the others), the legacy `tag` in any shape, inline #tags."""
    names = {name.casefold() for name in tag_properties()}  # Obsidian reads `Tags:` too
    for key, value in note.frontmatter.items():
        if key.casefold() not in names:
            continue
        if key == "tags" and isinstance(value, list):
            yield from ((t, note.line_of(key)) for t in value if _shaped(t))
        elif key != "tags":
            yield from ((t, note.line_of(key)) for t in frontmatter_tags({key: value}))
    for tag, offset in inline_tags_with_lines(note.body):
        yield tag, note.body_line + offset


def check_tags(note: Note, known: frozenset[str], domain: frozenset[str], emit: Emit) -> None:
    """Tags outside the vocabulary: a warning with the closest known tag. A nested tag is known
    when it or an ancestor is (`memory/sleep`, `private/health`)."""
    vocabulary = known | domain
    for tag, line in _written_tags(note):
        if with_ancestors([tag]) & vocabulary:
            continue
        close = difflib.get_close_matches(tag.casefold(), sorted(known), n=1, cutoff=0.6)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        emit(line, "tag-unknown",
             f"tag '{tag}' is not in the vocabulary or the vault's domain tags{hint}")


def _linked_values(note: Note) -> Iterator[tuple[str, str, str]]:
    """(key, where, raw value) for each value that should name a vault note."""
    fm = note.frontmatter
    for i, value in enumerate(note.nexus if isinstance(fm.get("nexus"), list) else ()):
        yield "nexus", f"nexus[{i}]", value
    rel = fm.get("relationships")
    if isinstance(rel, dict):
        for kind, links in rel.items():
            if isinstance(links, list):
                for value in links:
                    if isinstance(value, str) and parse_wikilink(value):
                        yield "relationships", f"relationships.{kind}", value
    docs = fm.get("source_document")
    if isinstance(docs, list):
        for value in docs:
            if isinstance(value, str) and parse_wikilink(value):
                yield "source_document", "source_document", value


def check_links(note: Note, names: NameIndex, emit: Emit,
                type_of: Callable[[str], str | None] | None = None, *,
                public_only: bool = False) -> None:
    """Wikilinks in nexus, relationships and source_document that resolve to no note (to no
    non-private note when `public_only`, and the message says so), and nexus entries whose note
    is not a matrix (`type_of`: a vault path's effective type, None when unknown; without it
    that is not checked)."""
    targets = get_schema().nexus_target_types
    scope = " outside private mode" if public_only else ""
    for key, where, value in _linked_values(note):
        target = link_target(value)
        if not target:
            continue
        found = names.resolve(target)
        if found is None:
            emit(note.line_of(key), "link-broken", f"{where}: no note named '{target}'{scope}")
        elif key == "nexus" and type_of is not None:
            kind = type_of(found)
            if kind is not None and kind not in targets:
                emit(note.line_of(key), "nexus-not-matrix",
                     f"{where}: '{target}' is a {kind} note, not a {' or '.join(targets)}")


def check_placement(note: Note, emit: Emit) -> None:
    """Properties that only belong on some types, and linter-managed dates that are absent."""
    schema = get_schema()
    fm, note_type = note.frontmatter, note.type
    if note_type in schema.types:
        if "project_type" in fm and note_type not in schema.project_type_allowed_on:
            emit(note.line_of("project_type"), "project-type-misplaced",
                 f"project_type is only for {', '.join(schema.project_type_allowed_on)} notes, "
                 f"this note is {note_type}")
        if "cluster" in fm and note_type not in schema.decay_types:
            emit(note.line_of("cluster"), "cluster-misplaced",
                 f"cluster only affects {', '.join(sorted(schema.decay_types))} notes, "
                 f"this note is {note_type}")
    for key in schema.linter_managed_dates:
        spelled = property_key(fm, key)
        if spelled is None:
            emit(1, "date-missing", f"missing `{key}`; `ora lint --fix` fills it from the file")
        elif spelled != key and not is_iso_date(fm[spelled]):  # the schema names `key` only
            emit(note.line_of(spelled), "date-invalid",
                 f"{spelled}: {fm[spelled]!r} is not an ISO date (YYYY-MM-DD)")


@cache
def _template_command() -> tuple[re.Pattern[str], str]:
    """Templater's commands (over several lines too: `<%* … %>` holds code), and the command
    that runs them, from `schema/plugin_formats.json`. The opening tag's modifiers (`*`, `+`,
    `_`, `-`) are the command's first characters."""
    spec = load_json("plugin_formats.json")["template_commands"]
    pattern = re.compile(f"{re.escape(spec['open'])}(.+?){re.escape(spec['close'])}", re.DOTALL)
    return pattern, str(spec["run"])


def _command_sources(note: Note) -> Iterator[list[tuple[int, str]]]:
    """(file line, text) of the frontmatter's lines (a template fills properties too), then of
    the body's prose: a command shown in code or inline code is an example, not a command."""
    block = split_frontmatter(note.text)
    if block is not None:
        first = block.open_line + 1
        yield [(first + i, line) for i, line in enumerate(block.yaml_text.split("\n"))]
    yield [(note.body_line + n, text) for n, text in prose_lines(note.body)]


def check_private_mention(note: Note, settings: VaultSettings, emit: Emit) -> None:
    """A note private only because `#private` appears where Obsidian reads no tag (in code, a
    comment, math, a URL): privacy fails closed and keeps it out of every non-private answer,
    but nothing else would tell its owner why it is missing there. One hint, at the first such
    mention; none when the note is private anyway (a real tag, a `private` property, a private
    folder or source document), which says nothing the note does not."""
    spans = private_mentions(note.body)
    if not spans or note.has_tag("private"):
        return
    start = spans[0][0]
    body = note.body
    for begin, end in reversed(spans):  # the note as it would be without those mentions
        body = body[:begin] + " " * (end - begin) + body[end:]
    if note_private(replace(note, body=body), settings):
        return
    line = note.body_line + note.body.count("\n", 0, start)
    emit(line, "private-by-mention",
         f"treated as private: `#private` appears in code, a comment or a URL (line {line}); "
         "Ora keeps it out of non-private answers")


def check_templater(note: Note, emit: Emit) -> None:
    """Templater commands left in a note: it was made from a template that Templater never ran
    on (templates themselves are excluded from lint), so its dates and titles were never
    filled. One hint per line, with the first command on it. A saved web page is text from
    outside: running Templater on it would run the page's commands, so it gets no hint."""
    if note.type == "web":
        return
    pattern, run = _template_command()
    for lines in _command_sources(note):
        text = "\n".join(t for _, t in lines)
        starts = list(accumulate((len(t) + 1 for _, t in lines), initial=0))
        reported: set[int] = set()
        for match in pattern.finditer(text):
            if not match.group(1).strip(" \t\n*+_-"):
                continue  # `<% %>` is empty: nothing to run
            line = lines[bisect.bisect_right(starts, match.start()) - 1][0]
            if line not in reported:
                reported.add(line)
                first = match.group().split("\n", 1)[0]
                shown = first if len(first) <= 60 else first[:59] + "…"
                emit(line, "templater-unrun",
                     f"Templater command `{shown}` never ran (the note was made from a template "
                     f"without Templater): run `{run}` in Obsidian, or fill it in by hand")
