"""A saved page becomes a note Ora reads back and indexes, or a clear error: its URL round-trips
through the frontmatter reader, its charset is found as a browser finds it, no control character
or URL password reaches the note, a non-text page or a note over the size limit is refused, and
a link at the name it would take is passed over, never written through."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from sidecar.errors import OraError
from sidecar.vault.note import decode_note, parse_note, read_note
from sidecar.web.save import Page, fetch_page, save_page
from tests.web.test_web_tier import _config


def test_a_url_with_an_emoji_round_trips_through_the_frontmatter_reader(tmp_path: Path) -> None:
    # Before: json.dumps wrote `\ud83d\ude00`, invalid YAML: the note was taken as private.
    config = _config(tmp_path, "")
    url = "https://ex.example/wiki/😀?q=<%x%>&z=\ufeff"
    rel = save_page(config, Page(url, "Emoji page", "Body."))
    note = read_note(config.vault, rel, int(config.max_file_bytes))
    assert note.yaml_error is None and not note.is_private
    assert note.frontmatter["url"] == url
    assert "<%" not in (config.vault / rel).read_text(encoding="utf-8")


def test_a_note_over_max_file_bytes_once_inert_is_refused_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    # Before: a page of tags under the limit doubled once inert: a note Ora never indexed, 200 OK.
    config = _config(tmp_path, "", max_file_bytes=100_000)
    with pytest.raises(OraError, match=r"over the 100000-byte limit .*nothing was saved") as err:
        save_page(config, Page("https://ex.example/t", "Tag bomb", "TAGBOMB " + "#a " * 30_000))
    assert err.value.code == "page_not_saved" and err.value.status == 422
    assert not (config.vault / "Web").exists()


async def test_control_characters_of_a_page_never_reach_the_note(
    tmp_path: Path, searx: Any, app_client: Any,
) -> None:
    # Before: a NUL of a given text or title was written: Ora took the note for a binary file.
    config = _config(tmp_path, searx.url)
    rel = save_page(config, Page("https://ex.example/b", "Title\x00x\x01", "NUL\x00MARK \x07."))
    api = await app_client(config)
    status, doc = await api.call("POST", "/v1/web/save", {
        "url": "https://ex.example/c", "title": "Route\x00title", "text": "Via\x00route\x1b."})
    assert status == 200, doc
    for path in (rel, doc["path"]):
        data = (config.vault / path).read_bytes()
        text = decode_note(data, path, int(config.max_file_bytes))  # not a binary file
        assert not any(ord(c) < 0x20 and c != "\n" for c in text), path


@pytest.mark.parametrize("content_type", ["application/pdf", "image/png",
                                          "application/octet-stream"])
async def test_a_page_that_is_not_text_is_refused_not_saved_as_garbage(
    tmp_path: Path, searx: Any, content_type: str,
) -> None:
    config = _config(tmp_path, searx.url)
    searx.pages["file"] = (b"%PDF-1.4\n" + bytes(range(256)) * 8, content_type)
    refused = rf"not a text page \({content_type}\).*into the vault"
    with pytest.raises(OraError, match=refused) as err:
        await fetch_page(config, f"{searx.url}/pages/file")
    assert err.value.code == "page_not_saved"


@pytest.mark.parametrize("content_type", ["text/plain", "text/html"])
async def test_binary_bytes_served_as_text_are_refused_not_saved_as_garbage(
    tmp_path: Path, searx: Any, content_type: str,
) -> None:
    # Before: a PNG served as text/plain was saved as a note of garbage.
    config = _config(tmp_path, searx.url)
    searx.pages["file"] = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
                           content_type)
    with pytest.raises(OraError, match=r"not a text page \(its bytes are binary") as err:
        await fetch_page(config, f"{searx.url}/pages/file")
    assert err.value.code == "page_not_saved"


@pytest.mark.parametrize(("body", "content_type"), [
    ('<meta charset="windows-1251"><title>Привет мир</title><p>Русский текст</p>'.encode(
        "cp1251"), "text/html"),
    ('<!-- <meta charset=koi8-r> --><meta http-equiv="Content-Type" content="text/html; '
     'charset=windows-1251"><title>Привет мир</title><p>Русский текст</p>'.encode("cp1251"),
     "text/html"),
    (b"\xef\xbb\xbf" + "<meta charset=windows-1251><title>Привет мир</title><p>Русский текст"
     .encode(), "text/html; charset=windows-1251"),
    ("<title>Привет мир</title><p>Русский текст".encode("utf-16"), "text/html"),
    ("<title>Привет мир</title><p>Русский текст".encode(), "text/html"),
], ids=["meta-charset", "meta-http-equiv", "bom-over-header", "utf16-bom", "utf8-default"])
async def test_a_page_is_decoded_by_its_bom_header_or_meta_charset(
    tmp_path: Path, searx: Any, body: bytes, content_type: str,
) -> None:
    # Before: without a charset in the header the page was read as UTF-8: U+FFFD garbage.
    config = _config(tmp_path, searx.url)
    searx.pages["ru"] = (body, content_type)
    page = await fetch_page(config, f"{searx.url}/pages/ru")
    assert (page.title, page.text) == ("Привет мир", "Русский текст")


async def test_a_latin1_page_is_read_as_windows_1252_as_a_browser_reads_it(
    tmp_path: Path, searx: Any,
) -> None:
    config = _config(tmp_path, searx.url)
    searx.pages["quotes"] = ("<p>\u201cquoted\u201d".encode("cp1252"),
                             "text/html; charset=iso-8859-1")
    assert (await fetch_page(config, f"{searx.url}/pages/quotes")).text == "\u201cquoted\u201d"


async def test_a_note_records_neither_a_url_password_nor_the_url_a_redirect_left(
    tmp_path: Path, searx: Any,
) -> None:
    config = _config(tmp_path, searx.url)
    searx.pages["moved"] = (b"<title>Moved</title><p>Here now.</p>", "text/html")
    searx.redirects["old"] = "/pages/moved"
    host = searx.url.split("://")[1]
    page = await fetch_page(config, f"http://alice:s3cret@{host}/go/old")
    rel = await asyncio.to_thread(save_page, config, page)
    text = (config.vault / rel).read_text(encoding="utf-8")
    assert "s3cret" not in text and "alice" not in text
    assert parse_note(text, rel).frontmatter["url"] == f"{searx.url}/pages/moved"
    assert f"Saved from <{searx.url}/pages/moved>" in text


def test_a_link_at_the_name_a_page_would_take_is_passed_over_never_written_through(
    tmp_path: Path,
) -> None:
    # Before: the save failed ("use the file it points to") instead of taking `T 2`.
    config = _config(tmp_path, "")
    (config.vault / "Web").mkdir()
    target = tmp_path / "outside.md"
    (config.vault / "Web/T.md").symlink_to(target)
    assert save_page(config, Page("https://ex.example/a", "T", "hi")) == "Web/T 2.md"
    assert not target.exists()


async def test_a_page_ora_will_not_save_is_a_listed_422_and_no_answer_echoes_a_password(
    tmp_path: Path, searx: Any, app_client: Any,
) -> None:
    # Before: the 422 was not among the route's responses in the OpenAPI document (the client
    # checks every answer), and the answer echoed the URL's password the note left out.
    api = await app_client(_config(tmp_path, searx.url, max_file_bytes=100_000))
    status, doc = await api.call("POST", "/v1/web/save", {
        "url": "https://ex.example/t", "title": "Tags", "text": "#a " * 30_000})
    assert status == 422 and doc["error"]["code"] == "page_not_saved"
    status, doc = await api.call("POST", "/v1/web/save", {
        "url": "https://user:s3cret@ex.example/c", "title": "Chain", "text": "Oil the chain."})
    assert status == 200 and doc["url"] == "https://ex.example/c"
