"""Text from outside made inert is inert as CommonMark reads it (markdown-it, its reference
parser): fences in quotes and list items, indented fence markers, blank lines and HTML blocks
leave no image, embed or HTML tag of it drawn, and fenced code keeps its text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from sidecar.vault.inert import inert, inert_mark

MARK = inert_mark()
MD = MarkdownIt("commonmark")
CONTAINERS = ["", "> ", "> > ", ">", "- ", "1. ", "10) ", "* ", "> - ", "  - "]
INDENTS = ["", " ", "  ", "   ", "    ", "     ", "      ", "\t", " \t"]
FENCES = ["```", "````", "~~~", "~~~~", "```js", "~~~ text", "``` python x", "```a`b"]
PAYLOADS = ["![x](https://e/?q=S)", "<img src=x>", "![[Private]]", "<div>", "text `tick"]
# What CommonMark shows as code, where a payload's text is only shown.
CODE = re.compile(r"<pre>.*?</pre>|<code>.*?</code>", re.S)


@st.composite
def markdown(draw: st.DrawFn) -> str:
    """Lines of containers, indentation, fence markers, blank lines and payloads."""
    lines = []
    for _ in range(draw(st.integers(1, 9))):
        body = draw(st.one_of(st.sampled_from(FENCES), st.sampled_from(PAYLOADS), st.just("")))
        lines.append(draw(st.sampled_from(CONTAINERS)) + draw(st.sampled_from(INDENTS)) + body)
    return "\n".join(lines)


def fences(text: str) -> dict[tuple[int, ...], str]:
    """Each fenced block's lines and its code, as markdown-it reads them."""
    return {tuple(t.map): t.content for t in MD.parse(text) if t.type == "fence" and t.map}


@settings(max_examples=500, deadline=None, derandomize=True)
@given(markdown())
def test_inert_text_draws_nothing_as_commonmark_reads_it(text: str) -> None:
    # Before: a line pattern took a fence opened in a quote or a list item to run to the next
    # fence-looking line (CommonMark ends it with its container), and an indented ``` for a
    # fence: an image after `> ```` was left as it came, and fetched when the note was shown.
    out = inert(text)
    shown = CODE.sub("", MD.render(out))
    assert "<img" not in shown and "<div" not in shown and "![[" not in shown, (out, shown)
    assert out.replace(MARK, "") == text  # it reads the same
    before, after = fences(text), fences(out)
    for lines in before.keys() & after.keys():  # code where CommonMark reads code: as it came
        assert after[lines] == before[lines], (lines, out)
