"""Saving a web page into the vault: a `type: web` note, only when the user asks (`ora web save`).

'The Vault': "Nothing about external retrieval enters the vault unless the user manually saves it
as `type: web` (which is then retrieved at vault P4, not at the external tier weight)." The page
is fetched (HTML reduced to its text) unless the caller gives the title and text, and written as
a new note — never over an existing one, nor with the name of a non-private note elsewhere — in
the folder the vault settings type as `web`.

The page is text from outside: it is written inert (`vault/inert.py`: no Templater command, query
block or inline query of it runs). Its file name is its title made safe: no character a file
system or a link refuses, no leading dot (a hidden file no one would see), at most 255
bytes of UTF-8 with the extension, a number and the writer's temporary copy's decoration. A
folder rule naming a hidden folder (`.obsidian/`) is refused: Ora writes into no dot-folder. A
page in a charset Python does not know is read as UTF-8, undecodable bytes replaced.
"""

from __future__ import annotations

import codecs
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlsplit

import aiohttp

from sidecar.documents.html import html_text
from sidecar.errors import BadRequest
from sidecar.settings import Config
from sidecar.vault.inert import encodable, inert
from sidecar.vault.new_notes import create_named, public_names, safe_name, type_folder
from sidecar.vault.vault_settings import load_vault_settings
from sidecar.web.searxng import WebSearchFailed, read_at_most


@dataclass(frozen=True)
class Page:
    url: str
    title: str
    text: str


def check_url(url: str) -> str:
    """The URL's host; BadRequest unless it is an http(s) URL."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadRequest(f"{url!r} is not an http(s) URL")
    return parts.hostname


async def fetch_page(config: Config, url: str) -> Page:
    """The page at `url`, as title and text (HTML reduced; other text kept as it is)."""
    check_url(url)
    timeout = aiohttp.ClientTimeout(total=float(config.web_timeout))
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
        raise WebSearchFailed(f"cannot fetch {url}: {exc or type(exc).__name__}") from exc
    if body is None:
        raise WebSearchFailed(f"{url} is larger than {limit} bytes (ORA_MAX_FILE_BYTES)")
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
    return type_folder(load_vault_settings(config.vault), "web", "Web")


def note_text(page: Page, saved: str) -> str:
    """The note of a saved page: frontmatter, then the page's title and text made inert."""
    title = " ".join(page.title.split()) or urlsplit(page.url).hostname or page.url
    # JSON is YAML; `<` as an escape keeps the URL itself while `<%` never appears in the file.
    url = json.dumps(encodable(page.url)).replace("<", "\\u003c")
    head = ["---", "type: web", "nexus: []", "tags: []", f"url: {url}",
            f"date created: {saved}", "---"]
    body = [f"# {title}", "", f"Saved from <{page.url}> on {saved}."]
    if page.text.strip():
        body += ["", page.text.strip()]
    return "\n".join(head) + "\n" + inert("\n".join(body)) + "\n"


def save_page(config: Config, page: Page) -> str:
    """Write `page` as a new `type: web` note; its vault path."""
    host = check_url(page.url)
    name = safe_name(page.title, host, fallback="Web page")
    folder = web_folder(config)
    saved = datetime.now(UTC).date().isoformat()
    return create_named(config.vault, folder, name, note_text(page, saved),
                        public_names(config.vault, int(config.max_file_bytes)))[0]
