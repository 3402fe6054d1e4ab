"""Documents in the vault, found where they lie: a 14-page paper found at the right page through
`ora search` and the HTTP API, forty broken and odd PDFs indexed or named in `errors` within
their budgets, private folders, unchanged documents never read again."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main
from sidecar.documents.extract import IMAGE_ONLY, DocumentError, extract
from sidecar.documents.formats import DocumentLimits, formats
from sidecar.documents.worker import extract_in_worker
from sidecar.index import documents as plan_module
from sidecar.settings import Config, make_config

from ..conftest import AppClient
from .conftest import cli
from .make_pdfs import PAGES, bad_corpus, one_page_pdf, page_of, write_paper

# Questions about the paper's figures and sections, and the section that answers each.
QUESTIONS = {
    "cross-section of the salinity wedge with chloride contour lines": "5 Salinity wedge",
    "finite-element mesh refined near the beach": "7 Numerical model",
    "how long did shallow-well salinity take to recover after the January surge":
        "10 Storm surges",
    "conductivity logger fouled by barnacles": "3 Instruments",
    "what happens to the wedge toe if the polder pumping rate is halved":
        "11 Pumping in the polder",
    "hydraulic head lag growing with distance inland": "4 Tidal signal in the wells",
}




def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    write_paper(vault / "Tidal pumping.pdf")
    (vault / "Engrams").mkdir()
    (vault / "Engrams" / "Kettle.md").write_text(
        "---\ntype: engram\nnexus: []\ntags: []\n---\n# Kettle\n\nVinegar dissolves limescale.\n",
        encoding="utf-8")
    return vault


def _config(vault: Path, data: Path) -> Config:
    models = data.parent / "models"
    return make_config(vault, data, embed_model="int8", models_dir=str(models),
                       cohere_api_key="", reranker_dir=str(models / "none"), llm_url="",
                       scan_delay=-1.0)


def test_the_paper_is_found_at_the_right_page_by_ora_search(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    vault = _vault(tmp_path)
    data = str(tmp_path / "data")
    indexed = cli(capsys, "index", str(vault), "--data", data)
    assert indexed["documents"] == 1 and indexed["files"] == 2 and indexed["errors"] == []
    for question, section in QUESTIONS.items():
        found = cli(capsys, "search", str(vault), question, "--data", data, "--k", "3")
        top = found["results"][0]
        page = page_of(section)
        assert (top["path"], top["page"]) == ("Tidal pumping.pdf", page), (question, found)
        assert top["link"] == f"Tidal pumping.pdf#page={page}"
        assert top["line_start"] is None and top["line_end"] is None
        assert top["type"] == "resource"
        assert top["title"] == "Tidal Pumping of Salt into Coastal Aquifers"
        assert PAGES[page - 1].section in top["text"]
    assert main(["search", str(vault), "salinity wedge chloride", "--data", data]) == 0
    assert "Tidal pumping.pdf#page=6" in capsys.readouterr().out  # the human form cites it too


async def test_the_paper_is_found_at_the_right_page_over_http(
    tmp_path: Path, app_client: Callable[[Config], Awaitable[AppClient]],
) -> None:
    vault = _vault(tmp_path)
    api = await app_client(_config(vault, tmp_path / "data"))
    await api.reconciled()
    for question, section in QUESTIONS.items():
        status, found = await api.call("POST", "/v1/search", {"query": question, "k": 3})
        assert status == 200
        top = found["results"][0]
        assert (top["path"], top["page"]) == ("Tidal pumping.pdf", page_of(section)), question
        assert top["link"] == f"Tidal pumping.pdf#page={page_of(section)}"
        assert top["line_start"] is None
    # A note's result has lines and no page.
    status, found = await api.call("POST", "/v1/search", {"query": "limescale vinegar"})
    note = found["results"][0]
    assert note["path"] == "Engrams/Kettle.md" and "page" not in note
    assert note["line_start"] == 6
    # A document added while the server runs is picked up by the plugin's event.
    (vault / "Later.pdf").write_bytes(one_page_pdf("Otters juggle pebbles when bored."))
    status, applied = await api.call("POST", "/v1/events",
                                     {"events": [{"kind": "created", "path": "Later.pdf"}]})
    assert status == 200 and applied["accepted"] + applied["deduplicated"] == 1, applied
    # (The watcher sees the file too; whichever of the two writes it, it is found.)
    deadline = time.monotonic() + 30
    while True:
        status, found = await api.call("POST", "/v1/search", {"query": "otters juggle pebbles"})
        if found["results"][0]["link"] == "Later.pdf#page=1" or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.2)
    assert found["results"][0]["link"] == "Later.pdf#page=1"


def test_forty_bad_pdfs_are_indexed_or_named_in_errors_and_never_read_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    vault = tmp_path / "vault"
    corpus = bad_corpus()
    assert len(corpus) >= 40
    for name, payload in corpus.items():
        (vault / "bad").mkdir(parents=True, exist_ok=True)
        (vault / "bad" / name).write_bytes(payload)
    data = str(tmp_path / "data")
    reads: list[str] = []

    def counted(path: Path, fmt: str, limits: DocumentLimits | None = None) -> Any:
        reads.append(path.name)
        return extract_in_worker(path, fmt, limits)

    monkeypatch.setattr(plan_module, "extract_in_worker", counted)
    started = time.monotonic()
    first = cli(capsys, "index", str(vault), "--data", data)
    seconds = time.monotonic() - started
    errors = {Path(e["path"]).name: e["message"] for e in first["errors"]}
    assert first["documents"] == len(corpus) == len(reads)
    budget = formats().limits.seconds
    assert seconds < budget * 2, seconds  # no file used its whole time budget, let alone hung
    found = cli(capsys, "search", str(vault), "heron nesting counts", "--data", data)
    assert found["results"][0]["path"] == "bad/#hashtag start.pdf"
    # the one `#` of the link starts its page: the name's own is URL-encoded
    assert found["results"][0]["link"] == "bad/%23hashtag%20start.pdf#page=1"
    for name in corpus:
        indexed = name not in errors or errors[name].startswith("indexed in part")
        assert indexed or errors[name].startswith("not indexed: "), (name, errors.get(name))
    assert errors["encrypted with a password.pdf"] == (
        "not indexed: Encrypted: it needs a password, and Ora never guesses one")
    assert "encrypted, no user password.pdf" not in errors  # opens as in any viewer
    assert errors["image only.pdf"] == f"not indexed: {IMAGE_ONLY}"
    assert errors["zero pages.pdf"] == "not indexed: Unreadable PDF: it has no pages"
    assert "memory budget" in errors["zip bomb stream.pdf"]
    assert errors["five thousand pages.pdf"].startswith("indexed in part: ")
    for readable in ("paper #2.pdf", "symbol font.pdf", "courier memo.pdf", "bad xref.pdf",
                     "no xref.pdf", "no eof.pdf"):
        assert readable not in errors, (readable, errors.get(readable))
    reads.clear()
    again = cli(capsys, "index", str(vault), "--data", data)
    assert reads == [] and again["embedded"] == 0 and again["errors"] == first["errors"]


def test_a_document_in_a_private_folder_is_private_metadata_included(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    vault = tmp_path / "vault"
    (vault / "Health").mkdir(parents=True)
    (vault / "ora.yaml").write_text("private:\n  - Health/\n", encoding="utf-8")
    (vault / "Health" / "labs.pdf").write_bytes(one_page_pdf(
        "Ferritin was low in the March blood panel.", title="Blood panel zqxtitle",
        author="Dr zqxauthor", subject="zqxsubject haematology"))
    (vault / "Public.pdf").write_bytes(one_page_pdf("A public leaflet on blood donation."))
    data = str(tmp_path / "data")
    cli(capsys, "index", str(vault), "--data", data)
    for query in ("ferritin March blood panel", "zqxtitle", "zqxauthor", "zqxsubject"):
        public = cli(capsys, "search", str(vault), query, "--data", data)
        shown = json.dumps(public["results"])
        assert "zqx" not in shown and "Ferritin" not in shown
        assert all(r["path"] != "Health/labs.pdf" for r in public["results"])
        private = cli(capsys, "search", str(vault), query, "--data", data, "--private")
        top = private["results"][0]
        assert top["path"] == "Health/labs.pdf" and top["private"] is True, query


def test_extraction_runs_within_its_time_budget(tmp_path: Path) -> None:
    big = tmp_path / "big.pdf"
    big.write_bytes(bad_corpus()["five thousand pages.pdf"])
    tight = DocumentLimits(max_bytes=1 << 30, max_pages=100_000, max_text_bytes=1 << 30,
                           max_chunks=10, seconds=0.05, memory_mb=768)
    started = time.monotonic()
    with pytest.raises(DocumentError, match=r"0\.05-second budget"):
        extract_in_worker(big, "pdf", tight)
    assert time.monotonic() - started < 5


def test_html_and_text_documents_have_no_page(tmp_path: Path) -> None:
    page = tmp_path / "saved.html"
    page.write_text("<html><head><title>Fermenting</title><script>x()</script></head>"
                    "<body><h1>Kimchi</h1><p>Salt the cabbage overnight.</p></body></html>",
                    encoding="utf-8")
    found = extract(page, "html")
    assert found.meta == {"title": "Fermenting"} and found.paged is False
    assert found.pages == ["Kimchi\n\nSalt the cabbage overnight."]
    empty = tmp_path / "blank.txt"
    empty.write_text("  \n", encoding="utf-8")
    with pytest.raises(DocumentError, match="Empty"):
        extract(empty, "text")


def _docx(text: str) -> bytes:
    """A minimal Word document (what Word itself needs: content types, the package
    relationship, one paragraph)."""
    import io
    import zipfile

    out = io.BytesIO()
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("[Content_Types].xml", (
            '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
            'package/2006/content-types"><Default Extension="rels" ContentType="application/'
            'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType='
            '"application/xml"/><Override PartName="/word/document.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'))
        z.writestr("_rels/.rels", (
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
            'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://'
            'schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target='
            '"word/document.xml"/></Relationships>'))
        z.writestr("word/document.xml", (
            f'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{w}"><w:body><w:p><w:r>'
            f"<w:t>{text}</w:t></w:r></w:p></w:body></w:document>"))
    return out.getvalue()


def test_office_documents_are_read_through_the_optional_converter(tmp_path: Path) -> None:
    pytest.importorskip("markitdown")
    doc = tmp_path / "minutes.docx"
    doc.write_bytes(_docx("The board approved the new ferry timetable."))
    found = extract_in_worker(doc, "docx")
    assert "ferry timetable" in found.pages[0] and found.paged is False


def test_without_the_converter_an_office_document_is_named_with_the_way_to_read_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "markitdown", None)  # as when the extra is not installed
    doc = tmp_path / "minutes.docx"
    doc.write_bytes(_docx("Minutes."))
    with pytest.raises(DocumentError, match=r"ora-vault-sidecar\[documents\]"):
        extract(doc, "docx")


def test_answers_and_chat_notes_cite_a_documents_page() -> None:
    from sidecar.answers.prompt import citation, extractive, numbered_context
    from sidecar.memory.chat_note import source_line

    result = {"path": "Papers/Tidal pumping.pdf", "title": "Tidal Pumping", "line_start": None,
              "line_end": None, "page": 6, "link": "Papers/Tidal pumping.pdf#page=6",
              "text": "A wedge of salt water.", "private": False, "flags": []}
    cited = citation(1, result)
    assert (cited["page"], cited["link"]) == (6, "Papers/Tidal pumping.pdf#page=6")
    assert "[1] (Papers/Tidal pumping.pdf, page 6)" in numbered_context([cited], "Where?")
    assert "[1] Papers/Tidal pumping.pdf#page=6" in extractive([cited], "no model", 80)
    assert source_line(cited, "") == (
        "- [1] [[Papers/Tidal pumping.pdf#page=6|Tidal Pumping]], page 6")
    note = {**result, "path": "Engrams/A.md", "line_start": 3, "line_end": 9}
    del note["page"], note["link"]
    assert "[1] Engrams/A.md:3-9" in extractive([citation(1, note)], "no model", 80)


def test_a_document_typed_by_its_folder_as_unsearchable_is_tracked_but_never_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    vault = tmp_path / "vault"
    (vault / "Maps").mkdir(parents=True)
    (vault / "ora.yaml").write_text("folders:\n  Maps/: matrix\n", encoding="utf-8")
    (vault / "Maps" / "overview.pdf").write_bytes(one_page_pdf("An overview of everything."))
    reads: list[str] = []
    monkeypatch.setattr(plan_module, "extract_in_worker",
                        lambda path, *a, **k: reads.append(path.name))
    data = str(tmp_path / "data")
    for _ in range(2):
        indexed = cli(capsys, "index", str(vault), "--data", data)
        assert (indexed["documents"], indexed["chunks"], indexed["errors"]) == (1, 0, [])
    assert reads == []


@pytest.mark.parametrize("module", ["sidecar.documents.ingest", "sidecar.index.documents",
                                    "sidecar.documents.worker", "sidecar.documents.manifest"])
def test_each_documents_module_imports_first_in_a_fresh_interpreter(module: str) -> None:
    # The index's half once lived in sidecar/documents/ and imported the index, which imports
    # it back: `import sidecar.documents.ingest` alone failed on the cycle.
    import subprocess

    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr[-1000:]
