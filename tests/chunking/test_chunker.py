from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from sidecar.chunking.chunker import BREADCRUMB, Chunk, chunk_note
from sidecar.chunking.markdown import blocks, readable
from sidecar.errors import BadRequest
from sidecar.models.embedder import load_tokenizer
from sidecar.vault.note import parse_note

NOTE = """\
---
type: engram
tags: [memory]
---
Preamble before any heading.

# Memory

Spaced repetition schedules reviews at growing intervals.

Retrieval practice strengthens recall.

## Code

```python
# a comment, not a heading
x = 1

## still code
```

## Empty heading
### Deep
Deep text.

# Second top
Final words.
"""


def _chunks(text: str, tokenizer: Tokenizer, max_tokens: int = 256) -> list[Chunk]:
    return chunk_note(parse_note(text, "notes/Spacing.md"), tokenizer, max_tokens)


def _cited(text: str, chunk: Chunk) -> str:
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    return "\n".join(lines[chunk.line_start - 1 : chunk.line_end])


def test_chunks_cite_exactly_their_file_lines(tokenizer: Tokenizer) -> None:
    chunks = _chunks(NOTE, tokenizer)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        assert _cited(NOTE, chunk) == chunk.text


def test_front_matter_is_never_chunked(tokenizer: Tokenizer) -> None:
    chunks = _chunks(NOTE, tokenizer)
    assert chunks[0].line_start == 5 and chunks[0].text == "Preamble before any heading."
    assert all("type: engram" not in c.text for c in chunks)


def test_heading_path_is_the_chain_of_headings_above(tokenizer: Tokenizer) -> None:
    paths = {c.text.splitlines()[0]: c.heading_path for c in _chunks(NOTE, tokenizer)}
    assert paths["Preamble before any heading."] == ()
    assert paths["# Memory"] == ("Memory",)
    assert paths["## Code"] == ("Memory", "Code")
    assert paths["## Empty heading"] == ("Memory", "Empty heading", "Deep")
    assert paths["# Second top"] == ("Second top",)


def test_small_paragraphs_merge_within_a_section_only(tokenizer: Tokenizer) -> None:
    memory = next(c for c in _chunks(NOTE, tokenizer) if c.heading_path == ("Memory",))
    assert memory.text.endswith("Retrieval practice strengthens recall.")
    assert "## Code" not in memory.text


def test_hash_lines_inside_code_fences_are_not_headings(tokenizer: Tokenizer) -> None:
    code = next(c for c in _chunks(NOTE, tokenizer) if c.heading_path == ("Memory", "Code"))
    assert "# a comment, not a heading" in code.text and "## still code" in code.text
    assert code.text.endswith("```")


def test_heading_with_nothing_under_it_joins_the_next_section(tokenizer: Tokenizer) -> None:
    deep = next(c for c in _chunks(NOTE, tokenizer) if c.heading_path[-1:] == ("Deep",))
    assert deep.text == "## Empty heading\n### Deep\nDeep text."


def test_a_line_of_tags_above_the_first_heading_joins_its_chunk(tokenizer: Tokenizer) -> None:
    # Before: "#recipe #breakfast" was a passage of its own, a result for unrelated queries.
    text = "#recipe #breakfast\n# Shakshuka\n\nEggs poached in a spiced tomato sauce.\n"
    (only,) = _chunks(text, tokenizer)
    assert (only.line_start, only.heading_path) == (1, ("Shakshuka",))
    assert only.text.startswith("#recipe #breakfast\n# Shakshuka")
    alone = _chunks("#recipe #breakfast\n", tokenizer)  # all the note holds: still found
    assert [c.text for c in alone] == ["#recipe #breakfast"]


def test_embed_text_prefixes_the_breadcrumb_with_the_h1_as_title(tokenizer: Tokenizer) -> None:
    code = next(c for c in _chunks(NOTE, tokenizer) if c.heading_path == ("Memory", "Code"))
    assert code.context == "Memory > Code"
    assert code.embed_text == f"Memory > Code\n{code.text}"


def test_a_note_without_h1_gets_its_file_name_as_title(tokenizer: Tokenizer) -> None:
    text = "Intro line.\n\n## Code\n\nx = 1\n"
    chunks = _chunks(text, tokenizer)
    assert [c.context for c in chunks] == ["Spacing", "Spacing > Code"]


@pytest.mark.parametrize("max_tokens", [24, 64, 256])
def test_token_budget_is_respected_and_counted_exactly(
    tokenizer: Tokenizer, max_tokens: int
) -> None:
    long_para = " ".join(f"Sentence {i} says something about memory." for i in range(120))
    text = NOTE + "\n## Long\n" + long_para + "\n" + "\n".join(f"line {i}" for i in range(200))
    for chunk in _chunks(text, tokenizer, max_tokens):
        assert chunk.n_tokens == len(tokenizer.encode(chunk.embed_text).ids)
        assert chunk.n_tokens <= max_tokens


def test_oversize_line_is_cut_into_ordered_parts_of_that_line(tokenizer: Tokenizer) -> None:
    line = " ".join(f"Claim {i} holds under review." for i in range(80))
    chunks = _chunks(f"Intro.\n\n{line}\n", tokenizer, 48)
    parts = [c for c in chunks if c.line_start == c.line_end == 3]
    assert len(parts) > 2
    assert " ".join(p.text for p in parts) == line
    assert all(p.text.endswith(".") for p in parts[:-1])  # cut after sentences


def test_text_the_tokenizer_cannot_read_is_chunked_by_its_characters(tokenizer: Tokenizer) -> None:
    """MiniLM reads an unspaced Thai paragraph as one [UNK]: it is cut into chunks of at most the
    budget's characters, each citing its line, not kept whole as one chunk of one token."""
    line = "ประเทศไทยตั้งอยู่ในเอเชียตะวันออกเฉียงใต้" * 20
    chunks = _chunks(f"# Thai\n\n{line}\n", tokenizer, 64)
    assert len(chunks) >= len(line) // 64
    assert "".join(c.text for c in chunks) == line
    for chunk in chunks:
        assert chunk.line_start == chunk.line_end == 3
        assert len(chunk.text) <= 64
        assert chunk.n_tokens <= 64


def test_oversize_paragraph_splits_by_lines(tokenizer: Tokenizer) -> None:
    para = "\n".join(f"Item {i}: spaced repetition fact number {i}." for i in range(40))
    chunks = _chunks(para, tokenizer, 64)
    assert len(chunks) > 1
    for chunk in chunks:
        assert _cited(para, chunk) == chunk.text
    assert [c.line_start for c in chunks[1:]] == [c.line_end + 1 for c in chunks[:-1]]


def test_crlf_lines_are_cited_without_carriage_returns(tokenizer: Tokenizer) -> None:
    text = "---\r\ntype: engram\r\n---\r\n# Title\r\nBody line.\r\n"
    (chunk,) = _chunks(text, tokenizer)
    assert (chunk.line_start, chunk.line_end, chunk.text) == (4, 5, "# Title\nBody line.")


def test_unclosed_fence_keeps_the_rest_as_code(tokenizer: Tokenizer) -> None:
    chunks = _chunks("# Top\n```\n# inside\ntext", tokenizer)
    assert [c.heading_path for c in chunks] == [("Top",)]


@pytest.mark.parametrize("body", ["", "\n\n   \n", "---\ntype: engram\n---\n\n"])
def test_blank_body_has_no_chunks(tokenizer: Tokenizer, body: str) -> None:
    assert _chunks(body, tokenizer) == []


def test_truncating_tokenizer_still_gives_true_counts() -> None:
    truncating = load_tokenizer()
    truncating.enable_truncation(max_length=8)
    chunks = _chunks("word " * 50, truncating, 32)
    assert len(chunks) > 1 and all(8 < c.n_tokens <= 32 for c in chunks[:-1])


def test_tiny_budget_is_refused(tokenizer: Tokenizer) -> None:
    with pytest.raises(BadRequest):
        _chunks("text", tokenizer, 4)


_LINE = st.one_of(
    st.text(alphabet="abc xyz.,#`~-!?%^|>$=[]:", max_size=60),
    st.sampled_from(["", "# H1", "## H2", "### H3", "```", "~~~~", "- item", "Sentence one. Two."]),
    st.sampled_from(["===", "---", "$$", "%%", "> [!note] T", "|a|b|", "|--|--|", "x ^id-1"]),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=st.lists(_LINE, max_size=40), max_tokens=st.sampled_from([16, 40, 256]))
@example(lines=["?", "=", "::::", ":::::"], max_tokens=16)  # a setext title over two lines
def test_any_body_chunks_in_order_within_budget_covering_every_line(
    tokenizer: Tokenizer, lines: list[str], max_tokens: int
) -> None:
    lines = ["Start.", *lines]  # no front matter here: that has its own test
    text = "\n".join(lines)
    chunks = _chunks(text, tokenizer, max_tokens)
    covered: set[int] = set()
    for prev, chunk in zip([None, *chunks], chunks, strict=False):
        assert chunk.n_tokens <= max_tokens
        if prev is not None:
            assert chunk.line_start >= prev.line_end
        if chunk.text != _cited(text, chunk):  # only a cut of one oversize line may differ
            assert chunk.line_start == chunk.line_end and chunk.text in _cited(text, chunk)
        covered.update(range(chunk.line_start, chunk.line_end + 1))
    shown = readable(lines)  # comments and block ids show nothing, so need no chunk
    nonblank = {i + 1 for i, line in enumerate(shown.lines) if line.strip() or shown.ids[i]}
    markup = {i + 1 for i, line in enumerate(lines) if set(line.strip()) <= set("=-|:")}
    # every line of a heading (a setext title may run over several) names it
    titles = {n + 1: b.title for b in blocks(lines, shown) if b.level
              for n in range(b.first, b.last + 1)}
    for line in sorted(nonblank - markup - covered):  # only a heading the next chunk names
        after = next(c for c in chunks if c.line_start > line)
        assert titles[line] in after.context.split(BREADCRUMB)


LONG_LINE = " ".join(f"Sentence {n} about white matter diffusion in the newborn brain." for n in
                     range(40))


def test_heading_alone_before_a_split_line_is_not_a_chunk_of_its_own(tokenizer: Tokenizer) -> None:
    text = f"---\ntype: resource\n---\n# Newborn white matter\n\n{LONG_LINE}\n"
    chunks = _chunks(text, tokenizer, max_tokens=64)
    assert len(chunks) > 1
    assert all(c.text != "# Newborn white matter" for c in chunks)
    assert all(c.context == "Newborn white matter" and c.heading_path == ("Newborn white matter",)
               for c in chunks)  # every part still embeds the heading
    assert chunks[0].line_start == chunks[0].line_end == 6  # the long line, cited exactly


def test_heading_alone_is_kept_when_no_breadcrumb_names_it(tokenizer: Tokenizer) -> None:
    heading = " ".join(["an extraordinarily verbose heading"] * 7)  # over a quarter of 128
    text = f"# {heading}\n\n{LONG_LINE}\n"
    chunks = _chunks(text, tokenizer, max_tokens=128)
    assert chunks[0].text == f"# {heading}" and chunks[0].line_start == 1
    assert all(c.context == "" for c in chunks)


def test_heading_with_the_text_under_it_stays_in_the_chunk(tokenizer: Tokenizer) -> None:
    chunks = _chunks("# Sleep\n\nSlow-wave sleep consolidates memories.\n", tokenizer)
    assert [c.text for c in chunks] == ["# Sleep\n\nSlow-wave sleep consolidates memories."]


def test_a_byte_order_mark_before_a_heading_leaves_it_a_heading(tokenizer: Tokenizer) -> None:
    # Before: a note saved with a BOM and no frontmatter lost its H1 (heading_path []) and its
    # first result began with "\ufeff".
    text = "\ufeff# Harbour log\n\nThe tide turned at dawn.\n"
    (only,) = _chunks(text, tokenizer)
    assert only.heading_path == ("Harbour log",) and only.text.startswith("# Harbour log")
    assert only.line_start == 1
