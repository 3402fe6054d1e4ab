"""`closed` ends an HTML block of CommonMark's kinds 1-5 indented 1 to 3 spaces, as it does one
at the line's start, and closing twice changes nothing."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from sidecar.vault.inert import closed

MD = MarkdownIt("commonmark")


@pytest.mark.parametrize("text", [" <!--\nx", "  <?php\nx", "   <!DOCTYPE\nx", " <![CDATA[\nx",
                                  "  <script>\nx", "   <pre>\n<!--"])
def test_an_indented_html_block_is_closed_and_closing_again_changes_nothing(text: str) -> None:
    # Before: its kind was matched with the indent in front, found none, and nothing ended it.
    once = closed(text)
    assert closed(once) == once, repr(once)
    assert any(t.type == "heading_open" for t in MD.parse(once + "\n\n## Ora\n")), repr(once)
