"""`POST /v1/lint` (the editor's unsaved text) and `POST /v1/lint/fix` (linter-managed dates)."""

from __future__ import annotations

import asyncio

from aiohttp import web

from sidecar.errors import BadRequest, NotFound
from sidecar.server.openapi import read_json
from sidecar.server.resources import LINT
from sidecar.server.state import CONFIG
from sidecar.vault.lint import fix_dates, lint_file, lint_text
from sidecar.vault.scan import is_ignored, normalise_rel

routes = web.RouteTableDef()


def _note_path(raw: str) -> str:
    rel = normalise_rel(raw)
    if is_ignored(rel):
        raise BadRequest(f"{rel} is not a note: notes are .md files outside dot-folders")
    return rel


@routes.post("/v1/lint")
async def lint(request: web.Request) -> web.Response:
    body = await read_json(request, "LintRequest")
    rel = _note_path(body["path"])
    ctx = request.app[LINT].context
    diagnostics = await asyncio.to_thread(lint_text, body["text"], rel, ctx)
    return web.json_response({"diagnostics": [d.to_json() for d in diagnostics]})


@routes.post("/v1/lint/fix")
async def lint_fix(request: web.Request) -> web.Response:
    body = await read_json(request, "LintFixRequest")
    rel = _note_path(body["path"])
    config = request.app[CONFIG]
    file = config.vault / rel
    if file.is_symlink():  # an atomic write would replace the link with a plain file
        raise BadRequest(f"{rel} is a symbolic link; fix the note it points to instead")
    if not file.is_file():
        raise NotFound(f"no note at {rel}")
    max_bytes = int(config.max_file_bytes)
    changed = await asyncio.to_thread(fix_dates, config.vault, rel, max_bytes)
    ctx = request.app[LINT].context
    diagnostics = await asyncio.to_thread(lint_file, config.vault, rel, ctx, max_bytes)
    return web.json_response(
        {"changed": changed, "diagnostics": [d.to_json() for d in diagnostics]}
    )
