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
folder rule naming a hidden folder (`.obsidian/`) is refused: Ora writes into no dot-folder. A
page in a charset Python does not know is read as UTF-8, undecodable bytes replaced.
"""

from __future__ import annotations

import asyncio
import codecs
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime

import aiohttp

from sidecar.documents.html import html_text
from sidecar.errors import BadRequest
from sidecar.settings import Config
from sidecar.vault.inert import encodable, inert
from sidecar.vault.new_notes import create_named, public_names, safe_name, type_folder
from sidecar.vault.vault_settings import load_vault_settings
from sidecar.web.searxng import WebSearchFailed, fetch_failure, read_at_most
from sidecar.web.urls import host_of, link_safe, readable_host

# Control characters and line breaks (C0, DEL, C1, U+2028, U+2029): never in a URL Ora saves.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


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


async def fetch_page(config: Config, url: str) -> Page:
    """The page at `url`, as title and text (HTML reduced; other text kept as it is)."""
    check_url(url)
    seconds = float(config.web_timeout)
    timeout = aiohttp.ClientTimeout(total=seconds)
    limit = int(config.max_file_bytes)
    try:
        async with (
            aiohttp.ClientSession(timeout=timeout) as session,
            session.get(url) as resp,
        ):
            if resp.status != 200:
                raise WebSearchFailed(f"{url} answered HTTP {resp.status}")
            body = await read_at_most(resp, limit)
            html = "html" in resp.headers.get("Content-Type", "text/html")
            charset = _known(resp.charset)
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise WebSearchFailed(f"cannot fetch {url}: {fetch_failure(exc, seconds)}") from exc
    if body is None:
        raise WebSearchFailed(f"{url} is larger than {limit} bytes (ORA_MAX_FILE_BYTES)")
    # Reducing a large page takes a while: not on the server's event loop.
    return await asyncio.to_thread(_page, url, body, charset, html)


def _page(url: str, body: bytes, charset: str, html: bool) -> Page:
    raw = body.decode(charset, errors="replace").replace("\x00", "")  # never into a note
    if not html:
        return Page(url, "", raw.strip())
    return Page(url, *html_text(raw))


def _known(charset: str | None) -> str:
    """The page's charset when Python knows it, else UTF-8 (bytes it cannot decode are
    replaced)."""
    try:
        return codecs.lookup(charset or "utf-8").name
    except LookupError:
        return "utf-8"


def web_folder(config: Config) -> str:
    """The folder the vault settings type as `web` (the shortest such rule); BadRequest when
    it is a hidden folder."""
    return type_folder(load_vault_settings(config.vault, config.data), "web", "Web")


def note_text(page: Page, saved: str) -> str:
    """The note of a saved page: frontmatter, then the page's title, its URL as a link and its
    text, made inert (`check_url` refused what could not be)."""
    url = encodable(page.url.strip())
    title = " ".join(page.title.split()) or readable_host(host_of(url)) or url
    # JSON is YAML; `<` as an escape keeps the URL itself while `<%` never appears in the file.
    value = json.dumps(url).replace("<", "\\u003c")
    head = ["---", "type: web", "nexus: []", "tags: []", f"url: {value}",
            f"date created: {saved}", "---"]
    body = [f"# {title}", "", f"Saved from <{link_safe(url)}> on {saved}."]
    if page.text.strip():
        body += ["", page.text.strip()]
    return "\n".join(head) + "\n" + inert("\n".join(body)) + "\n"


def save_page(config: Config, page: Page) -> str:
    """Write `page` as a new `type: web` note; its vault path."""
    host = readable_host(check_url(page.url))
    name = safe_name(page.title, host, fallback="Web page")
    folder = web_folder(config)
    saved = datetime.now(UTC).date().isoformat()
    return create_named(config.vault, folder, name, note_text(page, saved),
                        public_names(config.vault, int(config.max_file_bytes), data=config.data))[0]
