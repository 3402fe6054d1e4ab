"""ora.yaml's text around what the round-trip editor changes: its byte-order mark, line ends,
document markers and indentation, taken off before ruamel parses the file and put back on what
it writes (settings_edit.py).

ruamel keeps comments, order and quoting, but on its own it writes every line end as `\\n`, drops
a byte-order mark, a `---` line (and the comments before it) and a `...` line (and what follows
it), indents by its own settings and wraps long lines. So an edit of one list re-wrote lines the
user never touched. What ruamel still changes: a multi-line quoted string is written on one line
(the same value), a comment on the `---` line moves below it, and a file indented two ways is
written one way (the first nested mapping's and list's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

__all__ = ["Layout", "indents", "split_layout"]

_BOM = "\ufeff"
_START = re.compile(r"---(?:[ \t]+#.*)?[ \t]*")  # the start marker alone, or with a comment
_END = re.compile(r"\.\.\.(?:[ \t]+#.*)?[ \t]*")


@dataclass(frozen=True)
class Layout:
    """How a file's text is laid out around its YAML (see `split_layout`)."""

    bom: bool = False
    newline: str = "\n"
    head: str = ""  # comments and directives before the document, and its `---` line
    tail: str = ""  # its `...` line and what follows it

    def join(self, dumped: str) -> bytes:
        """ruamel's output (dumped with an explicit start when there is a head) laid out as the
        file was: its head and tail put back, its line ends, its byte-order mark."""
        if self.head:
            lines = dumped.split("\n")
            start = next((i for i, line in enumerate(lines) if line == "---"), None)
            if start is not None:  # ruamel's directives and `---` give way to the file's own
                dumped = self.head + "\n".join(lines[start + 1:])
        text = dumped + self.tail
        if self.newline != "\n":
            text = text.replace("\n", self.newline)
        return ((_BOM if self.bom else "") + text).encode("utf-8")


def _newline(text: str) -> str:
    """The file's most common line end (`\\n` on a tie or none)."""
    crlf = text.count("\r\n")
    counts = {"\n": text.count("\n") - crlf, "\r\n": crlf, "\r": text.count("\r") - crlf}
    return max(counts, key=lambda end: counts[end])  # the first of equals: `\n`


def _is_aside(line: str) -> bool:
    """A line outside the document's content: blank, a comment or a directive."""
    stripped = line.strip()
    return not stripped or stripped.startswith("#") or line.startswith("%")


def split_layout(text: str) -> tuple[Layout, str]:
    """(layout, the YAML for ruamel to parse) of a file's decoded text. The YAML keeps the
    directives (`%YAML 1.1` still applies) and a bare `---` after them; its lines end in `\\n`."""
    bom = text.startswith(_BOM)
    text = text.removeprefix(_BOM)
    newline = _newline(text)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    first = next((i for i, line in enumerate(lines) if not _is_aside(line)), len(lines))
    head = ""
    if first < len(lines) and _START.fullmatch(lines[first]):
        head = "".join(f"{line}\n" for line in lines[:first + 1])
        directives = [line for line in lines[:first] if line.startswith("%")]
        lines = [*directives, "---", *lines[first + 1:]]
    last = next((i for i in range(len(lines) - 1, -1, -1) if not _is_aside(lines[i])), None)
    tail = ""
    if last is not None and _END.fullmatch(lines[last]):
        tail = "\n".join(lines[last:])
        lines = [*lines[:last], ""]
    return Layout(bom, newline, head, tail), "\n".join(lines)


def indents(doc: Any, text: str) -> tuple[int, int, int]:
    """(mapping, sequence, offset) for ruamel's `YAML.indent`, as `text` (the YAML `doc` was
    parsed from) indents its first nested block mapping and its first block list under a key;
    what it has none of follows the other, else ruamel's defaults as Ora set them (2, 4, 2)."""
    lines = text.split("\n")
    mapping: int | None = None
    sequence: tuple[int, int] | None = None
    stack = [doc]
    while stack and (mapping is None or sequence is None):
        node = stack.pop(0)
        if isinstance(node, CommentedSeq):
            stack.extend(item for item in node if isinstance(item, (CommentedMap, CommentedSeq)))
            continue
        if not isinstance(node, CommentedMap):
            continue
        for key, value in node.items():
            if not isinstance(value, (CommentedMap, CommentedSeq)):
                continue
            stack.append(value)
            if not value or value.fa.flow_style():
                continue
            key_line, key_col = node.lc.key(key)
            if isinstance(value, CommentedMap):
                line, col = value.lc.key(next(iter(value)))
                if mapping is None and line > key_line:
                    mapping = col - key_col
            else:
                line, col = value.lc.item(0)
                dash = lines[line][:col].rstrip() if line < len(lines) else ""
                if sequence is None and line > key_line and dash.endswith("-"):
                    sequence = (col - key_col, len(dash) - 1 - key_col)
    if mapping is None:
        mapping = max(sequence[1], 2) if sequence is not None else 2
    if sequence is None:
        sequence = (mapping + 2, mapping)
    item, offset = sequence
    return max(mapping, 1), max(item, offset + 2), max(offset, 0)
