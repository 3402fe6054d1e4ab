"""Saving a web page into the vault: a `type: web` note, only when the user asks (`ora web save`).

'The Vault': "Nothing about external retrieval enters the vault unless the user manually saves it
as `type: web` (which is then retrieved at vault P4, not at the external tier weight)." The page
is fetched (HTML reduced to its text) unless the caller gives the title and text, and written as
a new note — never over an existing one, nor with the name of a note elsewhere — in the folder
the vault settings type as `web`.

The page is text from outside: it is written inert (`vault/inert.py`: no Templater command, query
block or inline query of it runs). Its file name is its title made safe: no character a file
system or a link refuses, no leading dot (a hidden file no one would see), at most `_NAME_MAX`
bytes of UTF-8 with the extension, a number and the writer's temporary copy's decoration. A
folder rule naming a hidden folder (`.obsidian/`) is refused: Ora writes into no dot-folder. A
page in a charset Python does not know is read as UTF-8, undecodable bytes replaced.
"""

from __future__ import annotations

import codecs
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
from sidecar.vault.inert import encodable, inert
from sidecar.vault.scan import is_ignored, iter_note_paths
from sidecar.vault.vault_settings import load_vault_settings
from sidecar.web.searxng import WebSearchFailed, read_at_most

_UNSAFE = re.compile(r'[\\/:*?"<>|#^\[\]\x00-\x1f]+')
_NAME_MAX = 255  # bytes of one file name (ext4, APFS, and most others)
_WRITER_ROOM = len("..01234567.ora-tmp")  # the writer's temporary copy: `.NAME.xxxxxxxx.ora-tmp`
_NAME_CHARS = 100  # a title cut for a file name: enough to tell pages apart
_NOTE = ".md"
_SUFFIX_ROOM = len(" 999")  # the numbered names save_page tries
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
            body = await read_at_most(resp, limit)
            html = "html" in resp.headers.get("Content-Type", "text/html")
            charset = _known(resp.charset)
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise WebSearchFailed(f"cannot fetch {url}: {exc or type(exc).__name__}") from exc
    if body is None:
        raise WebSearchFailed(f"{url} is larger than {limit} bytes (ORA_MAX_FILE_BYTES)")
    raw = body.decode(charset, errors="replace").replace(_BREAK, "")
    if not html:
        return Page(url, "", raw.strip())
    parser = _Text()
    parser.feed(raw)
    return Page(url, " ".join(parser.title.split()), parser.text())


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
    settings = load_vault_settings(config.vault)
    folders = sorted((p for p, t in settings.folders if t == "web"), key=len)
    folder = folders[0].strip("/") if folders else "Web"
    if is_ignored(f"{folder}/page{_NOTE}"):
        raise BadRequest(f"the web folder {folder!r} (a `web` folder rule of ora.yaml) is hidden "
                         "or not a folder Obsidian shows: Ora never writes into a dot-folder; "
                         "change the rule")
    return folder


def file_stem(title: str, host: str) -> str:
    """A safe file name (without `.md`) for a page: its title, else its host, else `Web page`;
    no unsafe character, no leading dot, short enough in UTF-8 bytes for the numbered
    names save_page tries."""
    room = _NAME_MAX - _WRITER_ROOM - len(_NOTE) - _SUFFIX_ROOM

    def safe(candidate: str) -> str:
        name = _UNSAFE.sub(" ", " ".join(encodable(candidate).split())).strip(" .")
        return name[:_NAME_CHARS].encode("utf-8")[:room].decode("utf-8", "ignore").strip(" .")

    return next((name for name in map(safe, (title, host)) if name), "Web page")


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
    name = file_stem(page.title, host)
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
