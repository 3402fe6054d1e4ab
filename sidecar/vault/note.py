"""Parse one note: its YAML frontmatter (with the file line of every top-level key) and its body.

The frontmatter block is found exactly as Obsidian finds it: line 1 is `---` and the block ends
at the next `---` line. python-frontmatter's own splitter is looser (it accepts `----` and eats
blank lines after the fence, which shifts line numbers), so we split here and parse the block
with the YAML loader python-frontmatter's YAML handler uses (libyaml's CSafeLoader when present).
Composing the node tree first gives every key's line; constructing from it gives the values.
A lone `\r` (classic Mac line ends) is read as a line end, as Obsidian's editor reads it.
"""

from __future__ import annotations

import base64
import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml
from frontmatter.default_handlers import SafeLoader as _HandlerLoader

from sidecar.errors import UnreadableNote
from sidecar.vault.scan import read_regular, vault_path
from sidecar.vault.tags import (
    frontmatter_tags,
    may_have_inline,
    mentions_private,
    note_tags,
    property_values,
    with_ancestors,
)

FENCE = "---"
# Aliases can make a few lines of YAML expand into billions of values ("billion laughs");
# past this many values the frontmatter is reported instead of materialised.
_MAX_VALUES = 20_000
_LONE_CR = re.compile(r"\r(?!\n)")
UNCLOSED = "frontmatter opened with '---' on line 1 is never closed"
NOT_MAPPING = "frontmatter must be a mapping of properties"
# A line that an unclosed frontmatter block may hold (see `indexed_view`): blank, indented (a
# nested value), a list item, a `key:` line, or a mistyped closing fence (`--`, `----`, `...`).
_FRONTMATTER_LIKE = re.compile(
    r"\s*$|[ \t]|-(?:\s|$)|[^\s#:][^:]*:(?:\s|$)|[-.\u2013\u2014]+\s*$")


class _Loader(_HandlerLoader):  # type: ignore[misc,valid-type]
    """The handler's safe loader, but an impossible date (2024-13-45) stays a string."""


def _timestamp_or_text(loader: Any, node: yaml.ScalarNode) -> Any:
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
    except ValueError:
        return loader.construct_scalar(node)


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_or_text)


@dataclass(frozen=True)
class Block:
    """Where the frontmatter sits: YAML text, the file lines of its fences, and the body."""

    yaml_text: str
    open_line: int  # 1-based line of the opening `---`
    close_line: int  # 1-based line of the closing `---`
    body: str
    body_line: int


@dataclass(frozen=True)
class Note:
    """One note as read from disk; `frontmatter` is JSON-safe (dates are ISO strings)."""

    path: str
    text: str
    frontmatter: dict[str, Any]
    key_lines: dict[str, int]
    body: str
    body_line: int
    yaml_error: tuple[str, int] | None = None

    @property
    def type(self) -> str | None:
        value = self.frontmatter.get("type")
        return value if isinstance(value, str) else None

    @cached_property
    def tags(self) -> tuple[str, ...]:
        """Obsidian's tags: frontmatter `tags`/`tag` in any shape, then inline #tags."""
        return note_tags(self.frontmatter, self.body)

    @property
    def nexus(self) -> tuple[str, ...]:
        return string_list(self.frontmatter.get("nexus"))

    @property
    def relationships(self) -> dict[str, tuple[str, ...]]:
        """Relationship kind -> its raw link strings (malformed entries left out)."""
        rel = self.frontmatter.get("relationships")
        if not isinstance(rel, Mapping):
            return {}
        return {str(kind): string_list(links) for kind, links in rel.items()}

    @property
    def cluster(self) -> str | None:
        value = self.frontmatter.get("cluster")
        return value if isinstance(value, str) and value else None

    def has_tag(self, tag: str) -> bool:
        """True when the note has `tag` or a tag nested under it (`private/health`). The body's
        inline tags are read only when it holds `#tag` (any case): a note's privacy and whether
        it is archived are then known without reading every inline tag of every note."""
        wanted = tag.casefold()
        if "tags" not in self.__dict__ and not may_have_inline(self.body, wanted):
            return wanted in with_ancestors(frontmatter_tags(self.frontmatter))
        return wanted in with_ancestors(self.tags)

    @property
    def is_private(self) -> bool:
        # Fail closed: frontmatter that does not parse may be hiding a private tag, so the note
        # counts as private until it parses again. The tag is Ora's way, but a `private: true`
        # property (Obsidian users' own habit) says the same and must not be ignored. A
        # `#private` that Obsidian does not read as a tag (in code, math, a comment) still counts.
        return (self.yaml_error is not None or self.has_tag("private")
                or mentions_private(self.body)
                or any(v is True or (isinstance(v, str) and v.strip().casefold() == "true")
                       for v in property_values(self.frontmatter, ("private",))))

    @property
    def is_archived(self) -> bool:
        return self.has_tag("archived")

    @property
    def is_incubating(self) -> bool:
        return self.has_tag("incubating")

    @property
    def title(self) -> str:
        return Path(self.path).stem

    def line_of(self, key: str) -> int:
        """The file line of a top-level key, or of the opening fence when the key is absent."""
        return self.key_lines.get(key, 1)


def string_list(value: Any) -> tuple[str, ...]:
    """A YAML list of strings as a tuple; a lone string counts as a one-item list."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, str))
    return ()


def has_lone_cr(text: str) -> bool:
    """True when a line of `text` ends with a bare `\r` (classic Mac), not `\n` or `\r\n`."""
    return _LONE_CR.search(text) is not None


def reading_text(text: str) -> str:
    """`text` with each bare `\r` line end read as `\n`. Same length, same line count: every
    offset and line number in it is the file's (a CR-only note's frontmatter was not found, so
    its tags, `private` among them, were missed)."""
    return _LONE_CR.sub("\n", text) if "\r" in text else text


def split_frontmatter(text: str) -> Block | None:
    """The frontmatter block of `text`, or None when line 1 is not `---` or it never closes.
    Its YAML and body are `reading_text`'s: bare `\r` line ends become `\n`."""
    text = reading_text(text)
    start = 1 if text.startswith("\ufeff") else 0
    first_end = text.find("\n", start)
    if first_end < 0 or text[start:first_end].rstrip() != FENCE:
        return None
    line_no, pos = 2, first_end + 1
    while pos <= len(text):
        end = text.find("\n", pos)
        line_end = len(text) if end < 0 else end
        if text[pos:line_end].rstrip() == FENCE:
            body_start = len(text) if end < 0 else end + 1
            return Block(
                yaml_text=text[first_end + 1 : pos],
                open_line=1,
                close_line=line_no,
                body=text[body_start:],
                body_line=line_no + 1,
            )
        if end < 0:
            break
        line_no, pos = line_no + 1, end + 1
    return None


def opens_frontmatter(text: str) -> bool:
    """True when line 1 is the `---` fence (closed or not)."""
    first = reading_text(text).lstrip("\ufeff").split("\n", 1)[0]
    return first.rstrip() == FENCE


class _TooLarge(Exception):
    pass


def _plain(value: Any, budget: list[int]) -> Any:
    """A JSON-safe copy of a YAML value: ISO dates, string keys, lists for sets and tuples."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooLarge
    if isinstance(value, dict):
        return {_key(k): _plain(v, budget) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v, budget) for v in value]
    if isinstance(value, set):
        return sorted(_key(v) for v in value)
    if isinstance(value, dt.date):  # datetime is a date subclass
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return value


def _key(key: Any) -> str:
    if isinstance(key, dt.date):
        return key.isoformat()
    if key is None:
        return "null"
    if isinstance(key, bool):
        return str(key).lower()
    return str(key)


def _yaml_error(exc: yaml.MarkedYAMLError, offset: int) -> tuple[str, int]:
    """(message, file line) of a YAML error. An unclosed [ or { is blamed on the line that
    opened it, where the offending key is, not on the later line where the parser gave up."""
    message = exc.problem or str(exc).splitlines()[0]
    mark = exc.problem_mark or exc.context_mark
    ctx = exc.context_mark
    if ctx is not None and (exc.context or "").startswith("while parsing a flow"):
        message = f"{message} ({exc.context} opened on line {ctx.line + offset + 1})"
        mark = ctx
    return message, (mark.line if mark is not None else 0) + offset + 1


def _parse_block(block: Block) -> tuple[dict[str, Any], dict[str, int], tuple[str, int] | None]:
    offset = block.open_line  # YAML line 0 is file line open_line + 1
    loader = _Loader(block.yaml_text)
    try:
        node = loader.get_single_node()
        if node is None:
            return {}, {}, None
        if not isinstance(node, yaml.MappingNode):
            line = node.start_mark.line + offset + 1
            return {}, {}, (NOT_MAPPING, line)
        key_lines: dict[str, int] = {}
        for key_node, _ in node.value:
            name = _key(loader.construct_object(key_node, deep=True))
            line = key_node.start_mark.line + offset + 1
            if name in key_lines:  # YAML forbids it; PyYAML would silently keep the last
                return {}, {}, (f"duplicate key '{name}' (first on line {key_lines[name]})", line)
            key_lines[name] = line
        data = _plain(loader.construct_document(node), [_MAX_VALUES])
        return data, key_lines, None
    except yaml.MarkedYAMLError as exc:
        return {}, {}, _yaml_error(exc, offset)
    except _TooLarge:
        return {}, {}, (f"frontmatter expands to more than {_MAX_VALUES} values", offset + 1)
    except RecursionError:
        return {}, {}, ("frontmatter nests too deeply (a recursive alias?)", offset + 1)
    except (yaml.YAMLError, TypeError, ValueError) as exc:
        return {}, {}, (f"unreadable YAML: {exc}".splitlines()[0], offset + 1)
    finally:
        loader.dispose()


def parse_note(text: str, path: str) -> Note:
    """Parse a note's text; never raises. Invalid YAML becomes `yaml_error` (message, line)."""
    block = split_frontmatter(text)
    if block is None:
        error = None
        if opens_frontmatter(text):
            error = (UNCLOSED, 1)
        # a byte order mark is no text: `\ufeff# Title` is a heading
        return Note(path, text, {}, {}, reading_text(text).removeprefix("\ufeff"), 1, error)
    frontmatter, key_lines, error = _parse_block(block)
    return Note(path, text, frontmatter, key_lines, block.body, block.body_line, error)


def indexed_view(note: Note) -> Note:
    """The note as the index reads it. Obsidian reads a note whose opening `---` never closes as
    all body, but its first lines were written as frontmatter and may say `tags: private`: they
    are left out, from the fence up to the first line that cannot be frontmatter (a heading, an
    inline `#tag`, text that is not `key: value`), and only the rest is indexed. The cost: a note
    that merely starts with a `---` rule loses its first lines if they look like `key: value` or
    a list. Every other note is read as parsed (a closed block's body starts after its fence)."""
    if note.yaml_error is None or note.yaml_error[0] != UNCLOSED:
        return note
    lines = note.body.split("\n")
    first = 1  # after the opening fence
    while first < len(lines) and _FRONTMATTER_LIKE.match(lines[first]):
        first += 1
    return replace(note, body="\n".join(lines[first:]), body_line=first + 1)


def decode_note(data: bytes, rel: str, max_bytes: int) -> str:
    """The text of a note file's bytes; UnreadableNote for binary, non-UTF-8 or oversized."""
    if len(data) > max_bytes:
        raise UnreadableNote(
            f"{rel} is {len(data)} bytes, over the {max_bytes}-byte limit (ORA_MAX_FILE_BYTES)",
            code="file_too_large",
        )
    if b"\x00" in data:
        raise UnreadableNote(f"{rel} contains NUL bytes: a binary file", code="binary_file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableNote(
            f"{rel} is not UTF-8 (byte {exc.start}); re-save it as UTF-8", code="undecodable_file"
        ) from exc


def read_note(vault: str | Path, rel: str, max_bytes: int) -> Note:
    """Read and parse VAULT/rel; UnreadableNote for binary, non-UTF-8 or oversized files."""
    path = vault_path(vault, rel)
    size = path.stat().st_size
    if size > max_bytes:  # refuse before reading a huge file into memory
        raise UnreadableNote(
            f"{rel} is {size} bytes, over the {max_bytes}-byte limit (ORA_MAX_FILE_BYTES)",
            code="file_too_large",
        )
    return parse_note(decode_note(read_regular(path, max_bytes), rel, max_bytes), rel)
