"""`ora web save` writes text from outside: the saved note must be inert (no Templater command,
query block or inline query of the page runs in Obsidian, nothing of it is embedded, no tag of it
changes the note's status, whatever its line ends) and every page gets a safe note — a visible,
short enough file name, a readable charset, never a dot-folder, its URL one link — or a clear
error. The server does the work on a worker thread."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main
from sidecar.lint.diagnostics import lint_file
from sidecar.server import routes_web
from sidecar.settings import SETTINGS, Config
from sidecar.vault.note import parse_note, reading_text
from sidecar.web import save as save_module
from sidecar.web.save import Page, save_page
from tests.web.test_web_tier import _config

TEMPLATER = "<%* await app.vault.delete(tp.file.find_tfile('Welcome')) %>"
DATAVIEWJS = "```dataviewjs\ndv.paragraph(app.vault.getFiles().length)\n```"
INLINE_JS = "`$= dv.current().file.name`"
HTML = ("<html><head><title>Recipes &lt;% tp.date.now() %&gt;</title></head><body>"
        "<p>Bake at 220 C. &lt;%* await app.vault.delete(x) %&gt;</p>"
        "<pre>```dataviewjs</pre><pre>dv.el('b', 'hi')</pre><pre>```</pre>"
        "<p><code>$= dv.current()</code> is inline.</p></body></html>")



def _save(config: Config, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
          url: str, *extra: str) -> tuple[int, Any]:
    for s in SETTINGS:
        monkeypatch.setenv(s.env, str(config.values[s.name]))
    code = main(["web", "save", url, "--vault", str(config.vault), "--json", *extra])
    out = capsys.readouterr()
    return code, json.loads(out.out) if code == 0 else out.err


def _assert_inert(text: str) -> None:
    assert "<%" not in text  # Templater's opener, wherever it is (frontmatter too)
    assert "```dataviewjs" not in text and "`$=" not in text
    assert "```text dataviewjs" in text  # the code is still shown, as plain code


async def test_a_saved_page_runs_nothing_whether_given_as_text_or_fetched_as_html(
    tmp_path: Path, searx: Any, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = _config(tmp_path, searx.url)
    text = f"Intro.\n\n{TEMPLATER}\n\n{DATAVIEWJS}\n\n> {INLINE_JS} in a quote\n"
    code, doc = await asyncio.to_thread(
        _save, config, monkeypatch, capsys, "https://example.org/a?<%tp.file.title%>",
        "--text", text, "--title", "Plain <% tp.date.now() %>")
    assert code == 0
    saved = (config.vault / doc["path"]).read_text(encoding="utf-8")
    _assert_inert(saved)
    note = parse_note(saved, doc["path"])
    assert note.frontmatter["url"] == "https://example.org/a?<%tp.file.title%>"  # same value
    # It reads the same: only an invisible word joiner was added.
    assert "dv.paragraph(app.vault.getFiles().length)" in saved
    assert saved.replace("\u2060", "").count("<%") == 2  # the title and the text
    assert "Saved from <https://example.org/a?%3C%tp.file.title%%3E> on " in saved  # one link

    searx.pages["recipes"] = (HTML.encode(), "text/html; charset=utf-8")
    code, doc = await asyncio.to_thread(_save, config, monkeypatch, capsys,
                                        f"{searx.url}/pages/recipes")
    assert code == 0
    saved = (config.vault / doc["path"]).read_text(encoding="utf-8")
    _assert_inert(saved)
    assert "Bake at 220 C." in saved and "dv.el('b', 'hi')" in saved

    # Lint never suggests running Templater on a page, even one saved before pages were inert.
    (config.vault / "Web/Old page.md").write_text(
        f"---\ntype: web\nnexus: []\ntags: []\n---\n# Old\n\n{TEMPLATER}\n", encoding="utf-8")
    (config.vault / "Resources/Made.md").write_text(
        f"---\ntype: resource\nnexus: []\ntags: []\n---\n# Made\n\n{TEMPLATER}\n",
        encoding="utf-8")
    codes = [d.code for d in lint_file(config.vault, "Web/Old page.md")]
    assert "templater-unrun" not in codes
    assert "templater-unrun" in [d.code for d in lint_file(config.vault, "Resources/Made.md")]


async def test_a_long_emoji_title_gets_a_name_cut_by_utf8_bytes(
    tmp_path: Path, searx: Any, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = _config(tmp_path, searx.url)
    code, doc = await asyncio.to_thread(_save, config, monkeypatch, capsys,
                                        "https://example.org/e", "--text", "Emoji.",
                                        "--title", "😀" * 100)
    assert code == 0, doc
    name = doc["path"].removeprefix("Web/")
    assert name.endswith(".md") and len(name.encode("utf-8")) <= 255
    assert name.removesuffix(".md") == "😀" * len(name.removesuffix(".md"))  # whole characters
    code, again = await asyncio.to_thread(_save, config, monkeypatch, capsys,
                                          "https://example.org/e", "--text", "Emoji.",
                                          "--title", "😀" * 100)
    assert code == 0 and len(again["path"].removeprefix("Web/").encode("utf-8")) <= 255


async def test_a_page_never_becomes_a_hidden_or_empty_file_name(
    tmp_path: Path, searx: Any, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = _config(tmp_path, searx.url)
    for url, title in (("http://../", ""), ("http://x.example/", ".hidden"),
                       ("http://x.example/", "..")):
        code, doc = await asyncio.to_thread(_save, config, monkeypatch, capsys, url,
                                            "--text", "Words.", "--title", title)
        assert code == 0, doc
        name = doc["path"].removeprefix("Web/")
        assert not name.startswith(".") and name.removesuffix(".md").strip(), name
    assert sorted(p.name for p in (config.vault / "Web").iterdir()) == [
        "Web page.md", "hidden.md", "x.example.md"]


async def test_an_unknown_charset_is_read_as_utf8(
    tmp_path: Path, searx: Any, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = _config(tmp_path, searx.url)
    searx.pages["odd"] = ("<title>Café</title><p>Crème brûlée \xff.</p>".encode()
                          + b"\xff", "text/html; charset=x-no-such-charset")
    code, doc = await asyncio.to_thread(_save, config, monkeypatch, capsys,
                                        f"{searx.url}/pages/odd")
    assert code == 0, doc
    assert doc["path"] == "Web/Café.md"
    assert "Crème brûlée" in (config.vault / doc["path"]).read_text(encoding="utf-8")


async def test_a_web_folder_rule_naming_a_dot_folder_is_refused(
    tmp_path: Path, searx: Any, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], app_client: Any,
) -> None:
    config = _config(tmp_path, searx.url)
    (config.vault / "ora.yaml").write_text('folders:\n  "Web/": null\n  ".obsidian/": web\n',
                                           encoding="utf-8")
    code, err = await asyncio.to_thread(_save, config, monkeypatch, capsys,
                                        "https://example.org/p", "--text", "Words.")
    assert code != 0 and "dot-folder" in err and "Traceback" not in err
    api = await app_client(config)
    status, body = await api.call("POST", "/v1/web/save",
                                  {"url": "https://example.org/p", "text": "Words."})
    assert status == 400 and "dot-folder" in body["error"]["message"]
    assert not (config.vault / ".obsidian").exists()


async def test_the_save_route_reduces_and_writes_a_page_on_a_worker_thread(
    tmp_path: Path, searx: Any, app_client: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: the page was made inert and written on the event loop: a large page held up every
    # other request (a health check did not answer for 40 s).
    threads: list[threading.Thread] = []

    def watched(real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            threads.append(threading.current_thread())
            return real(*args)
        return call

    monkeypatch.setattr(routes_web, "save_page", watched(routes_web.save_page))
    monkeypatch.setattr(save_module, "html_text", watched(save_module.html_text))
    api = await app_client(_config(tmp_path, searx.url))
    status, doc = await api.call("POST", "/v1/web/save", {"url": f"{searx.url}/page"})
    assert status == 200, doc
    assert len(threads) == 2 and threading.main_thread() not in threads


async def test_a_saved_page_with_lone_carriage_returns_runs_nothing(
    tmp_path: Path, searx: Any, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Before: Obsidian and Ora end a line at a lone `\r`, the inerting did not: the page's
    # ```dataviewjs block stayed live.
    config = _config(tmp_path, searx.url)
    text = "Intro\r```dataviewjs\rdv.paragraph(dv.page('Private/Diary').file.content)\r```\r"
    code, doc = await asyncio.to_thread(_save, config, monkeypatch, capsys,
                                        "https://example.org/cr", "--text", text, "--title", "cr")
    assert code == 0, doc
    saved = (config.vault / doc["path"]).read_bytes().decode("utf-8")
    assert "\r" not in saved and "```text dataviewjs\n" in saved
    assert not re.search(r"^```dataviewjs", reading_text(saved), re.M)


@pytest.mark.parametrize("tag", ["private", "archived"])
def test_a_saved_page_mentioning_a_status_tag_keeps_its_status(tmp_path: Path, tag: str) -> None:
    # Before: a page mentioning `#private` became a private note (gone from ordinary search),
    # one mentioning `#archived` an archived one; a title holding one did the same.
    config = _config(tmp_path, "")
    page = Page("https://example.org/k", f"Kombucha #{tag}",
                f"Kombucha brewing guide. Tags people use: #{tag}\n\n`#{tag}` and #{tag}/x")
    rel = save_page(config, page)
    note = parse_note((config.vault / rel).read_text(encoding="utf-8"), rel)
    assert not note.is_private and not note.is_archived and note.tags == ()


def test_a_saved_page_embeds_no_note_of_the_vault(tmp_path: Path) -> None:
    # Before: `![[Private/Diary]]` in a page stayed an embed: opening the (public) web note
    # showed the private diary inside it.
    config = _config(tmp_path, "")
    rel = save_page(config, Page("https://example.org/b", "Bread tips",
                                 "Great tips.\n\n![[Private/Diary]] and ![](Private/photo.png)"))
    text = (config.vault / rel).read_text(encoding="utf-8")
    assert "![[" not in text and "![](" not in text
    assert "[[Private/Diary]]" in text  # shown as a link


async def test_a_url_holding_a_line_break_is_refused_and_others_are_written_as_one_link(
    tmp_path: Path, searx: Any, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], app_client: Any,
) -> None:
    # Before: urlsplit dropped the line breaks while checking, and the note's `Saved from <…>`
    # line held them: the URL wrote lines of its own into the note (`#private`, an embed).
    config = _config(tmp_path, searx.url)
    url = "https://x.example/a\n\n#private\n![[Private/Diary]]\n"
    code, err = await asyncio.to_thread(_save, config, monkeypatch, capsys, url, "--text", "x")
    assert code != 0 and "line break" in err and "Traceback" not in err
    api = await app_client(config)
    for bad in (url, "https://x.example/\ra", "https://x.example/\ta", "https://x.\u2028example/"):
        status, body = await api.call("POST", "/v1/web/save", {"url": bad, "text": "x"})
        assert status == 400 and body["error"]["code"] == "bad_request", bad
    assert not (config.vault / "Web").exists()

    odd = "https://x.example/a b>c`d #private"
    status, doc = await api.call("POST", "/v1/web/save", {"url": odd, "text": "x"})
    assert status == 200, doc
    text = (config.vault / doc["path"]).read_text(encoding="utf-8")
    assert "Saved from <https://x.example/a%20b%3Ec%60d%20#\u2060private> on " in text
    assert parse_note(text, doc["path"]).frontmatter["url"] == odd
    assert not parse_note(text, doc["path"]).is_private
