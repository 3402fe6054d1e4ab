"""An HTML page's title and readable text: an HTML document of the vault (`extract.py`) and a web
page the user saves (`web/save.py`) are read alike. Scripts, styles and markup are dropped, and
blocks become paragraphs; a `<pre>` block keeps its line breaks.

The page is read as a browser builds it (WHATWG HTML): `</head>` may be left out — whatever the
head holds besides its title, scripts and styles is shown in the body, as text a browser shows —
and the title is the first HTML `<title>`, never one of an inline `<svg>` (an icon's tooltip).
"""

from __future__ import annotations

from html.parser import HTMLParser

# Elements whose content is never shown as text (an SVG's own `<title>` too); MathML is shown,
# but for the annotation that repeats it as TeX.
_SKIP = {"script", "style", "noscript", "template", "svg", "noframes", "noembed",
         "annotation", "annotation-xml"}
_BLOCKS = {"p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "section",
           "article", "blockquote", "pre"}


class _Text(HTMLParser):
    """The title and readable text of an HTML page (no scripts, styles or markup)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.titles: list[str] = []  # the document's title is the first; none is shown
        self.blocks: list[str] = []
        self._open: list[str] = []  # the text of the block being read
        self._skip, self._pre, self._in_title = 0, 0, False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self._skip += 1
        elif self._skip:
            return
        elif tag == "title":
            self._in_title = True
            self.titles.append("")
        elif tag == "pre":
            self._end_block()
            self._pre += 1
        elif tag in _BLOCKS:
            self._boundary()

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self._skip = max(self._skip - 1, 0)
        elif self._skip:
            return
        elif tag == "title":
            self._in_title = False
        elif tag == "pre" and self._pre:
            self._end_block()
            self._pre -= 1
        elif tag in _BLOCKS:
            self._boundary()

    def _boundary(self) -> None:
        """A block starts or ends: a new paragraph, or inside `<pre>` a new line."""
        if self._pre:
            self._open.append("\n")
        else:
            self._end_block()

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._in_title:
            self.titles[-1] += data
        else:
            self._open.append(data)

    def _end_block(self) -> None:
        text, self._open = "".join(self._open), []
        if self._pre:  # its lines as written, without the blank lines around them
            lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            block = "\n".join(line.rstrip() for line in lines).strip("\n")
        else:  # line breaks inside a block are HTML whitespace
            block = " ".join(text.split())
        if block:
            self.blocks.append(block)

    def text(self) -> str:
        self._end_block()
        return "\n\n".join(self.blocks)


def html_text(raw: str) -> tuple[str, str]:
    """The title and readable text (blocks as paragraphs) of an HTML page."""
    parser = _Text()
    parser.feed(raw)
    parser.close()  # what is left of the page after its last tag
    return " ".join(parser.titles[0].split() if parser.titles else ()), parser.text()
