"""Split a note's body into chunks that cite exact file lines and fit the embedding model.

Sections follow the headings; within a section, neighbouring paragraphs (and code blocks) merge
while they fit, an oversize paragraph is split into lines, and an oversize line into sentence
(or, failing that, word) windows. Front matter is never chunked.

Three texts per chunk:
- `text` is exactly the cited lines (`line_start`..`line_end`, 1-based lines of the file), which
  is what users see and what BM25 indexes. Only a single line too long for one chunk is cut,
  and then `text` is the part of that line.
- `readable` is `text` as the rendered note shows it (`markdown.readable`): no `%%comments%%`,
  no block ids (those are listed in `block_ids`, so a result can link to `Note#^id`), links and
  embeds by name. A chunk with nothing readable (a comment alone) is not a chunk.
- `embed_text` prefixes a breadcrumb (note title > heading > sub-heading) to `readable` so a
  chunk whose own lines never name their subject still embeds near it. A note's title is its H1
  when it has one (already first in the heading path), else its file name: renaming a note that
  has an H1 therefore changes no embedded text, and its vectors move without re-embedding. When
  a callout or a table must be split, each part's breadcrumb also carries the callout's title or
  the table's header row. `n_tokens` counts `embed_text` with the model's [CLS]/[SEP], and is
  always ≤ max_tokens, so the embedder never truncates a chunk.

A heading alone in a chunk (the text under it too long to sit beside it) is left out when the
next chunk's breadcrumb names it: it would cost a model run and find nothing that chunk does not
(BM25 indexes the heading path too). The heading line is then cited by no chunk.

Blocks are never split while they fit: a callout, a table, a code or math block stays whole in
one chunk, and when one is too long it splits between lines (table rows), never inside one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, replace

from tokenizers import Tokenizer

from sidecar.chunking.counting import TokenCounter, token_counter
from sidecar.chunking.markdown import Block, Readable, blocks, readable, sections
from sidecar.errors import BadRequest
from sidecar.vault.note import Note
from sidecar.vault.tags import only_tags

BREADCRUMB = " > "
# Saved with the index: a different version re-chunks every note (vectors reused where the
# embedded text is unchanged). Bump it whenever chunk boundaries or embedded text change.
# 5: `Tags:` read as tags (a private one is private); an over-long first line is cut, not dropped
# 6: a note's date is the creation date it states (`created:`, a dated file name) before mtime
# 7: `Date Created:` / `Date Modified:` in any capitalisation date a note, as Obsidian reads them
# 8: a bare CR (classic Mac) ends a line: such a note's frontmatter, tags and privacy are read
# 9: no tags from HTML comments or inline math; `#private` anywhere (code too) makes a note private
# 10: no tags from indented code blocks (a list item's indented text counts) or `$…$` over 2 lines
# 11: a `%%` comment that the note-size cut leaves open stays a comment (Excalidraw data)
# 12: no tags from code, math or HTML in block quotes, HTML blocks, or `$$…$$` over several lines
# 13: a tag right after a tag is one (`#work#private` is private: it was public)
# 14: a tag after `_` (`_#private_` is private: it was public) or at a table cell's start
# 15: a note whose frontmatter does not parse is indexed by its body, as private (was: no chunks)
# 16: a drawing (Excalidraw) is its text elements under its name: no banner, data headings, ids
# 17: a query block (```dataview, dataviewjs, tasks, query, base) is neither embedded nor cited
# 18: nor is a Dataview inline query (`= this.rating`, `$= dv…`): the reader sees its value
# 19: a query block inside a block quote or callout (`> ```dataview`) is not either
# 20: a callout's text after such a query block carries the callout's title in its breadcrumb
# 21: a chat note's chunks carry its conversation id (metadata and ledger), so search can filter
#     by it: every file is planned again (its vectors reused) and the ledger's new column filled
# 22: a Markdown link reads as its text (the embedded text changes; other vectors are reused),
#     and each note's BM25 rows carry its aliases (incoming links by alias)
# 23: a tag keeps its letters' combining marks (`#เที่ยว` was `เท`; `#เที่ยว#private` is private)
# 24: every note's mean vector is kept in the ledger, not only a decaying note's (search lifts a
#     note near the query as a whole): every file is planned again, its vectors reused
# 25: a token the tokenizer cannot read counts as its characters (a Thai or Khmer run was one
#     MiniLM [UNK], its chunk unbounded), and a cut line keeps the marks after its last token
# 26: a chat note holding a turn asked in private mode is private, tag or not (its turns were
#     found outside private mode once its owner took the tag off), and a note's tags are BM25
#     words with its description (`tags: [vegan]` was found by no word), a line of tags above
#     the first heading joins the chunk after it (it was a result of its own), and a byte order
#     mark before a note's first heading leaves it one: every file is planned again, its
#     vectors reused where the embedded text is unchanged
# 27: a line cut into parts is cut between grapheme clusters (never between a letter and its
#     combining mark, inside a conjunct or a decomposed Hangul syllable), and the embedded text
#     is composed (NFC): the vectors of chunks whose embedded text is unchanged are reused
CHUNKER_VERSION = 27
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
    readable: str | None = None  # None: the same as `text`
    block_ids: tuple[str, ...] = ()
    page: int | None = None  # a document's page (sidecar/documents); lines are then the page's

    @property
    def embed_text(self) -> str:
        """What the embedder reads: the breadcrumb line, then the readable text."""
        body = self.text if self.readable is None else self.readable
        # Composed (NFC), as the embedder reads it (`models.embedder.composed`): saved with the
        # index, so a note saved decomposed (macOS) is embedded again, other chunks not.
        return unicodedata.normalize("NFC", f"{self.context}\n{body}" if self.context else body)


@dataclass(frozen=True)
class _Piece:
    first: int
    last: int
    context: str
    cut: tuple[int, int] | None = None  # (start, end) of one line too long to fit whole


class _Counter:
    """Token counts of the embedded form (breadcrumb + text), special tokens included."""

    def __init__(self, tokens: TokenCounter, max_tokens: int, context: str) -> None:
        self.tokens = tokens
        self.max_tokens = max_tokens
        self.context = context

    def count(self, text: str) -> int:
        full = f"{self.context}\n{text}" if self.context else text
        return self.tokens.count(full, special=True)

    def fits(self, text: str) -> bool:
        return self.count(text) <= self.max_tokens

    def windows(self, seen: Readable, li: int) -> Iterator[tuple[int, int]]:
        """Consecutive (start, end) parts of line `li` whose readable form fits, cut after a
        sentence, else between words."""
        raw = seen.raw[li]
        offsets, words, tokens = self.tokens.pieces(raw)
        room = max(1, self.max_tokens - self.count(""))
        i, n = 0, len(offsets)
        while i < n:
            j = min(n, i + room)
            if j < n:
                j = _cluster_cut(raw, offsets, i, _cut_point(i, j, words, tokens))
            while j > i + 1 and not self.fits(
                    seen.part(li, offsets[i][0], _part_end(raw, offsets, j))[0]):
                j = _cluster_cut(raw, offsets, i, j - 1)
            yield offsets[i][0], _part_end(raw, offsets, j)
            i = j


def _part_end(raw: str, offsets: list[tuple[int, int]], j: int) -> int:
    """The end of the part whose last token is `j - 1`: past the characters the tokenizer read
    as nothing after it (a combining mark it strips with the accents), up to the next space or
    token, so a cut line loses none of them."""
    end, limit = offsets[j - 1][1], offsets[j][0] if j < len(offsets) else len(raw)
    while end < limit and not raw[end].isspace():
        end += 1
    return end


def _cluster_cut(raw: str, offsets: list[tuple[int, int]], i: int, j: int) -> int:
    """The last token start in (i, j] that starts a grapheme cluster (`_starts_cluster`), so a
    part never begins with a dangling mark; `j` itself when none does (a cluster longer than a
    chunk). Tokens follow the model's pieces, which split a word between a letter and its
    vowel sign or virama, and an unknown run (one piece per character) anywhere."""
    for k in range(j, i, -1):
        if k == len(offsets) or _starts_cluster(raw, offsets[k][0]):
            return k
    return j


# Hangul jamo (UAX #29 Hangul_Syllable_Type): leading consonants, vowels, trailing consonants.
_JAMO_L = ((0x1100, 0x115F), (0xA960, 0xA97C))
_JAMO_V = ((0x1160, 0x11A7), (0xD7B0, 0xD7C6))
_JAMO_T = ((0x11A8, 0x11FF), (0xD7CB, 0xD7FB))
_ZWJ = "\u200d"


def _hangul(char: str) -> str:
    """The Hangul syllable type of `char`: L, V, T, LV, LVT, or "" (not Hangul)."""
    code = ord(char)
    if 0xAC00 <= code <= 0xD7A3:
        return "LV" if (code - 0xAC00) % 28 == 0 else "LVT"
    for kind, spans in (("T", _JAMO_T), ("V", _JAMO_V), ("L", _JAMO_L)):
        if any(low <= code <= high for low, high in spans):
            return kind
    return ""


def _starts_cluster(raw: str, at: int) -> bool:
    """Whether an extended grapheme cluster may start at `raw[at]` (UAX #29, as the standard
    library can tell it without the `regex` module): not before a mark (combining, spacing,
    enclosing: a vowel sign, a variation selector), an emoji modifier or tag, nor next to a
    zero-width joiner; not after a virama before a letter (a conjunct, GB9c); not inside a
    Hangul syllable written as jamo (GB6-8); not inside a pair of regional indicators (a
    flag). Prepended concatenation marks (GB9b) are left out: a cut after one is harmless."""
    if at <= 0 or at >= len(raw):
        return True
    before, char = raw[at - 1], raw[at]
    code = ord(char)
    if (unicodedata.category(char).startswith("M") or _ZWJ in (before, char)
            or 0x1F3FB <= code <= 0x1F3FF or 0xE0020 <= code <= 0xE007F):
        return False
    if unicodedata.combining(before) == 9 and char.isalpha():
        return False
    pair = (_hangul(before), _hangul(char))
    if pair[1] and (pair in {("L", "L"), ("L", "V"), ("L", "LV"), ("L", "LVT"), ("LV", "V"),
                             ("LV", "T"), ("V", "V"), ("V", "T"), ("LVT", "T"), ("T", "T")}):
        return False
    return not (_flag(char) and _flag(before) and _flags_before(raw, at) % 2 == 1)


def _flag(char: str) -> bool:
    return 0x1F1E6 <= ord(char) <= 0x1F1FF


def _flags_before(raw: str, at: int) -> int:
    """How many regional indicators run up to `raw[at]`: a flag is each pair of them."""
    n = 0
    while at - n - 1 >= 0 and _flag(raw[at - n - 1]):
        n += 1
    return n


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


def _context(tokens: TokenCounter, title: str, path: tuple[str, ...], limit: int) -> str:
    """The breadcrumb, shortened (or dropped) to stay within a quarter of the budget."""
    full = BREADCRUMB.join(part for part in (title, *path) if part)
    candidates = [full, path[-1] if path else title, ""]
    for text in candidates:
        if tokens.count(text) <= limit:
            return text
    return ""


class _Layout:
    """One note's lines, their readable form, and a counter per breadcrumb.

    Whether lines fit is decided from per-line token counts (`counting.py`, then prefix sums)
    rather than by encoding every candidate chunk again: that re-encoding made a note
    of many short lines quadratic in the lines per chunk (100k lines took minutes). The sum is
    exact for MiniLM's BERT tokenizer, which splits at whitespace before WordPiece, so no token
    spans a newline. `n_tokens` comes from the same sums (tests check it equals a count of the
    final text); only a cut line is encoded again.
    """

    def __init__(self, tokenizer: Tokenizer, max_tokens: int, lines: list[str], title: str) -> None:
        self.counting = token_counter(tokenizer)
        self.max_tokens = max_tokens
        self.lines = lines
        self.seen: Readable = readable(lines)
        self.title = title
        self._counters: dict[str, _Counter] = {}
        self._prefix: list[int] | None = None
        self._base: dict[str, int] = {}

    def _tokens(self, first: int, last: int) -> int:
        """Tokens of readable lines first..last (no special tokens), from prefix sums built on
        first use (after chunk_note has blanked the markup lines)."""
        if self._prefix is None:
            counts = self.counting.counts(self.seen.lines)
            self._prefix = [0]
            for n in counts:
                self._prefix.append(self._prefix[-1] + n)
        return self._prefix[last + 1] - self._prefix[first]

    def context(self, path: tuple[str, ...]) -> str:
        return _context(self.counting, self.title, path, self.max_tokens // 4)

    def counter(self, context: str) -> _Counter:
        if context not in self._counters:
            self._counters[context] = _Counter(self.counting, self.max_tokens, context)
        return self._counters[context]

    def readable(self, first: int, last: int) -> str:
        return _join(self.seen.lines, first, last)

    def tokens(self, first: int, last: int, context: str) -> int:
        """Tokens the embedder reads for lines first..last under `context`, special tokens
        included."""
        if context not in self._base:  # the breadcrumb and [CLS]/[SEP]
            self._base[context] = self.counter(context).count("")
        return self._base[context] + self._tokens(first, last)

    def fits(self, first: int, last: int, context: str) -> bool:
        return self.tokens(first, last, context) <= self.max_tokens


def _pieces(section_blocks: list[Block], path: tuple[str, ...], at: _Layout) -> list[_Piece]:
    """Whole blocks where they fit, else their lines (a callout's or table's parts carry its
    title or header row in their breadcrumb), else windows of one line."""
    base = at.context(path)
    out: list[_Piece] = []
    for block in section_blocks:
        context = at.context((*path, block.label)) if block.label else base
        whole = context if block.resumed else base
        if at.fits(block.first, block.last, whole):
            out.append(_Piece(block.first, block.last, whole))
            continue
        counter = at.counter(context)
        for li in range(block.first, block.last + 1):
            if not at.seen.lines[li].strip():
                if at.seen.ids[li] and out and out[-1].first >= block.first and not out[-1].cut:
                    out[-1] = replace(out[-1], last=li)  # a lone `^id` line names what is above
                continue
            if at.fits(li, li, context):
                out.append(_Piece(li, li, context))
            else:
                out.extend(_Piece(li, li, context, part) for part in counter.windows(at.seen, li))
    return out


def _merged(pieces: list[_Piece], at: _Layout) -> Iterator[_Piece]:
    """Neighbouring whole-line pieces under one breadcrumb joined while the joined lines fit,
    never over a query block (its code would be cited, so shown and BM25-indexed)."""
    current: _Piece | None = None
    for piece in pieces:
        if (
            current is not None
            and piece.cut is None
            and piece.context == current.context
            and not any(at.seen.query[current.last + 1 : piece.first])
            and at.fits(current.first, piece.last, piece.context)
        ):
            current = _Piece(current.first, piece.last, piece.context)
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


def _named_by(piece: _Piece, body: list[Block], context: str, seen: list[str]) -> bool:
    """Whether `piece` is only headings, each named in the breadcrumb of the chunk after it.

    Such a chunk (a heading whose text did not fit beside it) would cost a model run and find
    nothing its successors do not: they embed the heading in their breadcrumb, and BM25 indexes
    it in their heading field."""
    if piece.cut is not None:
        return False
    headings = [b for b in body if b.level and piece.first <= b.first <= piece.last]
    heading_lines = {li for b in headings for li in range(b.first, b.last + 1)}
    body_lines = [li for li in range(piece.first, piece.last + 1) if seen[li].strip()]
    return (bool(headings) and all(li in heading_lines for li in body_lines)
            and all(b.title and b.title in context.split(BREADCRUMB) for b in headings))


def _join(lines: list[str], first: int, last: int) -> str:
    return "\n".join(lines[first : last + 1])


def chunk_note(
    note: Note, tokenizer: Tokenizer, max_tokens: int, max_chunks: int | None = None,
    title: str | None = None,
) -> list[Chunk]:
    """The note body's chunks, in file order; an empty or blank body gives none. With
    `max_chunks`, chunking stops once that many are made (`sidecar/chunking/limits.py`).
    `title` starts the breadcrumb of a body without an H1 (default: the file name)."""
    if max_tokens < 16:
        raise BadRequest(f"max_tokens={max_tokens} is too small to hold a chunk (16 or more)")
    tokenizer = _counting(tokenizer)
    lines = [line.removesuffix("\r") for line in note.body.split("\n")]
    layout = _Layout(tokenizer, max_tokens, lines, "")
    all_blocks = blocks(lines, layout.seen)
    for block in all_blocks:
        if block.markup is not None:
            layout.seen.lines[block.markup] = ""
    layout.title = "" if any(b.level == 1 for b in all_blocks) else (
        note.title if title is None else title)
    chunks: list[Chunk] = []
    carried: list[Block] = []
    all_sections = sections(all_blocks)
    for n, section in enumerate(all_sections):
        if max_chunks is not None and len(chunks) >= max_chunks:
            break
        body = carried + section.blocks
        # a heading with nothing under it, or a line of tags above the first heading, is no
        # passage of its own: it joins the next section's chunk
        lone = len(section.blocks) == 1 and section.blocks[0].level
        tags_only = not section.path and all(
            only_tags(layout.readable(b.first, b.last)) for b in section.blocks)
        if (lone or tags_only) and n + 1 < len(all_sections):
            carried = body
            continue
        carried = []
        pieces = list(_merged(_pieces(body, section.path, layout), layout))
        for piece, after in zip(pieces, [*pieces[1:], None], strict=True):
            if after is not None and _named_by(piece, body, after.context, layout.seen.lines):
                continue
            if piece.cut is not None:
                start, end = piece.cut
                seen, ids = layout.seen.part(piece.first, start, end)
                text, id_lists = lines[piece.first][start:end], [ids]
            else:
                text, seen = _join(lines, piece.first, piece.last), layout.readable(
                    piece.first, piece.last
                )
                id_lists = layout.seen.ids[piece.first : piece.last + 1]
            if not seen.strip():
                continue
            if max_chunks is not None and len(chunks) >= max_chunks:
                break
            chunks.append(Chunk(
                index=len(chunks),
                text=text,
                heading_path=section.path,
                line_start=note.body_line + piece.first,
                line_end=note.body_line + piece.last,
                n_tokens=layout.counter(piece.context).count(seen) if piece.cut is not None
                else layout.tokens(piece.first, piece.last, piece.context),
                context=piece.context,
                readable=None if seen == text else seen,
                block_ids=tuple(i for ids in id_lists for i in ids),
            ))  # fmt: skip
    return chunks
