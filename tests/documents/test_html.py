"""An HTML page is read as a browser builds it: a page without `</head>` keeps its body, `<pre>`
keeps its line breaks, and only the document's `<title>` is its title — for a saved web page and
an HTML document of the vault alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.documents.extract import extract
from sidecar.documents.html import html_text


@pytest.mark.parametrize("opener", ["<body>", "<p>", "<h1>", "<div>", ""])
def test_a_page_without_its_head_end_tag_keeps_its_body(opener: str) -> None:
    # Before: the head was skipped until an explicit </head>, so the whole body was lost.
    page = (f"<!doctype html><html><head><meta charset=utf-8><title>No head end</title>"
            f"{opener}IMPORTANT BODY TEXT</p></body></html>")
    assert html_text(page) == ("No head end", "IMPORTANT BODY TEXT")


def test_pre_keeps_its_line_breaks() -> None:
    page = ("<title>Code</title><p>Before</p><pre>\ndef f():\n    return <b>1</b>\n\n"
            "print(f())</pre><p>After   it</p>")
    assert html_text(page) == ("Code", "Before\n\ndef f():\n    return 1\n\nprint(f())\n\n"
                                       "After it")


def test_only_the_documents_title_is_the_title() -> None:
    # Before: an inline <svg>'s <title> (an icon's tooltip) was glued onto the page's title.
    page = ("<html><head><title>Real title</title></head><body><svg><title>icon</title></svg>"
            "<title>second</title><p>body</p></body></html>")
    assert html_text(page) == ("Real title", "body")


def test_an_html_document_of_the_vault_without_head_end_keeps_its_body(tmp_path: Path) -> None:
    page = tmp_path / "saved.html"
    page.write_text("<html><head><title>Kimchi</title><p>Salt the cabbage overnight.</p>"
                    "<pre>1. salt\n2. wait</pre>", encoding="utf-8")
    found = extract(page, "html")
    assert found.meta == {"title": "Kimchi"}
    assert found.pages == ["Salt the cabbage overnight.\n\n1. salt\n2. wait"]


def test_mathml_is_read_but_its_tex_twin_is_not() -> None:
    # Before: the formula was dropped from the text.
    page = ("<p>It states that <math><msup><mi>a</mi><mn>2</mn></msup><annotation "
            "encoding='TeX'>a^2</annotation></math> holds.</p>")
    assert html_text(page)[1] == "It states that a2 holds."


def test_a_heads_noframes_text_is_not_the_pages() -> None:
    page = ("<html><head><title>T</title><noframes>Your browser does not support frames"
            "</noframes></head><body><p>Body</p></body></html>")
    assert html_text(page) == ("T", "Body")
