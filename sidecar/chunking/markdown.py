"""A note body as blocks: ATX headings, paragraphs and fenced code, with their line indices.

Just enough Markdown for chunking: a `#` line inside a ``` or ~~~ fence is code, not a heading
(CommonMark's rule: the fence closes on the same character, at least as long, nothing after).
Setext headings (text underlined with === or ---) are read as paragraphs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


@dataclass(frozen=True)
class Block:
    """Lines first..last (0-based, inclusive) of the body; `level` > 0 for a heading."""

    first: int
    last: int
    level: int = 0
    title: str = ""


def _heading(line: str) -> tuple[int, str] | None:
    match = _HEADING.match(line)
    if match is None:
        return None
    return len(match.group(1)), (match.group(2) or "").strip()


def _fence_end(lines: list[str], start: int, marker: str) -> int:
    """Index of the line closing the fence opened at `start` (the last line if never closed)."""
    for i in range(start + 1, len(lines)):
        m = _FENCE.match(lines[i])
        if m and m.group(1)[0] == marker[0] and len(m.group(1)) >= len(marker) and not m.group(
            2
        ).strip():
            return i
    return len(lines) - 1


def blocks(lines: list[str]) -> list[Block]:
    """Headings, paragraphs (runs of non-blank lines) and fenced code blocks, in order."""
    out: list[Block] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        head = _heading(line)
        if head is not None:
            out.append(Block(i, i, head[0], head[1]))
            i += 1
            continue
        fence = _FENCE.match(line)
        if fence is not None and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
            end = _fence_end(lines, i, fence.group(1))
            out.append(Block(i, end))
            i = end + 1
            continue
        start = i
        while (
            i + 1 < len(lines)
            and lines[i + 1].strip()
            and _heading(lines[i + 1]) is None
            and _FENCE.match(lines[i + 1]) is None
        ):
            i += 1
        out.append(Block(start, i))
        i += 1
    return out


@dataclass(frozen=True)
class Section:
    """The blocks under one heading chain (the heading's own line is the first block)."""

    path: tuple[str, ...]
    blocks: list[Block]


def sections(all_blocks: list[Block]) -> list[Section]:
    """Blocks grouped by heading; text before the first heading has the empty path."""
    out: list[Section] = []
    stack: list[tuple[int, str]] = []
    current = Section((), [])
    for block in all_blocks:
        if block.level:
            if current.blocks:
                out.append(current)
            while stack and stack[-1][0] >= block.level:
                stack.pop()
            stack.append((block.level, block.title))
            current = Section(tuple(title for _, title in stack), [block])
        else:
            current.blocks.append(block)
    if current.blocks:
        out.append(current)
    return out
