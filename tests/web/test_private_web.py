"""A private-mode search or question never sends its query to the web search, wherever the
SearXNG instance runs: it passes every query on to public search engines, so one on this machine
is no safer than one elsewhere. Only naming its host in `private_remote_ok` lets private queries
go to it; the status names the web endpoint `withheld` until then. Before, a SearXNG on loopback
counted as "this machine" and received every private question."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sidecar.models.embedder import Embedder
from sidecar.privacy.egress import endpoints_report
from sidecar.settings import make_config
from sidecar.web.searxng import web_tier
from tests.web.test_web_tier import QUERY, RESULTS, _config


async def test_a_private_query_never_reaches_a_searxng_on_this_machine_unless_named(
    tmp_path: Path, searx: Any, embedder: Embedder,
) -> None:
    searx.results = RESULTS
    config = _config(tmp_path, searx.url)  # 127.0.0.1
    doc = await web_tier(config, embedder, QUERY, 5, private=True)
    assert doc["web"] == [] and searx.queries == []
    assert "passes every query on to public search engines" in doc["web_reason"]
    assert "private_remote_ok" in doc["web_reason"]

    doc = await web_tier(config, embedder, QUERY, 5, private=False)  # public: sent
    assert doc["web"] and len(searx.queries) == 1

    named = config.with_values(private_remote_ok="127.0.0.1")
    doc = await web_tier(named, embedder, QUERY, 5, private=True)
    assert doc["web"] and len(searx.queries) == 2


@pytest.mark.parametrize(("url", "named", "private"), [
    ("http://127.0.0.1:8888", "", "withheld"),
    ("http://localhost:8888", "", "withheld"),
    ("http://127.0.0.1:8888", "127.0.0.1", "allowed by private_remote_ok"),
    ("https://searx.example", "searx.example", "allowed by private_remote_ok"),
])
def test_the_status_says_what_a_searxng_receives_of_private_text(
    tmp_path: Path, url: str, named: str, private: str,
) -> None:
    config = make_config(tmp_path, searxng_url=url, private_remote_ok=named)
    row = next(r for r in endpoints_report(config) if r["service"] == "web")
    assert row["private"] == private
    assert row["receives_private"] is (private != "withheld")
    assert "public search engines" in row["receives"]
