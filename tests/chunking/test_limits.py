"""Huge notes are bounded (issue 10 item 13): the caps of schema/limits.json, and a chunker whose
work grows linearly with the note (a 1.8 MB note of 100k lines took 135 s to index)."""

from __future__ import annotations

import random
from typing import Any

from tokenizers import Tokenizer

from sidecar.chunking.chunker import chunk_note
from sidecar.chunking.limits import NoteLimits, chunk_bounded, note_limits, too_long
from sidecar.schema import load_json
from sidecar.vault.note import parse_note

WORDS = ["alpha", "beta", "gamma", "delta", "river", "stone", "cloud", "paper", "orbit", "lamp"]


def _lines_note(n: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    body = "\n".join(" ".join(rng.choice(WORDS) for _ in range(3)) for _ in range(n))
    return f"---\ntype: engram\n---\n{body}\n"


def _headings_note(n: int) -> str:
    return "---\ntype: engram\n---\n" + "".join(f"## Heading {i}\n\nline {i}\n\n" for i in range(n))


class CountingTokenizer:
    """The real tokenizer, counting every token it is asked to produce. Without its normalizer
    it is not read word by word (`counting.py`): every count is asked of it."""

    normalizer = None

    def __init__(self, inner: Tokenizer) -> None:
        self.inner, self.tokens = inner, 0
        self.truncation, self.padding = inner.truncation, inner.padding

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def encode(self, text: str, **kw: Any) -> Any:
        found = self.inner.encode(text, **kw)
        self.tokens += len(found.ids)
        return found

    def encode_batch(self, texts: list[str], **kw: Any) -> Any:
        found = self.inner.encode_batch(texts, **kw)
        self.tokens += sum(len(e.ids) for e in found)
        return found


def test_chunking_encodes_each_token_a_bounded_number_of_times(tokenizer: Tokenizer) -> None:
    """Before: every line added to a chunk re-encoded the whole chunk, so a note of short lines
    cost (lines per chunk) x its tokens, about 80 times; a clock-free regression check."""
    note = parse_note(_lines_note(3000), "Long.md")
    total = len(tokenizer.encode(note.body, add_special_tokens=False).ids)
    counting = CountingTokenizer(tokenizer)
    chunks = chunk_note(note, counting, 256)  # type: ignore[arg-type]
    assert len(chunks) > 30
    assert counting.tokens <= 3 * total


def test_the_caps_are_data() -> None:
    data = load_json("limits.json")
    assert note_limits() == NoteLimits(data["max_chunks"], data["max_body_bytes"])


def test_a_note_of_100k_lines_is_cut_at_the_byte_cap(tokenizer: Tokenizer) -> None:
    text = _lines_note(100_000)
    assert len(text) > 1_700_000
    note = parse_note(text, "Huge.md")
    bounded = chunk_bounded(note, tokenizer, 256)
    limits = note_limits()
    assert bounded.cut is not None and "bytes" in bounded.cut
    assert 0 < len(bounded.chunks) <= limits.max_chunks
    read = "\n".join(text.split("\n")[: bounded.chunks[-1].line_end])
    assert len(read.encode()) <= limits.max_body_bytes + 100
    whole = chunk_bounded(parse_note(_lines_note(50), "Small.md"), tokenizer, 256)
    assert whole.cut is None and whole.chunks


def test_a_note_of_many_headings_stops_at_the_chunk_cap(tokenizer: Tokenizer) -> None:
    note = parse_note(_headings_note(5_000), "Headings.md")
    bounded = chunk_bounded(note, tokenizer, 256, NoteLimits(max_chunks=50, max_body_bytes=10**9))
    assert len(bounded.chunks) == 50 and bounded.cut is not None and "50 chunks" in bounded.cut
    shorter = parse_note(_headings_note(60), "Headings.md")
    assert bounded.chunks == chunk_note(shorter, tokenizer, 256)[:50]  # the same first chunks


def test_lint_reports_where_the_unindexed_text_starts() -> None:
    note = parse_note(_headings_note(300), "Headings.md")
    found = too_long(note, 256)
    assert found is not None
    line, message = found
    assert note.text.split("\n")[line - 1] == "## Heading 100"
    assert "more than 100 chunks" in message
    assert too_long(parse_note(_headings_note(90), "Fine.md"), 256) is None


def test_a_note_whose_first_line_is_over_the_byte_cap_still_has_its_start_indexed(
    tokenizer: Tokenizer,
) -> None:
    """A note opening with one huge line (an inline data-URI image, text pasted without line
    breaks) was cut at the last line end before the cap, which did not exist: nothing of it,
    not even its heading words, could be found."""
    limits = NoteLimits(max_chunks=100, max_body_bytes=4_000)
    text = "---\ntype: engram\n---\nZanzibar harbour log " + "é" * 10_000 + "\n"
    bounded = chunk_bounded(parse_note(text, "Log.md"), tokenizer, 256, limits)
    assert bounded.cut is not None and bounded.chunks
    assert "Zanzibar harbour" in bounded.chunks[0].text
    assert sum(len(c.text.encode()) for c in bounded.chunks) <= limits.max_body_bytes + 200


def test_a_comment_the_cut_leaves_open_stays_a_comment(tokenizer: Tokenizer) -> None:
    """An Excalidraw drawing keeps its data under `%%` in the note; when that data took the note
    over the cap, the cut fell inside the comment, its opening `%%` had no closer left and read
    as text, and `%%`, `## Drawing` and the fence line were indexed as chunks. (A note the plugin
    recognises is now read as a drawing, `drawings.py`; here its frontmatter key is gone, as
    with any note holding a large comment.)"""
    limits = NoteLimits(max_chunks=100, max_body_bytes=4_000)
    data = "\n".join(f'{{"id": {i}, "x": {i}, "text": "wall"}}' for i in range(400))
    text = ("---\ntags: [plan]\n---\n## Text Elements\nKitchen floor plan ^a1\n\n"
            f"%%\n## Drawing\n```json\n{data}\n```\n%%\n")
    bounded = chunk_bounded(parse_note(text, "Plan.md"), tokenizer, 256, limits)
    assert [c.text for c in bounded.chunks] == ["## Text Elements\nKitchen floor plan ^a1"]
    # Only the comment was left out: nothing a reader sees, so lint does not report the note.
    assert bounded.cut is None
    legend = parse_note(text + "Legend: walls in grey\n", "Plan.md")
    more = chunk_bounded(legend, tokenizer, 256, limits)
    assert more.chunks == bounded.chunks and more.cut is not None
    # With no `%%` after the cut, a stray one is text, as in the whole note.
    stray = "---\ntype: engram\n---\nRatio 50%% of the rest\n" + "word " * 2_000 + "\n"
    cut = chunk_bounded(parse_note(stray, "Stray.md"), tokenizer, 256, limits)
    assert "50%%" in cut.chunks[0].text
