"""Obsidian-flavoured Markdown in the chunker: each construct is chunked whole where it fits,
split sensibly where it does not, embedded as a reader sees it, and cited by exact file lines."""

from __future__ import annotations

import itertools

import pytest
from tokenizers import Tokenizer

from sidecar.chunking.chunker import Chunk, chunk_note
from sidecar.chunking.markdown import readable
from sidecar.vault.note import parse_note


def _chunks(text: str, tokenizer: Tokenizer, max_tokens: int = 256) -> list[Chunk]:
    return chunk_note(parse_note(text, "Notes/Weekly.md"), tokenizer, max_tokens)


def _cited(text: str, chunk: Chunk) -> str:
    return "\n".join(text.split("\n")[chunk.line_start - 1 : chunk.line_end])


def _assert_exact(text: str, chunks: list[Chunk], tokenizer: Tokenizer, max_tokens: int) -> None:
    for chunk in chunks:
        assert chunk.text == _cited(text, chunk)
        assert chunk.n_tokens == len(tokenizer.encode(chunk.embed_text).ids) <= max_tokens


def _containing(chunks: list[Chunk], words: str) -> Chunk:
    return next(c for c in chunks if words in c.text)


# ---- callouts -----------------------------------------------------------------------------------

CALLOUT = """\
Before the callout.

> [!warning] Boiler service
> The boiler service is due in March.
> Call the plumber on Monday.
> [!quote]- is inside, not a new callout

After the callout.
"""


def test_a_callout_that_fits_stays_in_one_chunk(tokenizer: Tokenizer) -> None:
    chunks = _chunks(CALLOUT, tokenizer)
    callout = _containing(chunks, "[!warning]")
    assert "Call the plumber on Monday." in callout.text
    _assert_exact(CALLOUT, chunks, tokenizer, 256)


def test_parts_of_a_split_callout_carry_its_title_in_the_breadcrumb(
    tokenizer: Tokenizer,
) -> None:
    lines = "\n".join(f"> Step {i}: drain the radiator number {i} fully." for i in range(30))
    text = f"# House\n\n> [!todo] Winter checklist\n{lines}\n"
    chunks = _chunks(text, tokenizer, 64)
    parts = [c for c in chunks if "radiator" in c.text]
    assert len(parts) > 2
    assert all(c.context == "House > Winter checklist" for c in parts)
    assert all(c.heading_path == ("House",) for c in parts)
    _assert_exact(text, chunks, tokenizer, 64)


def test_a_callout_without_a_title_is_named_by_its_kind(tokenizer: Tokenizer) -> None:
    lines = "\n".join(f"> Remember item {i} about the garden shed roof." for i in range(30))
    text = f"# Shed\n\n> [!tip]+\n{lines}\n"
    parts = [c for c in _chunks(text, tokenizer, 64) if "garden" in c.text]
    assert {c.context for c in parts} == {"Shed > Tip"}


# ---- embeds -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "seen"),
    [
        ("See ![[Project Alpha]] for more.", "See Project Alpha for more."),
        ("![[Meetings/2026-01-05 Standup#Decisions]]", "2026-01-05 Standup > Decisions"),
        ("![[Reading list|my reading list]]", "my reading list"),
        ("![[Attachments/whiteboard.png|400]]", "whiteboard.png"),
        ("![[Glossary#^def-recall]]", "Glossary"),
        ("Ask [[Priya]] about [[Rate limiting design#Decision|the decision]].",
         "Ask Priya about the decision."),
        ("Width [[Note|300]] is an alias on a link.", "Width 300 is an alias on a link."),
        ("[[Projects/Home server#Backups]]", "Home server > Backups"),
        # Markdown links read as their text, whatever they point at (no URL in the embedding).
        ("Open the [graph](Graph%20view.md#Filters) view.", "Open the graph view."),
        ("See [the docs](https://help.obsidian.md/Plugins \"Help\") and [](<Other note.md>).",
         "See the docs and Other note."),
        ("![A cat|300](cat%20photo.png) sleeps.", "A cat sleeps."),
    ],
)
def test_links_and_embeds_are_embedded_by_name_and_cited_verbatim(
    tokenizer: Tokenizer, line: str, seen: str
) -> None:
    text = f"# Notes\n\n{line}\n"
    (chunk,) = _chunks(text, tokenizer)
    assert chunk.text == f"# Notes\n\n{line}"
    assert chunk.embed_text == f"Notes\n# Notes\n\n{seen}"


# ---- tables -------------------------------------------------------------------------------------


def _table(rows: int) -> str:
    body = "\n".join(f"| 2026-01-{i % 28 + 1:02d} | Ran {i} km along the canal | good |" for i in
                     range(rows))  # fmt: skip
    return f"# Running log\n\nIntro line.\n\n| Date | Run | Feel |\n|:---|---|--:|\n{body}\n"


def test_a_table_that_fits_is_one_chunk_with_its_header(tokenizer: Tokenizer) -> None:
    text = _table(4)
    table = _containing(_chunks(text, tokenizer), "| Date |")
    assert table.text.count("\n") >= 5 and "Ran 3 km" in table.text
    assert "|:---|" in table.text and "|:---|" not in table.embed_text  # markup, not content


def test_a_split_table_splits_between_rows_and_repeats_its_header(tokenizer: Tokenizer) -> None:
    text = _table(40)
    chunks = _chunks(text, tokenizer, 96)
    parts = [c for c in chunks if "Ran " in c.text]
    assert len(parts) > 2
    for part in parts:
        assert part.context == "Running log > | Date | Run | Feel |"
        assert all(row.startswith("|") and row.endswith("|") for row in part.text.split("\n"))
    _assert_exact(text, chunks, tokenizer, 96)


def test_a_block_id_under_a_table_names_the_table_chunk(tokenizer: Tokenizer) -> None:
    text = _table(3) + "\n^running-table\n\nNext paragraph.\n"
    table = _containing(_chunks(text, tokenizer, 256), "| Date |")
    assert table.block_ids == ("running-table",)
    assert "^running-table" in table.text and "running-table" not in table.embed_text


# ---- fenced code and math -----------------------------------------------------------------------

CODE_AND_MATH = """\
# Setup

~~~bash
# install
pip install ora  # %%not a comment%% ^not-an-id
~~~

## Formula

$$
# not a heading either
E = mc^2
$$

Inline $$x^2$$ stays prose.
"""


def test_code_and_math_blocks_hide_no_headings_and_stay_verbatim(tokenizer: Tokenizer) -> None:
    chunks = _chunks(CODE_AND_MATH, tokenizer)
    assert [c.heading_path for c in chunks] == [("Setup",), ("Setup", "Formula")]
    code = _containing(chunks, "pip install")
    assert code.embed_text.endswith("%%not a comment%% ^not-an-id\n~~~")
    assert code.block_ids == ()
    math = _containing(chunks, "E = mc^2")
    assert "$$\n# not a heading either\nE = mc^2\n$$" in math.text


def test_oversize_code_splits_by_lines_without_making_headings(tokenizer: Tokenizer) -> None:
    code = "\n".join(f"# step {i}\nrun_step({i})" for i in range(40))
    text = f"# Script\n\n```python\n{code}\n```\n"
    chunks = _chunks(text, tokenizer, 48)
    assert len(chunks) > 2 and {c.heading_path for c in chunks} == {("Script",)}
    _assert_exact(text, chunks, tokenizer, 48)


def test_an_unclosed_math_fence_is_plain_text(tokenizer: Tokenizer) -> None:
    chunks = _chunks("$$ costs\n\n# Real heading\nBody.\n", tokenizer)
    assert [c.heading_path for c in chunks] == [(), ("Real heading",)]


QUERIES = """# 2024-04-24

## Log
The plumber said the tap needs a new washer.

```dataview
TASK FROM "Daily" WHERE !completed AND file.day = date("2024-04-24")
```

Books to read next: Anathem.

```dataviewjs
dv.paragraph(`Average rating: ${dv.pages("#book").Rating.array().length}`);
```

```tasks
not done
due before tomorrow
```

```Query
tag:#garden
```

```python
print("kept")
```
"""


def test_query_blocks_are_neither_embedded_nor_cited(tokenizer: Tokenizer) -> None:
    """A Dataview, Tasks or search query shows its results in the reading view, never its code:
    the code was embedded and cited (so BM25-indexed) with the prose around it."""
    chunks = _chunks(QUERIES, tokenizer)
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 4), (10, 10), (25, 27)]
    assert [c.text for c in chunks][:2] == [
        "# 2024-04-24\n\n## Log\nThe plumber said the tap needs a new washer.",
        "Books to read next: Anathem."]
    for word in ("completed", "dv.", "due before", "tag:"):
        assert not any(word in c.text or word in c.embed_text for c in chunks)
    assert 'print("kept")' in chunks[2].embed_text  # other code is read as written
    assert all(c.n_tokens == len(tokenizer.encode(c.embed_text).ids) for c in chunks)


def test_a_query_in_a_callout_is_neither_embedded_nor_cited(tokenizer: Tokenizer) -> None:
    text = ("> [!info] Books I rated\n> ```dataview\n> TABLE Rating FROM #book\n> ```\n"
            "> Updated weekly.\n\n> ```python\n> print(1)\n> ```\n")
    chunks = _chunks(text, tokenizer)
    # The callout's text after the query is still the callout's: titled by it, not merged
    # with the next quote.
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 1), (5, 5), (7, 9)]
    assert chunks[1].embed_text.split("\n")[0].endswith(" > Books I rated")
    assert not any("TABLE" in c.text or "TABLE" in c.embed_text for c in chunks)
    # a quote that ends before its fence closes hides nothing
    (chunk,) = _chunks("> ```dataview\n> LIST\nThe rest.\n", tokenizer)
    assert "LIST" in chunk.embed_text and "The rest." in chunk.embed_text


def test_a_callouts_text_after_a_query_block_keeps_the_callouts_title(
    tokenizer: Tokenizer,
) -> None:
    """The query block ends the callout's first part; the rest used to be embedded under the
    note's heading alone, so "Hyperion" lost the "Books this year" it was written under."""
    text = ("# Reading\n> [!note] Books this year\n> I finished Dune in March.\n"
            "> ```dataview\n> LIST FROM #book\n> ```\n> Next up is Hyperion.\n")
    chunks = _chunks(text, tokenizer)
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 3), (7, 7)]
    # the title is the note's H1, "Reading"
    assert chunks[1].embed_text == "Reading > Books this year\n> Next up is Hyperion."
    assert chunks[1].n_tokens == len(tokenizer.encode(chunks[1].embed_text).ids)
    # A quote that merely follows a quoted query block of its own is not a callout's rest.
    plain = _chunks("> ```dataview\n> LIST\n> ```\n> Just a quote.\n", tokenizer)
    assert [c.embed_text.split("\n")[0].count(" > ") for c in plain] == [0]


def test_an_inline_query_is_not_embedded_but_cited(tokenizer: Tokenizer) -> None:
    """The reading view shows an inline query's value, never its code."""
    text = ("Dune, rated `= this.rating` of 5, read `$= dv.current().file.mtime`.\n"
            "Compare with `==`, map with `=>`.\n")
    (chunk,) = _chunks(text, tokenizer)
    assert chunk.text == text.rstrip("\n")
    assert chunk.embed_text.split("\n")[1:] == [
        "Dune, rated  of 5, read .", "Compare with `==`, map with `=>`."]


def test_an_unclosed_query_block_stays_code(tokenizer: Tokenizer) -> None:
    """Hiding it would hide the rest of the note, as an unclosed `%%` would."""
    (chunk,) = _chunks("Intro.\n\n```dataview\nLIST\n\nThe rest of the note.\n", tokenizer)
    assert "The rest of the note." in chunk.embed_text


# ---- setext headings ----------------------------------------------------------------------------


def test_setext_underlines_make_h1_and_h2(tokenizer: Tokenizer) -> None:
    text = "Garden plan\n===\n\nIntro.\n\nVegetables\nand herbs\n---\nTomatoes first.\n"
    chunks = _chunks(text, tokenizer)
    assert [c.heading_path for c in chunks] == [
        ("Garden plan",), ("Garden plan", "Vegetables and herbs"),
    ]  # fmt: skip
    assert chunks[1].context == "Garden plan > Vegetables and herbs"  # the H1 is the title
    assert "---" in chunks[1].text and "---" not in chunks[1].embed_text


@pytest.mark.parametrize(
    "body",
    [
        "Intro.\n\n---\n\nAfter a break.\n",  # a thematic break after a blank line
        "- milk\n- eggs\n---\nAfter the list.\n",  # a list item cannot be a setext heading
        "| a | b |\n|---|---|\n| 1 | 2 |\n---\n",  # nor a table
    ],
)
def test_dashes_that_are_not_under_a_paragraph_make_no_heading(
    tokenizer: Tokenizer, body: str
) -> None:
    assert {c.heading_path for c in _chunks(body, tokenizer)} == {()}


def test_the_front_matter_fence_is_not_a_setext_underline(tokenizer: Tokenizer) -> None:
    text = "---\naliases: [Plan]\n---\nFirst line of the body.\n\nMore.\n---\n"
    chunks = _chunks(text, tokenizer)
    assert chunks[0].heading_path == () and chunks[0].line_start == 4
    assert all("aliases" not in c.text for c in chunks)
    assert chunks[-1].heading_path == ("More.",)  # the body's own underline still counts


# ---- comments -----------------------------------------------------------------------------------

COMMENTS = """\
# Journal

Walked to the lake %%and thought about quitting%% in the rain.

%%
## Not a heading
Draft I never finished.
%%

Code `%%` is literal, and so is 50%% of an unclosed mark.
"""


def test_comments_leave_the_embedded_text_but_not_the_citation(tokenizer: Tokenizer) -> None:
    chunks = _chunks(COMMENTS, tokenizer)
    assert [c.heading_path for c in chunks] == [("Journal",)]
    (chunk,) = chunks
    assert chunk.text == COMMENTS.rstrip("\n") and (chunk.line_start, chunk.line_end) == (1, 10)
    assert "quitting" not in chunk.embed_text and "Not a heading" not in chunk.embed_text
    assert "Walked to the lake  in the rain." in chunk.embed_text
    assert "Code `%%` is literal, and so is 50%% of an unclosed mark." in chunk.embed_text


def test_a_comment_alone_is_no_chunk(tokenizer: Tokenizer) -> None:
    assert _chunks("%% draft %%\n\n%%\n# Plan\nmore\n%%\n", tokenizer) == []


def test_parts_of_a_cut_line_leave_its_comment_out(tokenizer: Tokenizer) -> None:
    shown = " ".join(f"Visible claim {i} holds." for i in range(30))
    hidden = " ".join(f"secret{i}" for i in range(150))
    line = f"{shown} %%{hidden}%% Tail words."
    chunks = _chunks(line, tokenizer, 32)
    assert len(chunks) > 2 and all(c.text in line for c in chunks)
    assert all("secret" not in c.embed_text and c.embed_text.strip() for c in chunks)
    assert "Tail words." in chunks[-1].embed_text


def test_a_comment_keeps_out_of_the_token_count(tokenizer: Tokenizer) -> None:
    secret = " ".join(f"hidden{i}" for i in range(200))
    text = f"Short visible line. %%{secret}%%\n"
    (chunk,) = _chunks(text, tokenizer, 32)
    assert chunk.text == text.rstrip("\n") and chunk.n_tokens <= 32


# ---- block ids ----------------------------------------------------------------------------------


def test_block_ids_are_listed_and_kept_out_of_the_embedded_text(tokenizer: Tokenizer) -> None:
    text = "# Claims\n\nSleep consolidates memory. ^claim-1\n\nNaps help too. ^claim-2\n"
    (chunk,) = _chunks(text, tokenizer)
    assert chunk.block_ids == ("claim-1", "claim-2")
    assert "^claim" in chunk.text and "^claim" not in chunk.embed_text


def test_readable_lines_match_their_file_lines_one_to_one() -> None:
    lines = [*COMMENTS.split("\n")[:-3], "![[A#B]] ^x", "```", "%% in code", "```"]
    seen = readable(lines)
    assert len(seen.lines) == len(lines) == len(seen.ids)
    assert seen.lines[-4:] == ["A > B", "```", "%% in code", "```"]
    assert seen.ids[-4] == ("x",)


# ---- all together -------------------------------------------------------------------------------

MIXED = "\n\n".join([CALLOUT, _table(12), CODE_AND_MATH, COMMENTS, "Title\n===\nEnd. ^end"])


@pytest.mark.parametrize("max_tokens", [16, 40, 128, 256])
def test_a_mixed_note_keeps_every_invariant(tokenizer: Tokenizer, max_tokens: int) -> None:
    chunks = _chunks(MIXED, tokenizer, max_tokens)
    for prev, chunk in itertools.pairwise(chunks):
        assert chunk.line_start >= prev.line_end
    for chunk in chunks:
        if chunk.text != _cited(MIXED, chunk):  # only a cut of one oversize line may differ
            assert chunk.line_start == chunk.line_end and chunk.text in _cited(MIXED, chunk)
        assert chunk.n_tokens == len(tokenizer.encode(chunk.embed_text).ids) <= max_tokens
