"""A fetched page's charset, found as a browser finds it (WHATWG HTML, "determining the character
encoding"): a byte order mark, then the HTTP header's `charset`, then for HTML a `<meta charset>`
or `<meta http-equiv="Content-Type" content="…; charset=…">` in the first 1024 bytes (outside
comments), else UTF-8. A label is read as the WHATWG Encoding Standard reads it — `iso-8859-1`
and `us-ascii` are windows-1252, `gb2312` is GBK, as in every browser (`charset_labels`,
schema/web_tiers.json) — and one Python does not know is passed over. Bytes the charset cannot
decode are replaced (U+FFFD).
"""

from __future__ import annotations

import codecs
import re
from functools import cache

from sidecar.schema import load_json

_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_BE, "utf-16-be"),
         (codecs.BOM_UTF16_LE, "utf-16-le"))
_PRESCAN = 1024  # the bytes a browser looks in for a <meta> charset
_SNIFF = 8000  # the bytes git looks in for a NUL
_COMMENT = re.compile(rb"<!--.*?(?:-->|\Z)", re.S)
_META = re.compile(rb"<meta[\s/]([^>]*)", re.I)
_ATTR = re.compile(rb"""([^\s/>=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]*))?""")
_CHARSET_IN = re.compile(rb"""charset\s*=\s*["']?([^\s"';]+)""", re.I)


@cache
def _labels() -> dict[str, str]:
    return dict(load_json("web_tiers.json")["charset_labels"])


def known(label: str | bytes | None) -> str | None:
    """The Python codec a browser's label names, None when there is none."""
    if isinstance(label, bytes):
        label = label.decode("ascii", "replace")
    name = (label or "").strip().lower()
    try:
        return codecs.lookup(_labels().get(name, name)).name if name else None
    except LookupError:
        return None


def _meta_charset(head: bytes) -> str | None:
    """The charset a `<meta>` of `head` declares; UTF-16 is read as UTF-8, as a browser reads it
    (the `<meta>` itself was ASCII)."""
    for tag in _META.finditer(_COMMENT.sub(b"", head)):
        attrs = {key.lower(): value.strip(b"\"'") for key, value in _ATTR.findall(tag[1])}
        label = attrs.get(b"charset")
        if label is None and attrs.get(b"http-equiv", b"").lower() == b"content-type":
            found = _CHARSET_IN.search(attrs.get(b"content", b""))
            label = found[1] if found else None
        name = known(label)
        if name:
            return "utf-8" if name.startswith(("utf-16", "utf-32")) else name
    return None


def looks_binary(body: bytes, header: str | None) -> bool:
    """Whether a page's bytes are no text whatever its type says (an image or an archive served
    as `text/plain`): a NUL among its first bytes, as git tells a binary file, unless it is
    UTF-16 or UTF-32 (by its BOM or its header), whose text holds NULs."""
    wide = known(header) or ""
    if wide.startswith(("utf-16", "utf-32")) or body.startswith(
            (codecs.BOM_UTF16_BE, codecs.BOM_UTF16_LE)):  # UTF-32's BOMs begin with these
        return False
    return b"\x00" in body[:_SNIFF]


def decode_page(body: bytes, header: str | None, html: bool) -> str:
    """The text of a page's `body`, its charset found as a browser finds it."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return body[len(bom):].decode(name, "replace")
    charset = known(header) or (_meta_charset(body[:_PRESCAN]) if html else None) or "utf-8"
    return body.decode(charset, "replace")
