"""Round-trip edits of a note's YAML frontmatter, as text: nothing here touches a file.

`rewrite_frontmatter` loads the frontmatter block with ruamel.yaml's round-trip loader, lets the
caller mutate the mapping, then splices: every top-level key whose rendering did not change keeps
its original bytes, and only changed or new keys are rendered by ruamel (in the file's own list
indentation). The body, fences, comments between keys, quoting, key order and line endings are
left byte for byte. A frontmatter that is one flow mapping (`{a: 1, b: 2}`) is spliced the same
way, entry by entry inside its braces, and a tab the reader takes as a space (`title:<TAB>x`) is
read as one for ruamel, whose scanner stops at it, and kept as written: those two forms are
`frontmatter_forms.py`'s. YAML it cannot edit that way (anchors and aliases, mixed line ends, keys
not on lines of their own, a tab inside a value, forms that would not read back) is refused
with InvalidFrontmatter. The mutations other modules compose (`set_value`, `add_tag`,
`add_relationship`) live here too.
"""

from __future__ import annotations

import datetime as dt
import io
import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq, TaggedScalar
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.nodes import MappingNode, ScalarNode
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from sidecar.errors import InvalidFrontmatter
from sidecar.vault.frontmatter_forms import flow_splice, is_flow, render_flow, tabs_as_spaces
from sidecar.vault.links import link_target
from sidecar.vault.note import (
    FENCE,
    has_lone_cr,
    opens_frontmatter,
    parse_note,
    split_frontmatter,
)
from sidecar.vault.properties import property_key
from sidecar.vault.tags import clean_tag, tag_properties, tag_words

Mutation = Callable[[CommentedMap], None]
_DASH = re.compile(r"^( *)- ")
_KEY_LINE = re.compile(r"^( *)[^#\s-][^#]*:\s*(#.*)?$")
_EOL_COMMENT = re.compile(r"(?<=\S)([ \t]+)(#)")
_TAG = re.compile(r"!\S*[ \t]+")


# ---- small mutations other modules compose ------------------------------------------------


def set_value(cm: CommentedMap, key: str, value: Any) -> None:
    """Set a top-level property in place under the note's own spelling of its name (`Date
    Created` for `date created`, as Obsidian reads it); a new key goes after the existing ones."""
    cm[property_key(cm, key) or key] = value


def _holds_tag(items: list[Any], tag: str) -> bool:
    return any(isinstance(t, str) and clean_tag(t).casefold() == clean_tag(tag).casefold()
               for t in items)


def add_tag(cm: CommentedMap, tag: str) -> None:
    """Add `tag` to the note's tags unless present (case-insensitively, `#` or not), in the
    property that holds them (`tags`, else `tag` or `Tags`: Obsidian reads any), creating
    `tags` if there is none. A string of several tags becomes the list of them."""
    names = {name.casefold() for name in tag_properties()}
    key = "tags" if "tags" in cm else next(
        (k for k in cm if isinstance(k, str) and k.casefold() in names), "tags")
    tags = cm.get(key)
    if tags is None:
        cm[key] = CommentedSeq([tag])
    elif isinstance(tags, str):
        words = tag_words(tags)
        if not _holds_tag(words, tag):
            cm[key] = CommentedSeq([*words, tag])
    elif isinstance(tags, list):
        if not _holds_tag(tags, tag):
            tags.append(tag)
    else:
        raise InvalidFrontmatter(f"`{key}` is neither a list nor a string; fix it by hand first")


def add_relationship(cm: CommentedMap, kind: str, wikilink: str) -> None:
    """Add `wikilink` under `relationships.<kind>` unless that target is already there."""
    rel = cm.get("relationships")
    if rel is None:
        rel = cm["relationships"] = CommentedMap()
    if not isinstance(rel, dict):
        raise InvalidFrontmatter("`relationships` is not a mapping; fix it by hand first")
    links = rel.get(kind)
    if links is None:
        links = rel[kind] = CommentedSeq()
    if not isinstance(links, list):
        raise InvalidFrontmatter(f"`relationships.{kind}` is not a list; fix it by hand first")
    target = (link_target(wikilink) or wikilink).casefold()
    if not any(isinstance(v, str) and (link_target(v) or "").casefold() == target for v in links):
        links.append(DoubleQuotedScalarString(wikilink))  # Obsidian writes links in "…"


# ---- the splice --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Span:
    """A top-level key's lines [start, end) and the blank/comment gap lines after it."""

    start: int
    end: int
    gap_end: int


def _lines(text: str) -> list[str]:
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


def _odd_breaks(text: str) -> bool:
    """True when YAML would count line breaks we do not split on (spans would misalign)."""
    return any(c in text for c in "\x85\u2028\u2029") or "\r" in text.replace("\r\n", "")


def _is_gap(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


class _Constructor(RoundTripConstructor):
    """Round-trip constructor that keeps an impossible date (2024-13-45) as text."""

    def construct_yaml_timestamp(self, node: Any, values: Any = None) -> Any:
        try:
            return super().construct_yaml_timestamp(node, values)
        except ValueError:
            return self.construct_scalar(node)


_Constructor.add_constructor("tag:yaml.org,2002:timestamp", _Constructor.construct_yaml_timestamp)


def _yaml(lines: list[str]) -> YAML:
    """A round-trip YAML whose list indentation matches the file's first block list."""
    y = YAML(typ="rt")
    y.Constructor = _Constructor
    y.preserve_quotes = True
    y.width = 4096  # never re-wrap a long value
    offset = 0
    for i, line in enumerate(lines):
        dash = _DASH.match(line)
        if not dash:
            continue
        indent = len(dash.group(1))
        for prev in reversed(lines[:i]):
            key = _KEY_LINE.match(prev.rstrip("\r\n"))
            if key and len(key.group(1)) <= indent:
                offset = indent - len(key.group(1))
                break
        break
    y.indent(mapping=2, sequence=offset + 2, offset=offset)
    return y


def _spans(cm: CommentedMap, lines: list[str]) -> dict[Any, _Span] | None:
    """Line spans of the top-level keys, or None when keys do not sit on lines of their own."""
    if cm.fa.flow_style():
        return None
    try:
        starts = [cm.lc.key(k)[0] for k in cm]
    except (AttributeError, KeyError, TypeError):
        return None
    if any(b <= a for a, b in itertools.pairwise(starts)):
        return None
    spans: dict[Any, _Span] = {}
    for i, key in enumerate(cm):
        gap_end = starts[i + 1] if i + 1 < len(starts) else len(lines)
        end = gap_end
        while end > starts[i] + 1 and _is_gap(lines[end - 1]):
            end -= 1
        spans[key] = _Span(starts[i], end, gap_end)
    return spans


def _render(y: YAML, cm: CommentedMap, key: Any) -> str:
    """One top-level key as ruamel writes it, without the comment lines around it."""
    one = CommentedMap()
    one[key] = cm[key]
    if key in cm.ca.items:
        one.ca.items[key] = cm.ca.items[key]
    buf = io.StringIO()
    y.dump(one, buf)
    lines = buf.getvalue().splitlines(keepends=True)
    while lines and _is_gap(lines[0]):
        lines.pop(0)
    while lines and _is_gap(lines[-1]):
        lines.pop()
    return "".join(lines)


def line_ending(text: str) -> str:
    """The line end a text uses (its first one; `\\r` when it has only those)."""
    if "\n" not in text and "\r" in text:
        return "\r"  # classic Mac line ends
    end = text.find("\n")
    return "\r\n" if end > 0 and text[end - 1] == "\r" else "\n"


def _load(y: YAML, yaml_text: str) -> CommentedMap:
    try:
        data = y.load(yaml_text)
    except (YAMLError, ValueError, RecursionError) as exc:
        raise InvalidFrontmatter(
            f"frontmatter is not valid YAML; fix it first ({_yaml_problem(exc)})") from exc
    if data is None:
        return CommentedMap()
    if not isinstance(data, CommentedMap):
        raise InvalidFrontmatter("frontmatter is not a mapping of properties; fix it first")
    return data


def _yaml_problem(exc: BaseException) -> str:
    """One line saying what is wrong and where (the file line: the block starts on line 2)."""
    problem = getattr(exc, "problem", None)
    mark = getattr(exc, "problem_mark", None)
    if problem and mark is not None:
        return f"{problem} on line {mark.line + 2}"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _drop_gap_comments(rendered: str, own: list[str], gap: list[str]) -> str:
    """`rendered` without the comment and blank lines ruamel carried over from the key's gap.

    ruamel attaches the comments that follow a key (say, the last lines before the closing
    fence) to the key's last value, so a fresh rendering repeats them while the gap lines are
    kept as they are. Such a line is dropped when it is one of the gap's and the key's own
    lines do not have that many of it.
    """
    budget: dict[str, int] = {}
    for line in own:
        if _is_gap(line):
            budget[line.strip()] = budget.get(line.strip(), 0) + 1
    carried = {line.strip() for line in gap if _is_gap(line)}
    kept: list[str] = []
    for line in rendered.splitlines(keepends=True):
        if _is_gap(line) and line.strip() in carried:
            if budget.get(line.strip(), 0) == 0:
                continue
            budget[line.strip()] -= 1
        kept.append(line)
    return "".join(kept)


def _keep_comment_gaps(y: YAML, rendered: str, own: list[str]) -> str:
    """`rendered` with each end-of-line comment the value has outgrown set off by the spaces
    (or tabs) the user put before it (ruamel keeps a comment's column while the value ends
    before it, else leaves one space: `[a]  # kept` became `[a, b] # kept`). Kept only when the key
    still reads as ruamel wrote it, so a `#` inside a quoted value is never touched."""
    gaps: dict[str, str] = {}
    for line in own:
        if not _is_gap(line):
            text = line.rstrip("\r\n")
            for found in _EOL_COMMENT.finditer(text):
                gaps.setdefault(text[found.start(2):], found.group(1))
    lines = rendered.splitlines(keepends=True)
    for i, line in enumerate(lines):
        text = line.rstrip("\n")
        for found in _EOL_COMMENT.finditer(text):
            comment = text[found.start(2):]
            if found.group(1) == " " and gaps.get(comment, " ") != " ":
                lines[i] = f"{text[: found.start()]}{gaps[comment]}{line[found.start(2):]}"
                break
    kept = "".join(lines)
    if kept == rendered:
        return rendered
    try:
        same = _plain(y.load(tabs_as_spaces(y, kept))) == _plain(y.load(rendered))
    except (YAMLError, ValueError, RecursionError, InvalidFrontmatter):
        same = False
    return kept if same else rendered


@dataclass(frozen=True)
class _Scalar:
    """Where a top-level key's one-line scalar value is written: its line and [start, end)."""

    line: int
    start: int
    end: int


def _scalars(y: YAML, parsed: str, keys: list[Any]) -> dict[Any, _Scalar]:
    """The top-level keys (`keys`, as loaded, in order) whose value is a scalar on the key's
    own line, with where it is (columns of `parsed`, the file's own: a tab read as a space)."""
    try:
        root = y.compose(parsed)
    except (YAMLError, ValueError, RecursionError):
        return {}
    if not isinstance(root, MappingNode):
        return {}
    found: dict[Any, _Scalar] = {}
    for (key_node, node), key in zip(root.value, keys, strict=False):
        start, end = node.start_mark, node.end_mark
        if isinstance(node, ScalarNode) and start.line == end.line == key_node.start_mark.line:
            found[key] = _Scalar(start.line, start.column, end.column)
    return found


def _as_text(value: Any) -> str | None:
    """The text a new value keeps when written in the quotes the old one had (a string or a
    date; a number or boolean would become a string, so it is written as ruamel writes it)."""
    if isinstance(value, TaggedScalar):
        return None
    if isinstance(value, str):
        return str(value)
    if isinstance(value, dt.date):
        return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    return None


def _quoted(text: str, style: str) -> str | None:
    if style == "'":
        return None if "\n" in text else "'" + text.replace("'", "''") + "'"
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML double-quoted one


def _keep_scalar_form(y: YAML, cm: CommentedMap, key: Any, rendered: str, line: str,
                      old: _Scalar) -> str | None:
    """The key's line as written with only its value replaced, in the old value's form: its
    explicit tag (`!!str`), its quotes when the new value can be written in them, and every
    byte around it (the key's spelling, a tab before an end-of-line comment). None when the
    new value is not one scalar on one line or that form would not read as the value meant;
    a value that now reads as the text in quotes becomes the one in `cm`."""
    value = cm[key]
    if isinstance(value, dict | list) or rendered.count("\n") != 1:
        return None
    try:
        root = y.compose(rendered)
    except (YAMLError, ValueError, RecursionError):
        return None
    node = root.value[0][1] if isinstance(root, MappingNode) and root.value else None
    if not isinstance(node, ScalarNode) or node.start_mark.line != node.end_mark.line:
        return None
    text = line.rstrip("\r\n")
    written, tail = text[old.start : old.end], text[old.end :]
    if rendered[node.end_mark.index :].strip() != tail.replace("\t", " ").strip():
        return None  # the comment after the value is not the one ruamel writes
    tag = _TAG.match(written)
    token = rendered[node.start_mark.index : node.end_mark.index]
    style = written[tag.end() if tag else 0 :][:1]
    meant = _as_text(value)
    if style in ("'", '"') and meant is not None and node.style != style:
        token = _quoted(meant, style) or token
    if tag and not token.startswith("!"):
        token = tag.group() + token
    gap = len(tail) - len(tail.lstrip(" "))
    if tail[gap:].startswith("#") and len(token) < len(written):  # a shorter value: the
        tail = " " * (len(written) - len(token)) + tail  # comment keeps its column, as ruamel's
    kept = f"{text[: old.start]}{token}{tail}\n"
    try:
        again = y.load(tabs_as_spaces(y, kept))
    except (YAMLError, ValueError, RecursionError, InvalidFrontmatter):
        return None
    if not isinstance(again, dict) or list(again) != [key]:
        return None
    now = again[key]
    as_text = now.value if isinstance(now, TaggedScalar) else now
    if _plain(now) != _plain(value):
        if meant is None or not isinstance(as_text, str) or as_text != meant:
            return None
        cm[key] = now  # the same text, kept a string as the user wrote it
    return kept


def has_anchors(y: YAML, yaml_text: str) -> bool:
    """True when the YAML defines an anchor or uses an alias anywhere."""
    return any(isinstance(event, AliasEvent) or getattr(event, "anchor", None)
               for event in y.parse(yaml_text))


def _refuse_mixed_line_ends(text: str) -> None:
    """InvalidFrontmatter when a bare `\r` line end sits in or before the frontmatter of a note
    that also has `\n` ones: the reader splits lines there, the splice cannot keep those bytes."""
    block = split_frontmatter(text)
    if has_lone_cr(text[: len(text) - len(block.body)] if block else text.split("\n", 1)[0]):
        raise InvalidFrontmatter(
            "the frontmatter mixes classic Mac line ends (a bare CR) with others, so Ora cannot "
            "edit it and keep every other byte; re-save the note with one kind of line end")


def rewrite_frontmatter(text: str, mutate: Mutation) -> str:
    """`text` with its frontmatter mutated; every byte outside the changed keys is kept."""
    if has_lone_cr(text):
        if "\n" not in text:  # classic Mac line ends throughout: edit as `\n`, put each back
            return rewrite_frontmatter(text.replace("\r", "\n"), mutate).replace("\n", "\r")
        _refuse_mixed_line_ends(text)
    nl = line_ending(text)
    block = split_frontmatter(text)
    if block is None:
        if opens_frontmatter(text):
            raise InvalidFrontmatter("frontmatter opened on line 1 is never closed; fix it first")
        cm = CommentedMap()
        mutate(cm)
        if not cm:
            return text
        y = _yaml([])
        rendered = "".join(_render(y, cm, k) for k in cm).replace("\n", nl)
        bom = "\ufeff" if text.startswith("\ufeff") else ""
        return f"{bom}{FENCE}{nl}{rendered}{FENCE}{nl}{text.removeprefix(bom)}"

    lines = _lines(block.yaml_text)
    clean = [line.rstrip("\r\n") + "\n" for line in lines]
    y = _yaml(clean)
    parsed = tabs_as_spaces(y, "".join(clean))  # what ruamel reads; `lines` are kept as written
    cm = _load(y, parsed)
    spans = None if _odd_breaks(block.yaml_text) else _spans(cm, lines)
    before = {k: _render(y, cm, k) for k in cm}
    flow = is_flow(y, parsed)
    scalars = {} if flow or spans is None else _scalars(y, parsed, list(cm))
    flow_before = {k: render_flow(y, cm, k) for k in cm} if flow else {}
    mutate(cm)

    def fresh(key: Any) -> str:
        out = _render(y, cm, key)
        if spans is not None and key in spans:
            span = spans[key]
            own = lines[span.start : span.end]
            out = _drop_gap_comments(out, own, lines[span.end : span.gap_end])
            old = scalars.get(key)
            kept = None
            if old is not None and span.end == span.start + 1 and old.line == span.start:
                kept = _keep_scalar_form(y, cm, key, out, lines[old.line], old)
            out = kept if kept is not None else _keep_comment_gaps(y, out, own)
        return out.replace("\n", nl)

    if flow:  # `{a: 1, b: 2}`: each entry spliced inside the braces
        new_yaml = flow_splice(y, cm, flow_before, block.yaml_text, parsed, lines, nl)
    elif spans is None:  # keys not on lines of their own: no per-key bytes to keep
        raise InvalidFrontmatter(
            "the frontmatter's keys do not each start a line of their own (or it holds line "
            "breaks other than CR and LF), so Ora cannot edit it and keep every other byte; "
            "edit it by hand")
    else:
        first = min((s.start for s in spans.values()), default=len(lines))
        out = lines[:first]
        for key, span in spans.items():
            if key in cm:
                same = _render(y, cm, key) == before[key]
                out.append("".join(lines[span.start : span.end]) if same else fresh(key))
            out.extend(lines[span.end : span.gap_end])
        if out and not out[-1].endswith("\n"):
            out[-1] += nl
        out.extend(fresh(k) for k in cm if k not in spans)
        new_yaml = "".join(out)

    if new_yaml != block.yaml_text and has_anchors(y, parsed):
        raise InvalidFrontmatter(
            "frontmatter uses YAML anchors or aliases (&name, *name); an edit would expand "
            "them, so Ora leaves it alone: edit it by hand")
    head = text[: len(text) - len(block.body)]
    opening_end = head.index("\n") + 1
    closing = head[opening_end + len(block.yaml_text) :]
    result = head[:opening_end] + new_yaml + closing + text[len(head) :]  # the body as it is
    if new_yaml != block.yaml_text:
        _check_reads_back(y, new_yaml, cm, text, result)
    return result


def _plain(value: Any) -> Any:
    """A YAML value as comparable data: a custom-tagged scalar (`!foo bar`) has no equality of
    its own, so it compares as its tag and text."""
    if isinstance(value, TaggedScalar):
        return ("tagged", str(value.tag), value.value)
    if isinstance(value, dict):
        return [(_plain(k), _plain(v)) for k, v in value.items()]
    if isinstance(value, list | tuple | set):
        return [_plain(v) for v in value]
    return value


def _check_reads_back(y: YAML, new_yaml: str, meant: CommentedMap, before: str,
                      after: str) -> None:
    """Refuse an edit whose frontmatter would not read back as the properties it meant to write
    (the splice keeps the file's own lines, and a few YAML forms, such as a `...` document end
    inside the block, would change meaning or stop parsing around a new key), saying what
    failed: the block no longer parsing, or which properties would read otherwise."""
    why = ""
    try:
        again = y.load(tabs_as_spaces(
            y, "".join(line.rstrip("\r\n") + "\n" for line in _lines(new_yaml))))
    except (YAMLError, ValueError, RecursionError, InvalidFrontmatter) as exc:
        again, why = None, f"it would no longer parse ({_yaml_problem(exc)})"
    if not why and _plain(again) != _plain(meant):
        got = again if isinstance(again, dict) else {}
        keys = [str(k) for k in [*meant, *(k for k in got if k not in meant)]
                if k not in got or k not in meant or _plain(got[k]) != _plain(meant[k])]
        why = ("it would read back otherwise: " + ", ".join(f"`{k}`" for k in keys[:5])
               if keys else "it would read back as other properties")
    if not why and parse_note(after, "").yaml_error is not None \
            and parse_note(before, "").yaml_error is None:
        why = "the note's reader would no longer parse it"
    if why:
        raise InvalidFrontmatter(f"Ora's edit of this frontmatter would not read back as "
                                 f"written: {why}; edit it by hand")
