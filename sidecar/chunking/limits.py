"""How much of one note is chunked: the caps of `schema/limits.json`.

A note of 100k lines or 20k headings used to hold the index's one write path for minutes (and
1.6 GB), with every other change, a private flip included, queued behind it. Now only the first
`max_body_bytes` of a body (cut at a line end, or within its first line when that alone is
longer) reach the chunker, and chunking stops after `max_chunks` chunks; the index keeps those,
and `ora lint` reports the note (`note-too-long`). Of a drawing only what is chunked counts (its
text, `drawings.py`), not its drawing data.
The cut is a pure function of the note's text, so a rebuild gives the same chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

from tokenizers import Tokenizer

from sidecar.chunking.chunker import Chunk, chunk_note
from sidecar.chunking.drawings import body_parts
from sidecar.chunking.markdown import COMMENT, readable
from sidecar.schema import load_json
from sidecar.vault.note import Note, reading_text


@dataclass(frozen=True)
class NoteLimits:
    max_chunks: int
    max_body_bytes: int


@cache
def note_limits() -> NoteLimits:
    data = load_json("limits.json")
    return NoteLimits(int(data["max_chunks"]), int(data["max_body_bytes"]))


@dataclass(frozen=True)
class Bounded:
    """A note's chunks within the limits; `cut` says why the rest was left out (None: nothing
    was) and `last_line` is the last file line indexed."""

    chunks: list[Chunk]
    cut: str | None
    last_line: int


def chunk_bounded(note: Note, tokenizer: Tokenizer, max_tokens: int,
                  limits: NoteLimits | None = None) -> Bounded:
    """`chunk_note` of each part of the note (`drawings.body_parts`: the body, or a drawing's
    text), in order, within `limits` (default: schema/limits.json) for all parts together."""
    limits = limits or note_limits()
    chunks: list[Chunk] = []
    cut = None
    room = limits.max_body_bytes
    for part in body_parts(note):
        body, lost = _within(part.note.body, room) if room > 0 else ("", True)
        room -= len(body.encode("utf-8")) + 1
        made = chunk_note(replace(part.note, body=body), tokenizer, max_tokens,
                          limits.max_chunks + 1 - len(chunks), part.title)
        base = len(chunks)
        chunks.extend(replace(c, index=base + n) for n, c in enumerate(made))
        if len(chunks) > limits.max_chunks:
            chunks = chunks[: limits.max_chunks]
            cut = f"it makes more than {limits.max_chunks} chunks"
            break
        if lost:
            cut = f"its body is over {limits.max_body_bytes} bytes"
            break
    return Bounded(chunks, cut, chunks[-1].line_end if chunks else note.body_line)


def _within(body: str, room: int) -> tuple[str, bool]:
    """The first `room` bytes of `body` (cut at a line end, or within its first line when that
    alone is longer: its start is still worth finding), and whether readable text was left
    out."""
    data = body.encode("utf-8")
    if len(data) <= room:
        return body, False
    end = data.rfind(b"\n", 0, room + 1)
    if end < 0:
        end = room
    return _comment_closed(data[:end].decode("utf-8", errors="ignore"),
                           data[end:].decode("utf-8", errors="ignore"))


def _comment_closed(kept: str, rest: str) -> tuple[str, bool]:
    """`kept` with a `%%` comment that the cut leaves open closed again, and whether readable
    text was left out (False when all that follows the cut is the rest of that comment).

    A drawing's data (Excalidraw keeps it under `%%` in the note) is often what takes a note
    over the cap; cut inside it, the opening `%%` had no closer and read as literal text, so
    its heading and fence line were indexed as a chunk. A `%%` left after the cut means the
    comment goes on past it: a closing line is added, which cites nothing (it is not readable).
    When nothing but blank lines follows that comment, the note is whole to a reader: `ora lint`
    must not ask the user to split every large drawing."""
    close = rest.find(COMMENT)
    if close < 0:
        return kept, True
    closed = kept + "\n" + COMMENT
    if readable(closed.split("\n")).lines[-1] != "":
        return kept, True
    return closed, bool(rest[close + len(COMMENT):].strip())


@cache
def _tokenizer() -> Tokenizer:
    from sidecar.models.embedder import load_tokenizer  # only when a note could be too long

    return load_tokenizer()


def _could_exceed(note: Note, max_tokens: int, limits: NoteLimits) -> bool:
    """False when the note certainly fits: few lines, little text. Every chunk holds a non-blank
    line of its own unless a line is too long for one chunk, which takes over max_tokens / 2
    characters (a token is at least one character; the breadcrumb takes at most a quarter)."""
    body = note.body
    lines = sum(1 for line in body.split("\n") if line.strip())
    return lines > limits.max_chunks or len(body) > limits.max_chunks * (max_tokens // 2)


def too_long(note: Note, max_tokens: int) -> tuple[int, str] | None:
    """(file line where the unindexed text starts, message) when the index would leave part of
    the note out (for `ora lint`), else None."""
    limits = note_limits()
    if not _could_exceed(note, max_tokens, limits):
        return None
    bounded = chunk_bounded(note, _tokenizer(), max_tokens, limits)
    if bounded.cut is None:
        return None
    lines = reading_text(note.text).split("\n")
    start = next((n for n in range(bounded.last_line, len(lines)) if lines[n].strip()),
                 bounded.last_line)
    return start + 1, (
        f"only lines up to {bounded.last_line} are indexed: {bounded.cut} (schema/limits.json); "
        "split the note so that all of it can be found")
