"""Text from outside made inert is inert as CommonMark reads it (markdown-it, its reference
parser, with GFM's tables as Obsidian has them): fences in quotes and list items, indented fence
markers, blank lines, HTML blocks, table rows and backticks in links' destinations and titles
leave no image, embed or HTML tag of it drawn, and fenced code keeps its text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from sidecar.vault.inert import inert, inert_mark

MARK = inert_mark()
MD = MarkdownIt("commonmark").enable("table")
CONTAINERS = ["", "> ", "> > ", ">", "- ", "1. ", "10) ", "* ", "> - ", "  - "]
INDENTS = ["", " ", "  ", "   ", "    ", "     ", "      ", "\t", " \t"]
FENCES = ["```", "````", "~~~", "~~~~", "```js", "~~~ text", "``` python x", "```a`b"]
PAYLOADS = ["![x](https://e/?q=S)", "<img src=x>", "![[Private]]", "<div>", "text `tick"]
# Links with a backtick in a destination or a title, which binds before a code span can open
# there, and a table's cell separators (a code span may not run across a `|`).
LINKS = ['[a](x "`")', "[a](<`>)", "[a](x '`')", "[a](x (`))", "[a](`)", "[a](\n", "`", "``"]
PIPES = ["|", "\\|", " | "]
INLINE = st.lists(st.sampled_from(PAYLOADS + LINKS + PIPES), min_size=1, max_size=5).map("".join)
# What CommonMark shows as code, where a payload's text is only shown.
CODE = re.compile(r"<pre>.*?</pre>|<code>.*?</code>", re.S)


@st.composite
def markdown(draw: st.DrawFn) -> str:
    """Lines of containers, indentation, fence markers, blank lines, tables, links and
    payloads."""
    lines = []
    for _ in range(draw(st.integers(1, 9))):
        lead = draw(st.sampled_from(CONTAINERS)) + draw(st.sampled_from(INDENTS))
        body = draw(st.one_of(st.sampled_from(FENCES), INLINE, st.just(""), table()))
        lines += [lead + line for line in body.split("\n")]
    return "\n".join(lines)


@st.composite
def table(draw: st.DrawFn) -> str:
    """A table: its header, its delimiter row and a row of cells of links and payloads."""
    cells = draw(st.lists(INLINE, min_size=1, max_size=3))
    return "| a | b |\n|---|---|\n| " + " | ".join(cells) + " |"


def fences(text: str) -> dict[tuple[int, ...], str]:
    """Each fenced block's lines and its code, as markdown-it reads them."""
    return {tuple(t.map): t.content for t in MD.parse(text) if t.type == "fence" and t.map}


@settings(max_examples=500, deadline=None, derandomize=True)
@given(markdown())
def test_inert_text_draws_nothing_as_commonmark_reads_it(text: str) -> None:
    # Before: a line pattern took a fence opened in a quote or a list item to run to the next
    # fence-looking line (CommonMark ends it with its container), and an indented ``` for a
    # fence: an image after `> ```` was left as it came, and fetched when the note was shown.
    # A code span was read across a table's cells, and from a backtick in a link's title: an
    # image after it was taken for code.
    out = inert(text)
    shown = CODE.sub("", MD.render(out))
    assert "<img" not in shown and "<div" not in shown and "![[" not in shown, (out, shown)
    assert out.replace(MARK, "") == text  # it reads the same
    before, after = fences(text), fences(out)
    for lines in before.keys() & after.keys():  # code where CommonMark reads code: as it came
        assert after[lines] == before[lines], (lines, out)
