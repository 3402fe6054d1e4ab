"""The two frontmatter forms the block splice of `frontmatter_edit.py` does not read as they
are: a frontmatter that is one flow mapping (`{a: 1, b: 2}`), edited entry by entry inside its
braces (`flow_splice`), and tabs that separate tokens (`title:<TAB>x`), read as spaces because
ruamel's scanner stops at them while the reader does not (`tabs_as_spaces`). Text only: nothing
here touches a file.
"""

from __future__ import annotations

import io
import itertools
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)

from sidecar.errors import InvalidFrontmatter
from sidecar.vault.note import FENCE, parse_note


def tabs_as_spaces(y: YAML, yaml_text: str) -> str:
    """`yaml_text` with each tab that separates tokens read as a space (`title:<TAB>My title`, a
    tab after `-` or `,`, before a comment, at a line's end): YAML 1.2 allows them and the
    reader (libyaml) reads them so, but ruamel's scanner stops at them. For reading only: the
    splice keeps every unchanged line as written, tabs and all. A tab that indents a line is
    left (YAML forbids it; both refuse it), and InvalidFrontmatter is raised when the reader
    would read the text with spaces otherwise than as written (a tab inside a plain value)."""
    if "\t" not in yaml_text:
        return yaml_text
    text = yaml_text
    for _ in range(yaml_text.count("\t")):
        try:
            for _ in y.scan(text):
                pass
        except YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            at = -1 if mark is None else mark.index
            line_start = text.rfind("\n", 0, max(at, 0)) + 1
            if at < 0 or text[at : at + 1] != "\t" or not text[line_start:at].strip():
                break  # not a separating tab: the load after this reports the error
            text = f"{text[:at]} {text[at + 1:]}"
            continue
        break
    if text == yaml_text:
        return text
    as_written = _as_read(yaml_text)
    if as_written[1] is not None:  # the reader refuses it too (`-<TAB>x`): not valid YAML
        return yaml_text
    if _as_read(text) != as_written:
        line = next(i for i, (a, b) in enumerate(zip(text, yaml_text, strict=True)) if a != b)
        raise InvalidFrontmatter(
            f"a tab on line {yaml_text.count(chr(10), 0, line) + 2} of the frontmatter is part "
            "of a value, which Ora's editor cannot keep; replace it by a space")
    return text


def _as_read(yaml_text: str) -> Any:
    """The properties the reader (`note.parse_note`) reads from a frontmatter block."""
    note = parse_note(f"{FENCE}\n{yaml_text}{FENCE}\n", "")
    return note.frontmatter, note.yaml_error


def is_flow(y: YAML, yaml_text: str) -> bool:
    """True when the frontmatter is one flow mapping (`{a: 1, b: 2}`, `{}`)."""
    for event in y.parse(yaml_text):
        if isinstance(event, MappingStartEvent):
            return bool(event.flow_style)
    return False


def render_flow(y: YAML, cm: CommentedMap, key: Any) -> str:
    """One entry of a flow mapping as ruamel writes it there (`key: value`, in flow style)."""
    one = CommentedMap()
    one[key] = cm[key]
    one.fa.set_flow_style()
    buf = io.StringIO()
    y.dump(one, buf)
    return buf.getvalue().strip()[1:-1].strip()  # without the braces around it


def _flow_entries(y: YAML, yaml_text: str, lines: list[str]) -> tuple[int, list[tuple[int, int]]]:
    """Where the entries of the top-level flow mapping of `yaml_text` are: the offset just past
    its `{`, and each entry's [start of its key, end of its value), as offsets into the text as
    written (`lines`, its line ends kept; the parser reads `yaml_text`, with LF ends)."""
    starts = list(itertools.accumulate((len(line) for line in lines), initial=0))

    def at(mark: Any) -> int:
        return int(starts[mark.line] + mark.column)

    opened, depth, key_start = 0, 0, None
    entries: list[tuple[int, int]] = []
    for event in y.parse(yaml_text):
        if isinstance(event, MappingStartEvent | SequenceStartEvent):
            depth += 1
            if depth == 1:
                opened = at(event.end_mark)
            elif depth == 2 and key_start is None:  # `{[a, b]: 1}`: a key that is a list
                raise InvalidFrontmatter("a property's name in this one-line frontmatter ({…}) "
                                         "is a list or mapping; edit it by hand")
        elif isinstance(event, MappingEndEvent | SequenceEndEvent):
            depth -= 1
            if depth == 1 and key_start is not None:  # a value that is a list or mapping
                entries.append((key_start, at(event.end_mark)))
                key_start = None
        elif isinstance(event, ScalarEvent | AliasEvent) and depth == 1:
            if key_start is None:
                key_start = at(event.start_mark)
            else:
                entries.append((key_start, at(event.end_mark)))
                key_start = None
    return opened, entries


def flow_splice(y: YAML, cm: CommentedMap, before: dict[Any, str], yaml_text: str,
                 parsed: str, lines: list[str], nl: str) -> str:
    """`yaml_text`, a top-level flow mapping (`{a: 1, b: 2}`), with only the entries whose
    rendering changed written again, in flow style where they stand; a removed entry goes with
    the separator after it (before it, when last), a new one is added before the `}`. Every
    other byte, the unchanged entries' spelling and the separators included, is kept.
    `parsed` is the text as ruamel reads it (LF line ends, `tabs_as_spaces`)."""
    opened, spans = _flow_entries(y, parsed, lines)
    if len(spans) != len(before):
        raise InvalidFrontmatter("Ora cannot find each property of this one-line frontmatter "
                                 "({…}) where it is written; edit it by hand")
    items: list[list[str | None]] = []  # [entry, separator after it]
    for i, (key, (start, end)) in enumerate(zip(before, spans, strict=True)):
        sep = yaml_text[end : spans[i + 1][0]] if i + 1 < len(spans) else None
        if key not in cm:
            if sep is None and items:
                items[-1][1] = None
            continue
        now = render_flow(y, cm, key)
        items.append([yaml_text[start:end] if now == before[key] else now.replace("\n", nl),
                      sep])
    for key in cm:
        if key not in before:
            if items and items[-1][1] is None:
                items[-1][1] = ", "
            items.append([render_flow(y, cm, key).replace("\n", nl), None])
    head = yaml_text[: spans[0][0]] if spans else yaml_text[:opened]
    tail = yaml_text[spans[-1][1] :] if spans else yaml_text[opened:]
    if not spans and items:  # `{}` filled: `{a: 1}`, whatever spacing it had inside
        head, tail = head.rstrip(" "), tail.lstrip(" ")
    return head + "".join(f"{entry}{sep or ''}" for entry, sep in items) + tail
