"""Routes over the index: file events, search, related notes, reindex."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from sidecar.errors import BadRequest
from sidecar.index.scope import NoteFilter
from sidecar.retrieval.related import RelatedOptions, related
from sidecar.retrieval.relations import search_related
from sidecar.retrieval.search import SearchOptions
from sidecar.server.openapi import read_json
from sidecar.server.paths import note_path, request_path
from sidecar.server.resources import INDEX, LANE, MODELS
from sidecar.server.routes_memory import MEMORY
from sidecar.server.state import CONFIG
from sidecar.web.searxng import web_tier

routes = web.RouteTableDef()


def _clean_event(event: dict[str, Any]) -> dict[str, Any]:
    """The event with vault-relative paths checked (BadRequest for ones that leave the vault)."""
    clean = {"kind": event["kind"], "path": request_path(event["path"])}
    if event["kind"] == "renamed":
        if "old_path" not in event:
            raise BadRequest("a renamed event needs old_path")
        clean["old_path"] = request_path(event["old_path"])
    return clean


@routes.post("/v1/events")
async def events(request: web.Request) -> web.Response:
    body = await read_json(request, "EventsRequest")
    cleaned = [_clean_event(e) for e in body["events"]]
    notes = request.app[MEMORY].notes
    for event in cleaned:  # a moved chat note keeps its conversation
        if event["kind"] == "renamed":
            await asyncio.to_thread(notes.moved, event["old_path"], event["path"])
    result = await request.app[LANE].apply(cleaned) if cleaned else {
        "accepted": 0, "deduplicated": 0, "queued": False}
    return web.json_response(result)


def _scope(request: web.Request, body: dict[str, Any]) -> dict[str, Any]:
    """What search and related share: how many, private mode, archived notes, namespace, filters."""
    return {
        "k": body.get("k", 10),
        "private": body.get("private", False),
        "include_archived": body.get("include_archived", False),
        "namespace": body.get("namespace", str(request.app[CONFIG].namespace)),
        "filters": NoteFilter.from_json(body.get("filters")),
    }


@routes.post("/v1/search")
async def search_route(request: web.Request) -> web.Response:
    body = await read_json(request, "SearchRequest")
    models = request.app[MODELS]
    index = request.app[INDEX]
    indexing = index.indexing()  # answered from what is indexed so far
    # While the words pass runs, the model may not be loaded: answer by the words, not wait.
    words_only = (not models.embedder.loaded and indexing is not None
                  and indexing["phase"] == "words")
    options = SearchOptions(**_scope(request, body), rerank=body.get("rerank", True),
                            collapse=body.get("collapse", True), dense=not words_only)
    document = await search_related(
        index, models.embedder, models.reranker, body["query"], options,
        reranker_reason=models.reranker_reason, expand=body.get("expand", False),
    )
    if body.get("web", False):
        config = request.app[CONFIG]
        document.update(await web_tier(config, models.embedder, body["query"],
                                       int(config.web_results), private=options.private))
    if indexing is not None:
        document["indexing"] = indexing
    return web.json_response(document)


@routes.post("/v1/related")
async def related_route(request: web.Request) -> web.Response:
    body = await read_json(request, "RelatedRequest")
    options = RelatedOptions(**_scope(request, body))
    document = await related(
        request.app[INDEX], request.app[MODELS].embedder, note_path(body["path"]), options
    )
    return web.json_response(document)


@routes.post("/v1/reindex")
async def reindex(request: web.Request) -> web.Response:
    await read_json(request, "ReindexRequest")
    return web.json_response({"started": request.app[LANE].start_reconcile()}, status=202)
