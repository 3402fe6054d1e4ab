"""Saving a web page into the vault: a `type: web` note, only when the user asks (`ora web save`).

'The Vault': "Nothing about external retrieval enters the vault unless the user manually saves it
as `type: web` (which is then retrieved at vault P4, not at the external tier weight)." The page
is fetched (HTML reduced to its text) unless the caller gives the title and text, and written as
a new note — never over an existing one, nor with the name of a non-private note elsewhere — in
the folder the vault settings type as `web`.

The page is text from outside: it is written inert (`vault/inert.py`: no Templater command, query
block or inline query of it runs, nothing of it is fetched or embedded when it is shown, and no
tag of it is read: a page mentioning `#private` or `#archived` leaves the note as it is), its
line ends `\\n` (a lone `\\r` ends a line for Obsidian too). Its URL is read as a browser reads
it (`web/urls.py`) and refused when it holds a control character or a line break, which a
browser drops without a word but which would start lines of their own in the note; it is written
in the note's `Saved from <…>` line with spaces and the like percent-encoded. Its file name is
its title made safe: no character a file system or a link refuses, no leading dot (a hidden file
no one would see), at most 255 bytes of UTF-8 with the extension, a number and the writer's
temporary copy's decoration. A
folder rule naming a hidden folder (`.obsidian/`) is refused: Ora writes into no dot-folder.

A fetched page is read as a browser reads it: its URL as `web/urls.py` reads it (`\\` as `/`),
its charset as `web/charset.py` finds it (BOM, HTTP header, `<meta>`, else UTF-8; a charset
Python does not know passed over, undecodable bytes replaced). Only text is saved: a PDF, an
image or any type `page_types` of schema/web_tiers.json does not name is refused
(PageNotSaved), never written as a note of garbage. After a redirect, the note records the URL
the page came from. A URL's user name and password are never written into the note; no control
character of a page is (a NUL makes Ora take a file for a binary one), however it came. A note
over `max_file_bytes` once made inert (a page of tags grows) is refused, nothing written: Ora
would never index it, and a cut page would pass for the whole of it.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from functools import cache

import aiohttp

from sidecar.documents.extract import clean_text
from sidecar.documents.html import html_text
from sidecar.errors import BadRequest, OraError
from sidecar.schema import load_json
from sidecar.settings import Config
from sidecar.vault.inert import encodable, inert
from sidecar.vault.new_notes import create_named, public_names, safe_name, type_folder
from sidecar.vault.vault_settings import load_vault_settings
from sidecar.web.charset import decode_page, looks_binary
from sidecar.web.searxng import WebSearchFailed, fetch_failure, read_at_most
from sidecar.web.urls import host_of, link_safe, readable_host, request_url, without_userinfo

# Control characters and line breaks (C0, DEL, C1, U+2028, U+2029): never in a URL Ora saves.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# What a YAML double-quoted scalar must escape: its quote and backslash, what YAML does not
# allow printed or reads as a line break (controls, NEL, U+2028, U+2029, the BOM, U+FFFE,
# U+FFFF), and `<`, so that Templater's `<%` never appears in the file.
_YAML_ESCAPED = re.compile("[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd"
                           "\U00010000-\U0010ffff]|[\"\\\\<]")


class PageNotSaved(OraError):
    """The page cannot become a note: it is not text, or its note would be over the size
    limit."""

    code = "page_not_saved"
    status = 422


@dataclass(frozen=True)
class Page:
    url: str
    title: str
    text: str


def check_url(url: str) -> str:
    """The URL's host as a browser reads it; BadRequest unless it is an http(s) URL a browser
    opens, without a control character or a line break."""
    if _CONTROL.search(url):
        raise BadRequest(f"{url!r} is not an http(s) URL: it holds a control character or a "
                         "line break")
    return host_of(url)


@cache
def _page_types() -> dict[str, list[str]]:
    return dict(load_json("web_tiers.json")["page_types"])


def _is_html(url: str, content_type: str | None) -> bool:
    """Is a page of this type HTML (True) or other text (False)? PageNotSaved for any other
    type: its bytes would make a note of garbage."""
    mime = (content_type or "text/html").partition(";")[0].strip().lower()
    types = _page_types()
    if any(fnmatchcase(mime, t) for t in types["html"]):
        return True
    if any(fnmatchcase(mime, t) for t in types["text"]):
        return False
    raise PageNotSaved(f"{url} is not a text page ({mime}): Ora saves a page as a note of its "
                       "text. Save the file into the vault instead (Ora reads PDF, EPUB, DOCX "
                       "and PPTX documents kept there)")


async def fetch_page(config: Config, url: str) -> Page:
    """The page at `url`, as title and text (HTML reduced; other text kept as it is), under the
    URL it ended at after any redirect."""
    check_url(url)
    seconds = float(config.web_timeout)
    timeout = aiohttp.ClientTimeout(total=seconds)
    limit = int(config.max_file_bytes)
    try:
        async with (
            aiohttp.ClientSession(timeout=timeout) as session,
            session.get(request_url(url)) as resp,
        ):
            if resp.status != 200:
                raise WebSearchFailed(f"{url} answered HTTP {resp.status}")
            html = _is_html(url, resp.headers.get("Content-Type"))
            body = await read_at_most(resp, limit)
            final = str(resp.url) if resp.history else url  # the site the text came from
            charset = resp.charset
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise WebSearchFailed(f"cannot fetch {url}: {fetch_failure(exc, seconds)}") from exc
    if body is None:
        raise WebSearchFailed(f"{url} is larger than {limit} bytes (ORA_MAX_FILE_BYTES)")
    if looks_binary(body, charset):
        raise PageNotSaved(f"{url} is not a text page (its bytes are binary, whatever its type "
                           "says): save the file into the vault instead")
    # Reducing a large page takes a while: not on the server's event loop.
    return await asyncio.to_thread(_page, final, decode_page(body, charset, html), html)


def _page(url: str, raw: str, html: bool) -> Page:
    return Page(url, *html_text(raw)) if html else Page(url, "", raw.strip())


def web_folder(config: Config) -> str:
    """The folder the vault settings type as `web` (the shortest such rule); BadRequest when
    it is a hidden folder."""
    return type_folder(load_vault_settings(config.vault, config.data), "web", "Web")


def _yaml_string(value: str) -> str:
    """`value` as a YAML double-quoted scalar that every YAML reader reads back as it is (JSON's
    `\\ud83d\\ude00` for a non-BMP character is no YAML: its surrogates are refused)."""
    return '"' + _YAML_ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", value) + '"'


def note_text(page: Page, saved: str) -> str:
    """The note of a saved page: frontmatter, then the page's title, its URL as a link and its
    text, made inert (`check_url` refused what could not be)."""
    url = encodable(page.url.strip())
    title = " ".join(page.title.split()) or readable_host(host_of(url)) or url
    head = ["---", "type: web", "nexus: []", "tags: []", f"url: {_yaml_string(url)}",
            f"date created: {saved}", "---"]
    body = [f"# {title}", "", f"Saved from <{link_safe(url)}> on {saved}."]
    if page.text.strip():
        body += ["", page.text.strip()]
    return "\n".join(head) + "\n" + inert("\n".join(body)) + "\n"


def cleaned(page: Page) -> Page:
    """`page` as a note may hold it, wherever it came from (fetched, or given to the CLI or the
    HTTP API): no control character (a NUL makes Ora take the note for a binary file), no user
    name or password of its URL. What the CLI and the HTTP API answer with too."""
    return Page(without_userinfo(page.url), clean_text(page.title), clean_text(page.text))


def _within(text: str, limit: int) -> str:
    """`text`, unless its UTF-8 is over `limit` bytes: Ora would never index such a note, so
    none is written (PageNotSaved)."""
    size = len(text.encode("utf-8"))
    if size > limit:
        raise PageNotSaved(
            f"the note of this page would be {size} bytes once made safe to open in Obsidian, "
            f"over the {limit}-byte limit (ORA_MAX_FILE_BYTES): Ora would never index it, so "
            "nothing was saved; save a shorter text (`--text`) or raise max_file_bytes")
    return text


def save_page(config: Config, page: Page) -> str:
    """Write `page` as a new `type: web` note; its vault path."""
    host = readable_host(check_url(page.url))
    page = cleaned(page)
    name = safe_name(page.title, host, fallback="Web page")
    folder = web_folder(config)
    saved = datetime.now(UTC).date().isoformat()
    limit = int(config.max_file_bytes)
    return create_named(config.vault, folder, name, _within(note_text(page, saved), limit),
                        public_names(config.vault, limit, data=config.data))[0]
