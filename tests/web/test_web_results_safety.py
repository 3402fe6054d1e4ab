"""A search engine's answer is text from outside: a result with a `magnet:` or `javascript:`
URL is skipped (the vault's results and the other web results still answered), and an answer
larger than `search_max_bytes` is refused unread, said in `web_reason`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sidecar.schema import load_json
from tests.web.test_web_tier import QUERY, RESULTS, _config, fake

BAD = [fake.searx_result("https://x.example/y", "Torrent", "Sourdough starter kit.")
       | {"url": "magnet:?xt=urn:btih:0123456789abcdef"},
       fake.searx_result("https://x.example/y", "Click", "Wild yeast leavens bread.")
       | {"url": "javascript:alert(document.cookie)"},
       # `https:///p` is no host-less URL: a browser skips any run of slashes and opens `p`
       fake.searx_result("https://x.example/y", "Host-less", "Yeast.") | {"url": "https:///"}]



async def test_results_that_are_not_http_urls_are_skipped_and_the_vault_part_stands(
    tmp_path: Path, searx: Any, app_client: Any,
) -> None:
    searx.results = [*BAD, *RESULTS]
    api = await app_client(_config(tmp_path, searx.url))
    await api.reconciled()
    status, doc = await api.call("POST", "/v1/search", {"query": QUERY, "web": True,
                                                        "rerank": False})
    assert status == 200, doc
    assert doc["results"][0]["path"] == "Resources/Sourdough.md"
    assert [r["url"] for r in doc["web"]] == ["https://www.nature.com/articles/sourdough",
                                              "https://blog.example.net/starter"]
    status, doc = await api.call("POST", "/v1/ask", {"question": QUERY, "web": True,
                                                     "rerank": False})
    assert status == 200, doc
    assert doc["citations"] and len(doc["web"]) == 2

    searx.results = BAD  # nothing usable: said so, and still the vault's results
    status, doc = await api.call("POST", "/v1/search", {"query": QUERY, "web": True,
                                                        "rerank": False})
    assert status == 200 and doc["results"] and doc["web"] == []


async def test_an_answer_over_the_cap_is_refused_unread_and_the_vault_part_stands(
    tmp_path: Path, searx: Any, app_client: Any,
) -> None:
    most = int(load_json("web_tiers.json")["search_max_bytes"])
    searx.results = RESULTS
    searx.mode = "huge"
    searx.huge_bytes = most + 4096  # valid JSON: read whole, it would have been used
    api = await app_client(_config(tmp_path, searx.url))
    await api.reconciled()
    status, doc = await api.call("POST", "/v1/search", {"query": QUERY, "web": True,
                                                        "rerank": False})
    assert status == 200 and doc["results"][0]["path"] == "Resources/Sourdough.md"
    assert doc["web"] == [] and f"more than {most} bytes" in doc["web_reason"]
    searx.huge_bytes = most - 4096  # under the cap: read and used
    status, doc = await api.call("POST", "/v1/search", {"query": QUERY, "web": True,
                                                        "rerank": False})
    assert status == 200 and len(doc["web"]) == 2


async def test_a_url_a_browser_would_refuse_is_skipped_in_results_and_refused_elsewhere(
    tmp_path: Path, searx: Any, app_client: Any,
) -> None:
    # Before: `http://[::1` made urlsplit raise ValueError: /v1/search and /v1/ask with web
    # answered 500 (the vault's results lost), /v1/web/classify and /v1/web/save 500 too.
    broken = fake.searx_result("https://x.example/y", "Broken", "Yeast.") | {"url": "http://[::1"}
    searx.results = [broken, *RESULTS]
    api = await app_client(_config(tmp_path, searx.url))
    await api.reconciled()
    status, doc = await api.call("POST", "/v1/search", {"query": QUERY, "web": True,
                                                        "rerank": False})
    assert status == 200 and doc["results"][0]["path"] == "Resources/Sourdough.md", doc
    assert len(doc["web"]) == 2
    status, doc = await api.call("POST", "/v1/ask", {"question": QUERY, "web": True,
                                                     "rerank": False})
    assert status == 200 and len(doc["web"]) == 2, doc
    for path, body in (("/v1/web/classify", {"results": [{"url": "http://[::1", "title": "a",
                                                          "text": "b"}]}),
                       ("/v1/web/save", {"url": "http://[::1", "title": "t", "text": "x"})):
        status, err = await api.call("POST", path, body)
        assert status == 400 and err["error"]["code"] == "bad_request", (path, err)
        assert "not an http(s) URL" in err["error"]["message"]
