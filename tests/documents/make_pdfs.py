"""PDFs made on the fly for the document tests and bench/bench_documents.py (nothing binary is
committed): a 14-page paper, and a corpus of broken, fuzzed, encrypted and odd PDFs.

The paper is a real multi-page PDF laid out by fpdf2 (a test-only dependency): a title page,
numbered sections, a figure with its caption on every page from page 3, and text that differs
from page to page, so a question about one figure or section has exactly one right page.
Everything is deterministic (fixed seeds, fixed creation date), so a rebuild gives the same bytes.
"""

from __future__ import annotations

import datetime as dt
import random
import zlib
from dataclasses import dataclass
from pathlib import Path

from fpdf import FPDF
from pypdf import PdfReader, PdfWriter

TITLE = "Tidal Pumping of Salt into Coastal Aquifers"
AUTHOR = "Ines Okafor and Tomas Lindqvist"
SUBJECT = "Hydrogeology of estuaries"
_DATE = dt.datetime(2024, 3, 1, tzinfo=dt.UTC)


@dataclass(frozen=True)
class Page:
    """One page of the paper: its section heading, its paragraphs and its figure caption."""

    section: str
    paragraphs: tuple[str, ...]
    figure: str = ""


# Page n of the paper is PAGES[n - 1]; the tests ask about these words and expect that page.
PAGES: tuple[Page, ...] = (
    Page("Abstract", (
        "We measure how tides push sea water into the sandy aquifer beneath the Wadden estuary.",
        "Over two years, forty observation wells recorded salinity every ten minutes.",
    )),
    Page("1 Introduction", (
        "Fresh groundwater feeds half of the coastal towns in the region.",
        "Sea level rise and pumping both threaten it; the tide's own role is less known.",
        "Earlier work treated the shoreline as a fixed boundary with constant head.",
    )),
    Page("2 Study site", (
        "The site is a barrier island of medium sand over a clay layer at twelve metres.",
        "A dune ridge separates the beach from a polder drained by pumping stations.",
    ), "Figure 1: Map of the barrier island with the forty wells marked as triangles."),
    Page("3 Instruments", (
        "Each well holds a conductivity logger and a pressure transducer in a steel screen.",
        "Loggers were cleaned of barnacles and recalibrated every three months.",
    ), "Figure 2: Photograph of a conductivity logger fouled by barnacles after one season."),
    Page("4 Tidal signal in the wells", (
        "Head in the wells follows the tide with a lag that grows with distance inland.",
        "The amplitude decays exponentially; the decay length is ninety metres.",
    ), "Figure 3: Hydraulic head against time in three wells, showing the growing lag."),
    Page("5 Salinity wedge", (
        "A wedge of salt water lies under the beach and thins towards the dunes.",
        "Its toe moved forty metres landward during the spring tides of the storm season.",
    ), "Figure 4: Cross-section of the salinity wedge with contour lines of chloride."),
    Page("6 Upper saline plume", (
        "Above the wedge, a plume of salt water circulates under the intertidal zone.",
        "Seawater infiltrates at high tide and discharges near the low-water line.",
    ), "Figure 5: The upper saline plume traced by a dye injected at high tide."),
    Page("7 Numerical model", (
        "We solved variable-density flow with a finite-element code on a vertical section.",
        "The mesh had thirty thousand triangles refined near the beach face.",
    ), "Figure 6: The finite-element mesh, refined where the tide meets the sand."),
    Page("8 Calibration", (
        "Permeability and dispersivity were fitted to one year of salinity records.",
        "The fitted permeability agrees with slug tests within a factor of two.",
    ), "Figure 7: Observed against simulated salinity for the calibration year."),
    Page("9 Tidal pumping", (
        "Tidal pumping is the net landward transport of salt caused by the oscillation.",
        "It adds a quarter to the salt flux that the mean sea level alone would give.",
    ), "Figure 8: Net salt flux with and without tides, as bars for each month."),
    Page("10 Storm surges", (
        "A storm surge in January flooded the beach for two days.",
        "Salinity in the shallow wells stayed high for six months after the surge.",
    ), "Figure 9: Recovery of shallow-well salinity over six months after the January surge."),
    Page("11 Pumping in the polder", (
        "The drainage pumps lower the water table behind the dunes by a metre.",
        "Halving their rate would push the wedge toe back by fifteen metres.",
    ), "Figure 10: Wedge toe position for four pumping scenarios in the polder."),
    Page("12 Discussion", (
        "Models that ignore the tide underestimate the salt reaching the freshwater lens.",
        "Managers should treat the intertidal zone as an active source of salt.",
    ), "Figure 11: Sketch of the three salt pathways: wedge, plume and surge."),
    Page("13 Conclusions", (
        "The tide pumps salt landward, mostly through the upper saline plume.",
        "Monitoring should continue through at least one more storm season.",
        "References: Robinson 2007; Michael 2005; Werner 2013.",
    )),
)


def _paper_pdf(pages: tuple[Page, ...] = PAGES) -> FPDF:
    pdf = FPDF(format="A4")
    pdf.set_title(TITLE)
    pdf.set_author(AUTHOR)
    pdf.set_subject(SUBJECT)
    pdf.set_creator("tests/documents/make_pdfs.py")
    pdf.set_creation_date(_DATE)
    pdf.set_auto_page_break(False)
    pdf.add_page()  # the title page
    pdf.set_font("Helvetica", "B", 20)
    pdf.multi_cell(0, 10, TITLE, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 12)
    pdf.multi_cell(0, 8, AUTHOR, new_x="LMARGIN", new_y="NEXT")
    for n, page in enumerate(pages):
        if n > 0:  # the abstract shares the title page
            pdf.add_page()
        pdf.set_font("Helvetica", "B", 14)
        pdf.multi_cell(0, 9, page.section, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(2)
        pdf.set_font("Times", "", 11)
        for text in page.paragraphs:
            pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(3)
        if page.figure:
            pdf.rect(pdf.l_margin, pdf.get_y() + 2, 120, 60)
            pdf.set_y(pdf.get_y() + 66)
            pdf.set_font("Helvetica", "I", 10)
            pdf.multi_cell(0, 5, page.figure, new_x="LMARGIN", new_y="NEXT")
        pdf.set_y(-15)
        pdf.set_font("Helvetica", "", 8)
        pdf.cell(0, 5, str(pdf.page), align="C")
    return pdf


def paper_bytes(pages: tuple[Page, ...] = PAGES) -> bytes:
    """The paper: 14 pages, the title and abstract on page 1, then PAGES[n] on page n + 1."""
    return bytes(_paper_pdf(pages).output())


def page_of(section: str) -> int:
    """The 1-based page the paper prints `section` on (the abstract shares the title page)."""
    for n, page in enumerate(PAGES):
        if page.section == section:
            return n + 1
    raise KeyError(section)


def write_paper(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(paper_bytes())
    return path


# ---- the corpus of bad and odd PDFs ------------------------------------------------------------


def one_page_pdf(text: str, font: str = "Helvetica", title: str = "", author: str = "",
                 subject: str = "") -> bytes:
    """A one-page PDF of `text`, with its own title, author and subject when given."""
    pdf = FPDF()
    pdf.set_creation_date(_DATE)
    for value, setter in ((title, pdf.set_title), (author, pdf.set_author),
                          (subject, pdf.set_subject)):
        if value:
            setter(value)
    pdf.add_page()
    pdf.set_font(font, "", 12)
    pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def pages_pdf(pages: list[str], title: str = "") -> bytes:
    """A PDF of one page per text (an empty text gives a page without text)."""
    pdf = FPDF()
    pdf.set_creation_date(_DATE)
    if title:
        pdf.set_title(title)
    for text in pages:
        pdf.add_page()
        pdf.set_font("Helvetica", "", 12)
        if text:
            pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def _image_only() -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("L", (400, 200), 255)
    ImageDraw.Draw(image).text((20, 80), "scanned text nobody can search", fill=0)
    pdf = FPDF()
    pdf.set_creation_date(_DATE)
    pdf.add_page()
    pdf.image(image, x=10, y=10, w=180)
    return bytes(pdf.output())


def _writer_bytes(writer: PdfWriter) -> bytes:
    import io

    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _encrypted(user: str, owner: str) -> bytes:
    import io

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(one_page_pdf("A secret memo about pay."))))
    writer.encrypt(user_password=user, owner_password=owner, algorithm="RC4-128")
    return _writer_bytes(writer)


def _many_pages(n: int) -> bytes:
    import io

    page = PdfReader(io.BytesIO(one_page_pdf("The same short page, over and over."))).pages[0]
    writer = PdfWriter()
    for _ in range(n):
        writer.add_page(page)
    return _writer_bytes(writer)


def _zero_pages() -> bytes:
    return _writer_bytes(PdfWriter())


def _raw_pdf(objects: list[bytes]) -> bytes:
    """A PDF file from numbered object bodies (1-based), with a correct xref table."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)


def _content_page(stream: bytes, compress: bool) -> bytes:
    data = zlib.compress(stream, 9) if compress else stream
    flate = b" /Filter /FlateDecode" if compress else b""
    return _raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d%s >>\nstream\n" % (len(data), flate) + data + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ])


def _page_tree_loop() -> bytes:
    return _raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
        b"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>",
    ])


def _flipped(data: bytes, seed: int, flips: int) -> bytes:
    rng = random.Random(seed)
    out = bytearray(data)
    for _ in range(flips):
        at = rng.randrange(len(out) // 10, len(out))
        out[at] = rng.randrange(256)
    return bytes(out)


def bad_corpus() -> dict[str, bytes]:
    """About forty broken, fuzzed, encrypted and odd PDFs by file name. Each either has text a
    reader can find or is one an index must name in its errors; none may crash or hang it."""
    paper = paper_bytes()
    rng = random.Random(27)
    files: dict[str, bytes] = {
        "empty.pdf": b"",
        "header only.pdf": b"%PDF-1.7\n",
        "not a pdf.pdf": b"Just some plain words, saved with the wrong extension.\n",
        "zip in disguise.pdf": b"PK\x03\x04" + bytes(rng.randrange(256) for _ in range(2000)),
        "encrypted with a password.pdf": _encrypted("hunter2", "owner-secret"),
        "encrypted, no user password.pdf": _encrypted("", "owner-secret"),
        "image only.pdf": _image_only(),
        "zero pages.pdf": _zero_pages(),
        "five thousand pages.pdf": _many_pages(5000),
        "page tree loop.pdf": _page_tree_loop(),
        "zip bomb stream.pdf": _content_page(b"BT /F1 12 Tf 72 700 Td (bomb) Tj ET\n"
                                             + b" " * 400_000_000, compress=True),
        "endless text stream.pdf": _content_page(
            b"BT /F1 1 Tf " + b"(word word word word word) Tj 0 -0.01 Td " * 400_000 + b"ET",
            compress=True),
        "symbol font.pdf": one_page_pdf("abgdezhq alpha beta gamma", font="Symbol"),
        "dingbats font.pdf": one_page_pdf("a1 a2 a3 scissors and stars", font="ZapfDingbats"),
        "courier memo.pdf": one_page_pdf("A memo typed in Courier about the quarterly ferry "
                                      "timetable.", font="Courier"),
        "paper #2.pdf": one_page_pdf("Notes on tern colonies, a file with a hash in its name."),
        "#hashtag start.pdf": one_page_pdf("Another hash name: heron nesting counts."),
        "bad xref.pdf": paper.replace(b"xref", b"xref\n9 9 9 bogus", 1),
        "no xref.pdf": paper[: paper.rfind(b"xref")],
        "no eof.pdf": paper[: paper.rfind(b"%%EOF")],
        "huge mediabox.pdf": _content_page(b"BT /F1 12 Tf 72 700 Td (wide) Tj ET", False)
        .replace(b"612 792", b"14400 14400"),
        "negative length.pdf": _content_page(b"BT /F1 12 Tf (neg) Tj ET", False)
        .replace(b"/Length 24", b"/Length -99999"),
        "unclosed string.pdf": _content_page(b"BT /F1 12 Tf 72 700 Td (never closed Tj ET",
                                             False),
    }
    for fraction in (0.05, 0.3, 0.6, 0.95):
        files[f"truncated at {int(fraction * 100)} percent.pdf"] = paper[: int(len(paper)
                                                                              * fraction)]
    for seed in range(5):
        noise = bytes(rng.randrange(256) for _ in range(rng.randrange(100, 50_000)))
        files[f"random bytes {seed}.pdf"] = b"%PDF-1.4\n" + noise
    for seed in range(8):
        files[f"bit flipped {seed}.pdf"] = _flipped(paper, seed, flips=5 + 20 * seed)
    return files


def write_bad_corpus(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, data in bad_corpus().items():
        path = folder / name
        path.write_bytes(data)
        out.append(path)
    return out


if __name__ == "__main__":  # python tests/documents/make_pdfs.py FOLDER: write them to look at
    import sys

    target = Path(sys.argv[1])
    write_paper(target / "paper.pdf")
    write_bad_corpus(target / "bad")
