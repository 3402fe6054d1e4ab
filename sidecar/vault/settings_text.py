"""ora.yaml's text around what the round-trip editor changes: its byte-order mark, line ends,
document markers and indentation, taken off before ruamel parses the file and put back on what
it writes (settings_edit.py).

ruamel keeps comments, order and quoting, but on its own it writes every line end as `\\n`, drops
a byte-order mark, a `---` line (and the comments before it) and a `...` line (and what follows
it), indents by its own settings and wraps long lines. So an edit of one list re-wrote lines the
user never touched. What ruamel still changes: a multi-line quoted string is written on one line
(the same value), a comment on the `---` line moves below it, and a file indented two ways is
written one way (the first nested mapping's and list's).

An edit that only appends entries to a list, or only removes some, is spliced into the text
line by line instead (`list_spots`, `splice_list`): every other byte stays as written, comments
above, below and between the entries included, so adding an entry then removing it gives the
file's bytes back. A flow list's entry goes with its comma and, when its line holds nothing else,
that line and its own comment; other entries' comments stay. The caller reads the splice back,
checks it kept every comment it should (`keeps_comments`: the read-back compares values only),
and falls back to ruamel when it would not read as meant.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import yaml
from ruamel.yaml.comments import CommentedMap, CommentedSeq

__all__ = [
    "Layout",
    "ListSpots",
    "indents",
    "keeps_comments",
    "list_spots",
    "splice_list",
    "split_layout",
]

_BOM = "\ufeff"
_START = re.compile(r"---(?:[ \t]+#.*)?[ \t]*")  # the start marker alone, or with a comment
_END = re.compile(r"\.\.\.(?:[ \t]+#.*)?[ \t]*")
_DASH = re.compile(r"[ \t]*-[ \t]+")  # a block entry's indent and dash, before its value
_COMMENTED = re.compile(r"(?P<code>.*?)(?P<comment>[ \t]+#.*)?")  # the first ` #` starts it
_TAG = re.compile(r"(?:![^ \t\n]*)?[ \t]*")  # a flow list's tag (`!!seq [`) before its `[`
_SPACES = re.compile(r"[ \t]*")
_COMMENT = re.compile(r"#[^\n]*")


@dataclass(frozen=True)
class Layout:
    """How a file's text is laid out around its YAML (see `split_layout`)."""

    bom: bool = False
    newline: str = "\n"
    head: str = ""  # comments and directives before the document, and its `---` line
    tail: str = ""  # its `...` line and what follows it
    final_newline: bool = True  # whether its last line ends in one (ruamel always writes one)

    def join(self, dumped: str) -> bytes:
        """ruamel's output (dumped with an explicit start when there is a head) laid out as the
        file was: its head and tail put back, its line ends, its byte-order mark, no newline
        after its last line when it had none."""
        if self.head:
            lines = dumped.split("\n")
            start = next((i for i, line in enumerate(lines) if line == "---"), None)
            if start is not None:  # ruamel's directives and `---` give way to the file's own
                dumped = self.head + "\n".join(lines[start + 1:])
        if not self.final_newline and not self.tail:
            dumped = dumped.removesuffix("\n")
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
    final_newline = not text or text.endswith(("\n", "\r"))
    return Layout(bom, newline, head, tail, final_newline), "\n".join(lines)


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


@dataclass(frozen=True)
class ListSpots:
    """Where a list under a key stands in the YAML it was parsed from (0-based line, column):
    its key, its node (a flow list's tag or `[`), each entry's value. Taken before an edit of
    the list, which ruamel does not move them along with."""

    key: tuple[int, int]
    node: tuple[int, int]
    items: tuple[tuple[int, int], ...]
    flow: bool


def list_spots(parent: Any, key: Any) -> ListSpots | None:
    """The spots of the list at `parent[key]`, or None when no list is written there."""
    seq = parent.get(key) if isinstance(parent, CommentedMap) else None
    if not isinstance(seq, CommentedSeq):
        return None
    key_row, key_col = parent.lc.key(key)
    items = tuple((int(row), int(col)) for row, col in (seq.lc.item(i) for i in range(len(seq))))
    return ListSpots((int(key_row), int(key_col)), (int(seq.lc.line), int(seq.lc.col)), items,
                     not seq or bool(seq.fa.flow_style()))  # an empty list is written `[]`


def splice_list(text: str, spots: ListSpots, old: Sequence[Any], new: Sequence[Any],
                render: Callable[[Any], str | None]) -> str | None:
    """`text` (the YAML the list at `spots` was parsed from, as `old`) with that list edited to
    `new` in place, every other byte as written: an entry removed with its line (a block list)
    or its comma (a flow list: its line too when it holds nothing else), its own end-of-line
    comment with it, every other comment kept (`_flow_cuts`); an entry appended on a line
    of its own after the last (indented as that one) or after the last in the brackets; a block
    list emptied becomes `[]`. `render` writes an entry on one line. None when the splice cannot
    do it: `new` is not `old` with entries only removed or only appended, an entry takes more
    than one line, or the list is written in a form the splice does not know."""
    changes = _changes(old, new)
    if changes is None:
        return None
    removed, appended = changes
    added: list[str] = []
    for entry in appended:
        written = render(entry)
        if written is None:
            return None
        added.append(written)
    if spots.flow:
        return _flow(text, spots, removed, added)
    lines = text.split("\n")
    return "\n".join(lines) if _block(lines, spots, removed, added) else None


def keeps_comments(before: str, after: str, spots: ListSpots, old: Sequence[Any],
                   new: Sequence[Any]) -> bool:
    """Whether `after`, the YAML `before` with the list at `spots` edited from `old` to `new`,
    still has every comment of `before`, in order, but a removed entry's own end-of-line comment
    (on its line, which holds nothing else). The splice's read-back compares values only, which
    a lost comment never changes. False when `new` is no splice's edit of `old` or either text
    does not scan."""
    changes = _changes(old, new)
    was, now = _scanned(before), _scanned(after)
    if changes is None or was is None or now is None:
        return False
    tokens, comments = was
    own = {spots.items[i][0] for i in changes[0]}
    wanted = [text for row, text in comments if row not in own or not _alone(tokens, row)]
    have = iter(text for _, text in now[1])
    return all(any(got == text for got in have) for text in wanted)  # a subsequence


def _scanned(text: str) -> tuple[list[Any], list[tuple[int, str]]] | None:
    """(PyYAML's tokens of `text`, its comments: each one's 0-based line and text from `#`),
    None when it does not scan. A comment is a `#` outside every token (one in a quoted or
    block scalar is the scalar's) to its line's end."""
    try:
        tokens = list(yaml.scan(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        return None
    ends = [i for i, char in enumerate(text) if char == "\n"]
    comments: list[tuple[int, str]] = []
    at = 0
    for start, end in [(t.start_mark.index, t.end_mark.index) for t in tokens] + [(len(text),) * 2]:
        for found in _COMMENT.finditer(text, at, max(at, start)):
            comments.append((bisect_left(ends, found.start()), found.group().rstrip()))
        at = max(at, end)
    return tokens, comments


def _alone(tokens: list[Any], row: int) -> bool:
    """Whether line `row` holds one entry alone: a scalar, perhaps tagged, with its `-` or `,`."""
    on = [t for t in tokens if t.start_mark.line == row and t.end_mark.index > t.start_mark.index]
    return (sum(isinstance(t, yaml.ScalarToken) for t in on) == 1
            and all(isinstance(t, _ENTRY_TOKENS) for t in on))


_ENTRY_TOKENS = (yaml.ScalarToken, yaml.TagToken, yaml.BlockEntryToken, yaml.FlowEntryToken)


def _changes(old: Sequence[Any], new: Sequence[Any]) -> tuple[list[int], list[Any]] | None:
    """(the indices of `old` that `new` dropped, the entries `new` appended), or None when `new`
    is not `old` (the same objects, in order) with entries only removed or only appended."""
    if len(new) >= len(old):
        same = all(a is b for a, b in zip(old, new[:len(old)], strict=True))
        return ([], list(new[len(old):])) if same else None
    removed: list[int] = []
    kept = 0
    for i, item in enumerate(old):
        if kept < len(new) and new[kept] is item:
            kept += 1
        else:
            removed.append(i)
    return (removed, []) if kept == len(new) else None


def _block(lines: list[str], spots: ListSpots, removed: list[int], added: list[str]) -> bool:
    """Splice a block list in `lines` (see `splice_list`); False, `lines` untouched, when its
    entries are not each on a line of their own below the key, after a dash."""
    rows = [row for row, _ in spots.items]
    dashes = [lines[row][:col] if row < len(lines) else "" for row, col in spots.items]
    if (not rows or rows[0] <= spots.key[0] or any(a >= b for a, b in pairwise(rows))
            or not all(_DASH.fullmatch(dash) for dash in dashes)):
        return False
    lines[rows[-1] + 1:rows[-1] + 1] = [dashes[-1] + entry for entry in added]
    for i in reversed(removed):
        del lines[rows[i]]
    if len(removed) == len(rows):  # still a list, read as empty: `key: []`
        row, col = spots.key
        lines[row] = lines[row][:col] + _emptied(lines[row][col:])
    return True


def _emptied(line: str) -> str:
    """A key's line (from the key on) with `[]` after its `:` or tag, its comment kept."""
    match = _COMMENTED.fullmatch(line)
    code, comment = (match["code"], match["comment"] or "") if match else (line, "")
    value = code.rstrip()
    return f"{value} []{code[len(value):]}{comment}"


def _flow(text: str, spots: ListSpots, removed: list[int], added: list[str]) -> str | None:
    """`text` with a flow list spliced (see `splice_list`): an entry removed with the comma
    before it (the last) or after it (any other), the last first (`_flow_cuts`; None where
    that cannot); added ones after the last, each after the
    separator the last two have (`, ` else), so removing the entry again gives `text` back."""
    starts = [0]
    for line in text.split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    opening = _TAG.match(text, starts[spots.node[0]] + spots.node[1])
    if opening is None or text[opening.end():opening.end() + 1] != "[":
        return None
    spans = [[starts[row] + col, _flow_entry_end(text, starts[row] + col)]
             for row, col in spots.items]
    if added:
        if not spans:
            at = opening.end() + 1
            return text[:at] + ", ".join(added) + text[at:]
        end = spans[-1][1]
        if text[end:].lstrip()[:1] == ",":  # a trailing comma: no separator of its own
            return None
        between = text[spans[-2][1]:spans[-1][0]] if len(spans) > 1 else ""
        sep = between if between.lstrip().startswith(",") and "#" not in between else ", "
        return text[:end] + "".join(sep + entry for entry in added) + text[end:]
    for i in reversed(removed):
        cuts = _flow_cuts(text, spans, i)
        if cuts is None:
            return None
        for begin, end in reversed(cuts):
            text = text[:begin] + text[end:]
        gone = sum(end - begin for begin, end in cuts)
        del spans[i]
        for span in spans[i:]:  # the entries after the cuts move back by their length
            span[0] -= gone
            span[1] -= gone
    return text


def _gap(text: str, begin: int) -> tuple[int | None, int]:
    """From `begin` (a flow entry's end) over spaces, line ends, comments and one `,` to the
    next entry or the `]`: (where that `,` is, or None; where the scan stopped)."""
    comma: int | None = None
    at = begin
    while at < len(text):
        char = text[at]
        if char == "#":
            end = text.find("\n", at)
            at = len(text) if end < 0 else end
        elif char in " \t\n":
            at += 1
        elif char == "," and comma is None:
            comma = at
            at += 1
        else:
            break
    return comma, at


def _flow_cuts(text: str, spans: list[list[int]], i: int) -> list[tuple[int, int]] | None:
    """The ranges of `text` removing flow entry `i` of `spans` takes, in order: the entry, its
    separator (the `,` after it, else the one before it: an append's inverse) and the spaces
    between them, its line too when nothing but its own end-of-line comment is left on it.
    Any other comment stays, on its line or on another entry's. None for a layout this does
    not know (a comment or line end between an entry and its `,`)."""
    begin, end = spans[i]
    comma, stop = _gap(text, end)
    last = i + 1 == len(spans)
    if (text[stop:stop + 1] != "]") if last else (stop != spans[i + 1][0] or comma is None):
        return None
    if comma is not None:
        if text[end:comma].strip(" \t"):
            return None
        cuts = [(begin, comma + 1)]
    elif i:
        previous = spans[i - 1][1]
        before, _ = _gap(text, previous)
        if before is None:
            return None
        if not text[previous:begin].replace(",", "", 1).strip(" \t"):
            return [(previous, end)]  # on one line: `A/, B/` becomes `A/`
        cuts = [(before, before + 1), (begin, end)]
    else:
        cuts = [(begin, end)]
    cuts = _own_line(text, cuts, begin, end) or [_tidied(text, cut) for cut in cuts]
    if any(a[1] > b[0] for a, b in pairwise(cuts)) or (not last and cuts[-1][1] > spans[i + 1][0]):
        return None
    return cuts


def _own_line(text: str, cuts: list[tuple[int, int]], begin: int,
              end: int) -> list[tuple[int, int]] | None:
    """`cuts` with the entry's line (`begin` to `end` on it) taken whole, its line end too, when
    they leave nothing on it but spaces and the entry's own end-of-line comment; else None."""
    start = text.rfind("\n", 0, begin) + 1
    stop = text.find("\n", end)
    if stop < 0:
        return None
    left, at = "", start
    for cut_begin, cut_end in cuts:
        if start <= cut_begin < stop:
            left += text[at:cut_begin]
            at = max(at, cut_end)
    left = (left + text[at:stop]).strip(" \t")
    if left and not left.startswith("#"):
        return None
    outside = [_tidied(text, cut) for cut in cuts if not start <= cut[0] < stop]
    return sorted([*outside, (start, stop + 1)])


def _tidied(text: str, cut: tuple[int, int]) -> tuple[int, int]:
    """`cut` with the spaces it would leave at a line's end, or before the next entry on its
    line (a cut ending in its `,`), or before the spaces before a comment, taken too."""
    begin, end = cut
    after = _SPACES.match(text, end)
    spaces = after.end() if after else end
    following = text[spaces:spaces + 1]
    before = len(text[:begin].rstrip(" \t"))
    if following in ("\n", ""):
        return before, spaces
    if following == "#":  # the spaces after the cut stay, to part the comment from the code
        return (before, end) if spaces > end else cut
    return (begin, spaces) if text[end - 1:end] == "," else cut


_PLAIN_END = re.compile(r"[,\]\n]|[ \t]#")


def _flow_entry_end(text: str, begin: int) -> int:
    """Where the flow list entry at `begin` ends: after its closing quote, or for a plain one
    before the `,`, `]` or comment after it (and the spaces before those)."""
    quote = text[begin:begin + 1]
    if quote not in ("'", '"'):
        found = _PLAIN_END.search(text, begin)
        end = found.start() if found else len(text)
        return begin + len(text[begin:end].rstrip())
    i = begin + 1
    while i < len(text):
        if quote == '"' and text[i] == "\\":
            i += 2
        elif text[i] == quote and quote == "'" and text[i + 1:i + 2] == "'":
            i += 2  # `''` is a quote inside single quotes
        elif text[i] == quote:
            return i + 1
        else:
            i += 1
    return len(text)
