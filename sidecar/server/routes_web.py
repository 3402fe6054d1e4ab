"""Routes of the web tier at retrieval: saving a page as a `type: web` note.

`POST /v1/web/save` fetches the page (unless `title` and `text` are given) and writes it as a new
note through the vault's writer; the write lane indexes it at once. Reducing the page, making it
inert and writing it run on a worker thread: a large page never holds up the server's other
requests. Searching the web is a flag of `POST /v1/search` and `POST /v1/ask` (`web`).
"""

from __future__ import annotations

import asyncio

from aiohttp import web

from sidecar.server.openapi import read_json
from sidecar.server.resources import LANE
from sidecar.server.state import CONFIG
from sidecar.web.save import Page, cleaned, fetch_page, save_page

routes = web.RouteTableDef()


@routes.post("/v1/web/save")
async def save(request: web.Request) -> web.Response:
    body = await read_json(request, "WebSaveRequest")
    config = request.app[CONFIG]
    if "text" in body:
        page = Page(body["url"], body.get("title", ""), body["text"])
    else:
        fetched = await fetch_page(config, body["url"])
        page = Page(fetched.url, body.get("title") or fetched.title, fetched.text)
    path = await asyncio.to_thread(save_page, config, page)
    await request.app[LANE].apply([{"kind": "created", "path": path}])
    shown = cleaned(page)  # as the note has it: never the URL's password
    return web.json_response({"path": path, "url": shown.url, "title": shown.title})
