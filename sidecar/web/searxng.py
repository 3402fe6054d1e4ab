"""The web tier at retrieval ('The Vault', 'The web tier'): results from a SearXNG instance.

When `searxng_url` (`ORA_SEARXNG_URL`) names a SearXNG instance — the self-hosted metasearch
engine — a search or an answer asked with `web` also queries its JSON API
(`GET <url>/search?q=…&format=json`; the instance must allow the `json` format), classifies the
results with the cascade of `classify.py` against the vault's registry, drops excluded ones and
returns the rest under `web`, after the vault results, with tier and weight: the web is a
supplement, never ranked among the user's notes. Nothing is written to the vault unless the user
saves a page (`save.py`). A web search that fails is reported (`web_reason`), never fatal: the
vault's results are always answered (after an answer nested too deeply for Python's JSON
parser too). An answer larger than `search_max_bytes` (`schema/web_tiers.json`) is not read
further; a result whose URL is not http(s) (`magnet:`,
`javascript:`) or one a browser would refuse (`http://[::1`) is skipped. A private-mode query
is not sent at all, wherever the instance runs: SearXNG passes every query on to public search
engines, so only naming its host in `private_remote_ok` lets private text go to it
(docs/privacy.md). A failure says why in words (`fetch_failure`: timed out, too many
redirects, …).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp

from sidecar.errors import BadRequest, OraError
from sidecar.models.embedder import Embedder
from sidecar.privacy.egress import may_send_private, withheld
from sidecar.schema import load_json
from sidecar.settings import Config
from sidecar.vault.inert import encodable
from sidecar.web.classify import classify
from sidecar.web.registry import load_registry
from sidecar.web.urls import host_of


class WebSearchFailed(OraError):
    """The SearXNG instance could not be reached or answered something unusable."""

    code = "web_search_failed"
    status = 502


def search_url(base: str) -> str:
    """`<base>/search`, for a base given with or without `/search`."""
    base = base.rstrip("/")
    return base if base.endswith("/search") else f"{base}/search"


async def read_at_most(resp: aiohttp.ClientResponse, most: int) -> bytes | None:
    """The body of `resp`, or None when it is longer than `most` bytes (not read further)."""
    if resp.content_length is not None and resp.content_length > most:
        return None
    body = bytearray()
    async for chunk in resp.content.iter_any():
        body += chunk
        if len(body) > most:
            return None
    return bytes(body)


def fetch_failure(exc: BaseException, timeout: float) -> str:
    """Why a request to the web failed, in words: aiohttp says "" for a timeout, "0,
    message=''" for a redirect loop and only the URL for one it cannot request."""
    if isinstance(exc, TimeoutError):  # aiohttp's own timeouts are TimeoutErrors too
        return f"timed out after {timeout:g} s (web_timeout)"
    if isinstance(exc, aiohttp.TooManyRedirects):
        return f"too many redirects ({len(exc.history)} followed)"
    if isinstance(exc, aiohttp.ClientResponseError):
        return f"HTTP {exc.status} {exc.message}".rstrip()
    if isinstance(exc, aiohttp.NonHttpUrlRedirectClientError):
        return f"it redirects to {exc}, not an http(s) URL: Ora follows no other"
    if isinstance(exc, aiohttp.InvalidUrlRedirectClientError):
        return f"it redirects to {str(exc.url)!r}, which is not a URL"
    if isinstance(exc, aiohttp.InvalidURL):
        return f"aiohttp cannot request {str(exc.url)!r} ({exc.description or 'not a URL'})"
    return str(exc) or type(exc).__name__


def _answer(body: bytes, url: str) -> Any:
    """The JSON of a SearXNG answer; WebSearchFailed when it is not JSON Python can read (nested
    too deeply for its parser, too)."""
    try:
        return json.loads(body)
    except RecursionError as exc:
        raise WebSearchFailed(f"the web search at {url} answered JSON nested too deeply to "
                              "read") from exc
    except ValueError as exc:
        raise WebSearchFailed(f"the web search at {url} failed: {exc}") from exc


def _web_url(url: str) -> bool:
    try:
        host_of(url)
    except BadRequest:
        return False
    return True


async def fetch_results(config: Config, query: str, limit: int) -> list[dict[str, str]]:
    """Up to `limit` results `{url, title, text}` for `query` from the SearXNG JSON API, those
    whose URL is not http(s) skipped."""
    most = int(load_json("web_tiers.json")["search_max_bytes"])
    base = str(config.searxng_url)
    if not _web_url(base):
        raise WebSearchFailed(f"searxng_url {base!r} is not an http(s) URL")
    url = search_url(base)
    seconds = float(config.web_timeout)
    timeout = aiohttp.ClientTimeout(total=seconds)
    try:
        async with (
            aiohttp.ClientSession(timeout=timeout) as session,
            session.get(url, params={"q": query, "format": "json"}) as resp,
        ):
            if resp.status != 200:
                raise WebSearchFailed(
                    f"the web search at {url} answered HTTP {resp.status} (does the instance "
                    "allow `json` under search.formats?)")
            body = await read_at_most(resp, most)
        if body is None:
            raise WebSearchFailed(f"the web search at {url} answered more than {most} bytes "
                                  "(search_max_bytes): not read")
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise WebSearchFailed(f"the web search at {url} failed: "
                              f"{fetch_failure(exc, seconds)}") from exc
    doc = _answer(body, url)
    raw = doc.get("results") if isinstance(doc, dict) else None
    if not isinstance(raw, list):
        raise WebSearchFailed(f"the web search at {url} answered without a `results` list")
    found: list[dict[str, str]] = []
    for item in raw:
        if isinstance(item, dict) and isinstance(item.get("url"), str) and _web_url(item["url"]):
            title, content = item.get("title"), item.get("content")
            found.append({"url": encodable(item["url"]),
                          "title": encodable(title) if isinstance(title, str) else "",
                          "text": encodable(content) if isinstance(content, str) else ""})
        if len(found) >= limit:
            break
    return found


async def web_tier(config: Config, embedder: Embedder, query: str, limit: int, *,
                   private: bool) -> dict[str, Any]:
    """`{"web": [{url, title, text, tier, weight, domain, reason}], "web_excluded": n}` (best
    weight first, the engine's order within a weight), or `{"web": [], "web_reason"}` when no
    instance is configured, it failed, or the query is `private` (asked in private mode) and the
    instance's host is not named in `private_remote_ok`: on this machine or not, SearXNG passes
    the query on to public search engines (docs/privacy.md)."""
    if not str(config.searxng_url):
        return {"web": [], "web_reason": "no web search is configured (set searxng_url)"}
    if private and not may_send_private(config, str(config.searxng_url), relays=True):
        return {"web": [], "web_reason": withheld("the web search", str(config.searxng_url),
                                                  relays=True)}
    try:
        fetched = await fetch_results(config, query, limit)
        registry = await asyncio.to_thread(load_registry, config.vault,
                                           int(config.max_file_bytes))
        classified = await asyncio.to_thread(classify, fetched, registry, embedder)
    except OraError as err:  # a broken registry note, too: the vault's results still stand
        return {"web": [], "web_reason": err.message}
    text_of = {r["url"]: r["text"] for r in fetched}
    kept = [{**row, "text": text_of.get(row["url"], "")} for row in classified["results"]]
    kept.sort(key=lambda r: -float(r["weight"]))  # stable: the engine's order within a tier
    return {"web": kept, "web_excluded": len(classified["excluded"])}
