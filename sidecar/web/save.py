"""Saving a web page into the vault: a `type: web` note, only when the user asks (`ora web save`).

'The Vault': "Nothing about external retrieval enters the vault unless the user manually saves it
as `type: web` (which is then retrieved at vault P4, not at the external tier weight)." The page
is fetched (HTML reduced to its text) unless the caller gives the title and text, and written as
a new note — never over an existing one, nor with the name of a note elsewhere — in the folder
the vault settings type as `web`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import PurePosixPath
from urllib.parse import urlsplit

import aiohttp

from sidecar.errors import BadRequest, Conflict
from sidecar.settings import Config
from sidecar.vault.edit import create_note
from sidecar.vault.scan import iter_note_paths
from sidecar.vault.vault_settings import folder_for_type, load_vault_settings
from sidecar.web.searxng import WebSearchFailed

_UNSAFE = re.compile(r'[\\/:*?"<>|#^\[\]\x00-\x1f]+')
_BREAK = "\x00"  # a block boundary (NUL never survives into a note)
_SKIP = {"script", "style", "noscript", "template", "svg", "head"}
_BLOCKS = {"p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "section",
           "article", "blockquote", "pre"}


class _Text(HTMLParser):
    """The title and readable text of an HTML page (no scripts, styles or markup)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title, self.parts, self._skip, self._in_title = "", list[str](), 0, False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in _SKIP:
            self._skip += 1
        elif tag in _BLOCKS:
            self.parts.append(_BREAK)

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in _SKIP and self._skip:
            self._skip -= 1
        elif tag in _BLOCKS:
            self.parts.append(_BREAK)

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skip:
            self.parts.append(data)

    def text(self) -> str:
        # Line breaks inside a block are HTML whitespace; blocks become paragraphs.
        blocks = (" ".join(block.split()) for block in "".join(self.parts).split(_BREAK))
        return "\n\n".join(block for block in blocks if block)


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
            body = await resp.content.read(limit + 1)
            html = "html" in resp.headers.get("Content-Type", "text/html")
            charset = resp.charset or "utf-8"
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise WebSearchFailed(f"cannot fetch {url}: {exc or type(exc).__name__}") from exc
    if len(body) > limit:
        raise WebSearchFailed(f"{url} is larger than {limit} bytes (ORA_MAX_FILE_BYTES)")
    raw = body.decode(charset, errors="replace").replace(_BREAK, "")
    if not html:
        return Page(url, "", raw.strip())
    return Page(url, *html_text(raw))


def html_text(raw: str) -> tuple[str, str]:
    """The title and readable text (blocks as paragraphs) of an HTML page."""
    parser = _Text()
    parser.feed(raw.replace(_BREAK, ""))
    return " ".join(parser.title.split()), parser.text()


def web_folder(config: Config) -> str:
    """The folder the vault settings type as `web` (the shortest such rule)."""
    return folder_for_type(load_vault_settings(config.vault), "web") or "Web"


def note_text(page: Page, saved: str) -> str:
    title = page.title or urlsplit(page.url).hostname or page.url
    head = ["---", "type: web", "nexus: []", "tags: []", f"url: {json.dumps(page.url)}",
            f"date created: {saved}", "---", f"# {title}", "",
            f"Saved from <{page.url}> on {saved}."]
    return "\n".join([*head, "", page.text.strip(), ""]) if page.text.strip() else (
        "\n".join(head) + "\n")


def save_page(config: Config, page: Page) -> str:
    """Write `page` as a new `type: web` note; its vault path."""
    host = check_url(page.url)
    name = _UNSAFE.sub(" ", page.title or host).strip(" .")[:100] or host
    folder = web_folder(config)
    saved = datetime.now(UTC).date().isoformat()
    text = note_text(page, saved)
    # Obsidian resolves a link by the note's name wherever it is: a second note of a name
    # would make the vault's links to the first ambiguous.
    taken = {PurePosixPath(rel).stem.casefold() for rel in iter_note_paths(config.vault)}
    for n in range(1, 1000):
        stem = name if n == 1 else f"{name} {n}"
        if stem.casefold() in taken:
            continue
        rel = f"{folder}/{stem}.md"
        try:
            create_note(config.vault, rel, text)
        except Conflict:
            continue
        return rel
    raise Conflict(f"no free file name for {name!r} in {folder}")
