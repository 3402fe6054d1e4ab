"""A page or a web search that cannot be had says why in words: timed out after how long, too
many redirects. Before, a timeout read `cannot fetch URL: ` (an empty message) and a redirect loop
`0, message='', url=…`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sidecar.models.embedder import Embedder
from sidecar.web.save import fetch_page
from sidecar.web.searxng import WebSearchFailed, web_tier
from tests.web.test_web_tier import QUERY, _config


async def test_a_page_that_times_out_or_redirects_forever_says_why(
    tmp_path: Path, searx: Any,
) -> None:
    config = _config(tmp_path, searx.url, web_timeout=0.5)
    with pytest.raises(WebSearchFailed, match=r"/slow: timed out after 0\.5 s \(web_timeout\)"):
        await fetch_page(config, f"{searx.url}/slow")
    with pytest.raises(WebSearchFailed, match=r"/loop: too many redirects"):
        await fetch_page(config, f"{searx.url}/loop")


async def test_a_web_search_that_times_out_says_so_and_the_vault_part_stands(
    tmp_path: Path, searx: Any, embedder: Embedder,
) -> None:
    searx.mode = "slow"
    doc = await web_tier(_config(tmp_path, searx.url, web_timeout=0.5), embedder, QUERY, 5,
                         private=False)
    assert doc["web"] == [] and doc["web_reason"].endswith(
        "failed: timed out after 0.5 s (web_timeout)")


async def test_a_redirect_to_a_url_that_is_not_http_says_so(tmp_path: Path, searx: Any) -> None:
    # Before: the reason was the redirect's URL alone (`cannot fetch URL: file:///etc/passwd`).
    searx.redirects["file"] = "file:///etc/passwd"
    with pytest.raises(WebSearchFailed, match=r"/go/file: it redirects to file:///etc/passwd, "
                                              r"not an http\(s\) URL"):
        await fetch_page(_config(tmp_path, searx.url), f"{searx.url}/go/file")


async def test_a_url_a_browser_opens_with_a_backslash_is_fetched_as_it_opens_it(
    tmp_path: Path, searx: Any,
) -> None:
    # Before: aiohttp refused `http://host:port\page` and the reason was the URL itself.
    searx.pages["p"] = (b"<title>Backslash</title><p>Found.</p>", "text/html")
    page = await fetch_page(_config(tmp_path, searx.url), f"{searx.url}\\pages\\p")
    assert (page.title, page.text) == ("Backslash", "Found.")


async def test_a_web_search_answering_json_nested_too_deeply_fails_and_the_vault_part_stands(
    tmp_path: Path, searx: Any, embedder: Embedder,
) -> None:
    # Before: json.loads raised RecursionError: a traceback, HTTP 500 for /v1/search.
    searx.mode = "deep"
    doc = await web_tier(_config(tmp_path, searx.url), embedder, QUERY, 5, private=False)
    assert doc["web"] == [] and doc["web_reason"].endswith("answered JSON nested too deeply "
                                                           "to read")
