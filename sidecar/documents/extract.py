"""Text of a document, page by page, and its own title, author and subject.

This runs inside the extraction worker (`worker.py`), never in the sidecar's process: the
libraries parse hostile bytes, and a file that makes one loop, allocate without end or crash
must cost only that process. PDFs are read by pypdfium2 (PDFium, the engine of Chrome's
viewer), chosen by measurement against pypdf (docs/benchmarks.md "Documents"); HTML and plain
text by the standard library; EPUB, DOCX and PPTX through MarkItDown when the optional
`documents` extra is installed.

An encrypted PDF is opened as PDFium opens it without a password: one whose user password is
empty (only editing or printing restricted) reads as in any viewer; one that needs a password
is reported as encrypted. No password is ever tried or guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from sidecar.documents.formats import DocumentLimits, formats, is_paged
from sidecar.documents.html import html_text

IMAGE_ONLY = "Image-only: no text layer (scanned pages need OCR, which Ora does not do)"
ENCRYPTED = "Encrypted: it needs a password, and Ora never guesses one"
# Control characters other than tab and newline, C0, DEL and C1: PDF text layers carry them
# (form feeds, NULs from broken fonts), a model's reply may (CSI \x9b, OSC \x9d), and no store
# or terminal wants them.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_META_KEYS = {"Title": "title", "Author": "author", "Subject": "subject", "Keywords": "keywords"}


class DocumentError(Exception):
    """A document that cannot be read; the message is the reason `ora index` shows."""


@dataclass
class Extracted:
    """A document's text: `pages` (one string per page; one for a format without pages), its
    own metadata, and why the rest was left out (`cut`, None when nothing was)."""

    pages: list[str] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    paged: bool = True
    cut: str | None = None


def clean_text(text: str) -> str:
    """Text safe to store: lines ended by `\\n`, no control characters, valid UTF-8. NEL
    (U+0085) is a line break to Unicode and to `str.splitlines`, but Ora splits lines on `\\n`
    only (a NEL left in would make the two count lines differently): it becomes `\\n`."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x85", "\n")
    text = _CONTROL.sub(" ", text)
    return text.encode("utf-8", "replace").decode("utf-8")


class _Budget:
    """The text bytes left for a document (`max_text_bytes`)."""

    def __init__(self, limits: DocumentLimits) -> None:
        self.left = limits.max_text_bytes
        self.cut: str | None = None

    def take(self, text: str) -> str | None:
        """`text` if it fits, its start if only some does, None once nothing is left."""
        if self.left <= 0:
            return None
        data = text.encode("utf-8")
        if len(data) > self.left:
            text = data[: self.left].decode("utf-8", "ignore")
            self.cut = f"its text is over {formats().limits.max_text_bytes} bytes"
        self.left -= len(data)
        return text


def _pdf(path: Path, limits: DocumentLimits) -> Extracted:
    import pypdfium2 as pdfium  # in the worker only

    try:
        doc = pdfium.PdfDocument(path)  # no password: see the module docstring
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise DocumentError(ENCRYPTED) from None
        if "success" in str(exc).lower():  # PDFium found no error, and no document either
            raise DocumentError("Unreadable PDF: it has no pages") from None
        raise DocumentError(f"Unreadable PDF: {_reason(exc)}") from None
    try:
        total = len(doc)
        if total == 0:
            raise DocumentError("Unreadable PDF: it has no pages")
        out = Extracted(meta=_pdf_meta(doc))
        budget = _Budget(limits)
        for n in range(min(total, limits.max_pages)):
            try:
                page = doc[n]
                textpage = page.get_textpage()
                text = textpage.get_text_bounded()
                textpage.close()
                page.close()
            except pdfium.PdfiumError:
                text = ""  # one broken page: the others still count
            kept = budget.take(clean_text(text))
            if kept is None:
                break
            out.pages.append(kept)
        out.cut = budget.cut
        if total > limits.max_pages and out.cut is None:
            out.cut = f"it has {total} pages, over the {limits.max_pages}-page limit"
        if not any(p.strip() for p in out.pages):
            raise DocumentError(IMAGE_ONLY)
        return out
    finally:
        doc.close()


def _pdf_meta(doc: object) -> dict[str, str]:
    try:
        found = doc.get_metadata_dict()  # type: ignore[attr-defined]
    except Exception:  # a broken Info dictionary: the text still counts
        return {}
    return {ours: " ".join(clean_text(str(found[theirs])).split())
            for theirs, ours in _META_KEYS.items() if str(found.get(theirs) or "").strip()}


def _reason(exc: Exception) -> str:
    """PDFium's reason without its wrapper text ("Failed to load document (PDFium: X).")."""
    found = re.search(r"PDFium: ([^)]*)", str(exc))
    return (found.group(1) if found else str(exc)).strip().rstrip(".") or "not a PDF"


def _text(path: Path, limits: DocumentLimits) -> Extracted:
    with path.open("rb") as f:
        data = f.read(limits.max_text_bytes + 1)
    out = Extracted(pages=[clean_text(data[: limits.max_text_bytes].decode("utf-8", "replace"))],
                    paged=False)
    if len(data) > limits.max_text_bytes:
        out.cut = f"its text is over {limits.max_text_bytes} bytes"
    return out


def _html(path: Path, limits: DocumentLimits) -> Extracted:
    raw = _text(path, limits)
    title, text = html_text(raw.pages[0])
    return Extracted(pages=[text], meta={"title": title} if title else {}, paged=False,
                     cut=raw.cut)


def _converted(path: Path, limits: DocumentLimits) -> Extracted:
    spec = formats()
    try:
        from markitdown import MarkItDown  # the optional `documents` extra
    except ImportError:
        raise DocumentError(
            f"Needs the optional '{spec.converter_extra}' extra to be read: "
            f"pip install 'ora-vault-sidecar[{spec.converter_extra}]'") from None
    try:
        result = MarkItDown(enable_plugins=False).convert_local(str(path))
    except Exception as exc:  # the converter's own errors name many libraries' exceptions
        raise DocumentError(f"Unreadable document: {type(exc).__name__}: {exc}"[:300]) from None
    budget = _Budget(limits)
    text = budget.take(clean_text(result.markdown or "")) or ""
    title = " ".join((result.title or "").split())
    return Extracted(pages=[text], meta={"title": title} if title else {}, paged=False,
                     cut=budget.cut)


def extract(path: Path, fmt: str, limits: DocumentLimits | None = None) -> Extracted:
    """The text of the document at `path` in format `fmt` (DocumentError: why it cannot be
    read). Call it in the worker (`worker.extract_in_worker`), not in the sidecar."""
    limits = limits or formats().limits
    if fmt == "pdf":
        out = _pdf(path, limits)
    elif fmt == "html":
        out = _html(path, limits)
    elif fmt == "text":
        out = _text(path, limits)
    else:
        out = _converted(path, limits)
    out.paged = is_paged(fmt)
    if not any(p.strip() for p in out.pages):
        raise DocumentError(IMAGE_ONLY if out.paged else "Empty: no text to index")
    return out
