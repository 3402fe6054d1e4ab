"""`ora web save` writes text from outside: the saved note must be inert (no Templater command,
query block or inline query of the page runs in Obsidian) and every page gets a safe note — a
visible, short enough file name, a readable charset, never a dot-folder — or a clear error."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main
from sidecar.lint.diagnostics import lint_file
from sidecar.settings import SETTINGS, Config
from sidecar.vault.note import parse_note
from tests.web.test_web_tier import _config, fake

TEMPLATER = "<%* await app.vault.delete(tp.file.find_tfile('Welcome')) %>"
DATAVIEWJS = "```dataviewjs\ndv.paragraph(app.vault.getFiles().length)\n```"
INLINE_JS = "`$= dv.current().file.name`"
HTML = ("<html><head><title>Recipes &lt;% tp.date.now() %&gt;</title></head><body>"
        "<p>Bake at 220 C. &lt;%* await app.vault.delete(x) %&gt;</p>"
        "<pre>```dataviewjs</pre><pre>dv.el('b', 'hi')</pre><pre>```</pre>"
        "<p><code>$= dv.current()</code> is inline.</p></body></html>")


@pytest.fixture
async def searx() -> AsyncIterator[Any]:
    server = await fake.FakeSearxng().start()
    yield server
    await server.stop()


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
    assert saved.replace("\u2060", "").count("<%") == 3

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
