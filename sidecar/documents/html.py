"""An HTML page's title and readable text: an HTML document of the vault (`extract.py`) and a web
page the user saves (`web/save.py`) are read alike. Scripts, styles and markup are dropped, and
blocks become paragraphs.
"""

from __future__ import annotations

from html.parser import HTMLParser

_BREAK = "\x00"  # a block boundary (NUL never survives into a note)
_SKIP = {"script", "style", "noscript", "template", "svg", "head"}
_BLOCKS = {"p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "section",
           "article", "blockquote", "pre"}


class _Text(HTMLParser):
    """The title and readable text of an HTML page (no scripts, styles or markup)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title, self.parts, self._skip, self._in_title = "", list[str](), 0, False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in _SKIP:
            self._skip += 1
        elif tag in _BLOCKS:
            self.parts.append(_BREAK)

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in _SKIP and self._skip:
            self._skip -= 1
        elif tag in _BLOCKS:
            self.parts.append(_BREAK)

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skip:
            self.parts.append(data)

    def text(self) -> str:
        # Line breaks inside a block are HTML whitespace; blocks become paragraphs.
        blocks = (" ".join(block.split()) for block in "".join(self.parts).split(_BREAK))
        return "\n\n".join(block for block in blocks if block)


def html_text(raw: str) -> tuple[str, str]:
    """The title and readable text (blocks as paragraphs) of an HTML page."""
    parser = _Text()
    parser.feed(raw.replace(_BREAK, ""))
    return " ".join(parser.title.split()), parser.text()
