"""A real loopback aiohttp server speaking SearXNG's JSON search format (`/search?q=…&format=json`)
and serving one HTML page, for the web tier at retrieval.

Tests set `results` (what the engine finds) and `mode` ("ok", "error", "html" — an instance that
has not enabled the json format answers HTML; "huge" — an answer of `huge_bytes` bytes; "deep" —
JSON nested too deeply for Python's parser; "slow" — no answer for a minute), add pages to
`pages` (name → (body, Content-Type), served at `/pages/NAME`) and redirects to `redirects`
(name → Location, at `/go/NAME`), and read `queries`. `/slow` answers nothing for a minute,
`/loop` redirects to itself.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import web

from tests.loopback import LoopbackServer

PAGE = """<!doctype html><html><head><title>Sourdough basics</title>
<style>body { color: red }</style><script>var x = 1;</script></head>
<body><h1>Sourdough basics</h1><p>A starter of wild yeast and lactobacilli leavens the
dough.</p><p>Feed it flour &amp; water daily.</p></body></html>"""


def searx_result(url: str, title: str, content: str, engine: str = "duckduckgo") -> dict[str, Any]:
    """One result as SearXNG's JSON API returns it."""
    host = url.split("/")[2]
    return {"url": url, "title": title, "content": content, "engine": engine,
            "parsed_url": ["https", host, "/" + url.split("/", 3)[-1], "", "", ""],
            "template": "default.html", "engines": [engine], "positions": [1], "score": 1.0,
            "category": "general"}


class FakeSearxng(LoopbackServer):
    def __init__(self) -> None:
        super().__init__()
        self.results: list[dict[str, Any]] = []
        self.queries: list[dict[str, str]] = []
        self.mode = "ok"
        self.huge_bytes = 0
        self.pages: dict[str, tuple[bytes, str]] = {}
        self.redirects: dict[str, str] = {}  # name -> Location, served at /go/NAME

    async def _search(self, request: web.Request) -> web.Response:
        self.queries.append(dict(request.query))
        if self.mode == "slow":
            return await self._slow(request)
        if self.mode == "error":
            return web.Response(status=500, text="engine failure")
        if self.mode == "html" or request.query.get("format") != "json":
            return web.Response(status=403, text="<html>format not allowed</html>",
                                content_type="text/html")
        if self.mode == "deep":  # valid JSON nested deeper than Python's parser goes
            return web.Response(body=b'{"results": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
                                content_type="application/json")
        if self.mode == "huge":  # valid JSON, padded with spaces to `huge_bytes`
            body = json.dumps({"results": self.results}).encode()
            return web.Response(body=body + b" " * max(0, self.huge_bytes - len(body)),
                                content_type="application/json")
        return web.json_response({
            "query": request.query.get("q", ""), "number_of_results": 0,
            "results": self.results, "answers": [], "corrections": [], "infoboxes": [],
            "suggestions": [], "unresponsive_engines": []})

    async def _page(self, request: web.Request) -> web.Response:
        return web.Response(text=PAGE, content_type="text/html", charset="utf-8")

    async def _pages(self, request: web.Request) -> web.Response:
        body, content_type = self.pages[request.match_info["name"]]
        return web.Response(body=body, headers={"Content-Type": content_type})

    async def _go(self, request: web.Request) -> web.Response:
        raise web.HTTPFound(self.redirects[request.match_info["name"]])

    async def _slow(self, request: web.Request) -> web.Response:
        await asyncio.sleep(60)  # the client gives up long before (its web_timeout)
        return web.Response(text="late")

    async def _loop(self, request: web.Request) -> web.Response:
        raise web.HTTPFound("/loop")

    def routes(self, app: web.Application) -> None:
        app.router.add_get("/slow", self._slow)
        app.router.add_get("/loop", self._loop)
        app.router.add_get("/search", self._search)
        app.router.add_get("/page", self._page)
        app.router.add_get("/pages/{name}", self._pages)
        app.router.add_get("/go/{name}", self._go)
