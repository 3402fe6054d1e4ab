"""Split a note's body into chunks that cite exact file lines and fit the embedding model.

Sections follow the headings; within a section, neighbouring paragraphs (and code blocks) merge
while they fit, an oversize paragraph is split into lines, and an oversize line into sentence
(or, failing that, word) windows. Front matter is never chunked.

Two texts per chunk:
- `text` is exactly the cited lines (`line_start`..`line_end`, 1-based lines of the file), which
  is what users see and what BM25 indexes. Only a single line too long for one chunk is cut,
  and then `text` is the part of that line.
- `embed_text` prefixes a breadcrumb (note title > heading > sub-heading) so a chunk whose own
  lines never name their subject still embeds near it. A note's title is its H1 when it has
  one (already first in the heading path), else its file name: renaming a note that has an H1
  therefore changes no embedded text, and its vectors move without re-embedding. `n_tokens`
  counts `embed_text` with the model's [CLS]/[SEP], and is always ≤ max_tokens, so the embedder
  never truncates a chunk.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from tokenizers import Tokenizer

from sidecar.chunking.markdown import Block, blocks, sections
from sidecar.errors import BadRequest
from sidecar.vault.note import Note

BREADCRUMB = " > "
_SENTENCE_END = re.compile(r"[.!?。]$")


@dataclass(frozen=True)
class Chunk:
    """One retrievable piece of a note, citing file lines line_start..line_end."""

    index: int
    text: str
    heading_path: tuple[str, ...]
    line_start: int
    line_end: int
    n_tokens: int
    context: str = ""

    @property
    def embed_text(self) -> str:
        """What the embedder reads: the breadcrumb line, then the text."""
        return f"{self.context}\n{self.text}" if self.context else self.text


@dataclass(frozen=True)
class _Piece:
    first: int
    last: int
    cut: str | None = None  # part of one line too long to fit whole


class _Counter:
    """Token counts of the embedded form (breadcrumb + text), special tokens included."""

    def __init__(self, tokenizer: Tokenizer, max_tokens: int, context: str) -> None:
        self.tokenizer = tokenizer
        self.max_tokens = max_tokens
        self.context = context

    def count(self, text: str) -> int:
        full = f"{self.context}\n{text}" if self.context else text
        return len(self.tokenizer.encode(full).ids)

    def fits(self, text: str) -> bool:
        return self.count(text) <= self.max_tokens

    def windows(self, line: str) -> Iterator[str]:
        """Consecutive parts of `line` that fit, cut after a sentence, else between words."""
        enc = self.tokenizer.encode(line, add_special_tokens=False)
        offsets, words, tokens = enc.offsets, enc.word_ids, enc.tokens
        room = max(1, self.max_tokens - self.count(""))
        i, n = 0, len(offsets)
        while i < n:
            j = min(n, i + room)
            if j < n:
                j = _cut_point(i, j, words, tokens)
            while j > i + 1 and not self.fits(line[offsets[i][0] : offsets[j - 1][1]]):
                j -= 1
            yield line[offsets[i][0] : offsets[j - 1][1]]
            i = j


def _cut_point(i: int, j: int, words: list[int | None], tokens: list[str]) -> int:
    """The best end (exclusive) in (i, j]: after a sentence in the window's second half, else
    at a word start, else j itself."""
    boundaries = [k for k in range(j, i, -1) if words[k] != words[k - 1]]
    for k in boundaries:
        if k <= i + (j - i) // 2:
            break
        if _SENTENCE_END.search(tokens[k - 1]):
            return k
    return boundaries[0] if boundaries else j


def _counting(tokenizer: Tokenizer) -> Tokenizer:
    """The tokenizer itself, or a copy without truncation and padding (counts must be true)."""
    if tokenizer.truncation is None and tokenizer.padding is None:
        return tokenizer
    copy = Tokenizer.from_str(tokenizer.to_str())
    copy.no_truncation()
    copy.no_padding()
    return copy


def _context(tokenizer: Tokenizer, title: str, path: tuple[str, ...], limit: int) -> str:
    """The breadcrumb, shortened (or dropped) to stay within a quarter of the budget."""
    full = BREADCRUMB.join(part for part in (title, *path) if part)
    candidates = [full, path[-1] if path else title, ""]
    for text in candidates:
        if len(tokenizer.encode(text, add_special_tokens=False).ids) <= limit:
            return text
    return ""


def _pieces(section_blocks: list[Block], lines: list[str], counter: _Counter) -> list[_Piece]:
    out: list[_Piece] = []
    for block in section_blocks:
        if counter.fits(_join(lines, block.first, block.last)):
            out.append(_Piece(block.first, block.last))
            continue
        for li in range(block.first, block.last + 1):
            if not lines[li].strip():
                continue
            if counter.fits(lines[li]):
                out.append(_Piece(li, li))
            else:
                out.extend(_Piece(li, li, part) for part in counter.windows(lines[li]))
    return out


def _merged(pieces: list[_Piece], lines: list[str], counter: _Counter) -> Iterator[_Piece]:
    """Neighbouring whole-line pieces joined while the joined lines still fit."""
    current: _Piece | None = None
    for piece in pieces:
        if current is not None and piece.cut is None:
            joined = _Piece(current.first, piece.last)
            if counter.fits(_join(lines, joined.first, joined.last)):
                current = joined
                continue
        if current is not None:
            yield current
        current = None
        if piece.cut is None:
            current = piece
        else:
            yield piece
    if current is not None:
        yield current


def _join(lines: list[str], first: int, last: int) -> str:
    return "\n".join(lines[first : last + 1])


def chunk_note(note: Note, tokenizer: Tokenizer, max_tokens: int) -> list[Chunk]:
    """The note body's chunks, in file order; an empty or blank body gives none."""
    if max_tokens < 16:
        raise BadRequest(f"max_tokens={max_tokens} is too small to hold a chunk (16 or more)")
    tokenizer = _counting(tokenizer)
    lines = [line.removesuffix("\r") for line in note.body.split("\n")]
    chunks: list[Chunk] = []
    carried: list[Block] = []  # a heading with nothing under it joins the next section's chunk
    all_blocks = list(blocks(lines))
    title = "" if any(b.level == 1 for b in all_blocks) else note.title
    all_sections = sections(all_blocks)
    for n, section in enumerate(all_sections):
        body = carried + section.blocks
        if len(section.blocks) == 1 and section.blocks[0].level and n + 1 < len(all_sections):
            carried = body
            continue
        carried = []
        context = _context(tokenizer, title, section.path, max_tokens // 4)
        counter = _Counter(tokenizer, max_tokens, context)
        for piece in _merged(_pieces(body, lines, counter), lines, counter):
            text = piece.cut if piece.cut is not None else _join(lines, piece.first, piece.last)
            chunks.append(Chunk(
                index=len(chunks),
                text=text,
                heading_path=section.path,
                line_start=note.body_line + piece.first,
                line_end=note.body_line + piece.last,
                n_tokens=counter.count(text),
                context=context,
            ))
    return chunks
