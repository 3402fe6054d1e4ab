"""A document whose name holds a character a link cannot (`#`, `^`, `|`, `[`, `]`, a line
break) is linked by its URL-encoded path, the same way everywhere: a search result's `link`,
an ingested note's `Source:` line and a chat note's sources. Obsidian's `openLinkText` splits a
link at its first `#`, so `Docs/Invoice #12.pdf#page=1` opened "Docs/Invoice " (a user test)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main
from sidecar.documents.formats import page_link
from sidecar.documents.ingest import apply_ingest, plan_ingest
from sidecar.memory.chat_note import source_line

from .make_pdfs import one_page_pdf

NAME = "Docs/Invoice #12 [draft].pdf"
ENCODED = "Docs/Invoice%20%2312%20%5Bdraft%5D.pdf"



@pytest.mark.parametrize(("path", "link"), [
    ("Papers/Tidal pumping.pdf", "Papers/Tidal pumping.pdf#page=3"),  # as it always was
    (NAME, f"{ENCODED}#page=3"),
    ("a^b.pdf", "a%5Eb.pdf#page=3"),
    ("a|b 100%.pdf", "a%7Cb%20100%25.pdf#page=3"),
    ("a\nb.pdf", "a%0Ab.pdf#page=3"),
])
def test_a_page_link_has_one_hash_the_pages(path: str, link: str) -> None:
    assert page_link(path, 3) == link
    assert page_link(path, None) == link.removesuffix("#page=3")


def test_search_and_chat_notes_link_such_a_document_as_its_ingested_notes_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    vault, data = tmp_path / "vault", str(tmp_path / "data")
    (vault / "Docs").mkdir(parents=True)
    (vault / NAME).write_bytes(one_page_pdf("Invoice twelve: the quokka plumber, 500 EUR."))
    assert main(["index", str(vault), "--data", data]) == 0
    capsys.readouterr()
    assert main(["search", str(vault), "quokka plumber", "--data", data, "--json"]) == 0
    result: dict[str, Any] = json.loads(capsys.readouterr().out)["results"][0]
    assert (result["path"], result["link"]) == (NAME, f"{ENCODED}#page=1")
    assert result["link"].count("#") == 1
    cited = {**result, "n": 1}
    assert result["title"] == "Invoice #12 [draft]"  # brackets would end the shown text
    assert source_line(cited, "") == f"- [1] [Invoice #12 draft]({ENCODED}#page=1), page 1"
    [note] = apply_ingest(vault, plan_ingest(vault, NAME, data=None), data=None)["written"]
    assert f"]({result['link']})\n" in (vault / note).read_text(encoding="utf-8")
