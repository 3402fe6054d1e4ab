"""`POST /v1/lint` (the editor's unsaved text) and `POST /v1/lint/fix` (linter-managed dates);
links resolve against private notes only with `"private": true` (`lint_cache.py`)."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from sidecar.errors import BadRequest, NotFound
from sidecar.lint.diagnostics import LintContext, fix_dates, lint_file, lint_text
from sidecar.server.openapi import read_json
from sidecar.server.paths import note_path
from sidecar.server.resources import LINT
from sidecar.server.state import CONFIG
from sidecar.vault.scan import vault_path

routes = web.RouteTableDef()


async def _context(request: web.Request, body: dict[str, Any]) -> LintContext:
    """Links resolve against every note in private mode, else against non-private notes only,
    so a link to a private note is reported as a link to nothing (no existence oracle)."""
    cache = request.app[LINT]
    await cache.ready()
    return cache.context if body.get("private", False) else cache.public_context


@routes.post("/v1/lint")
async def lint(request: web.Request) -> web.Response:
    body = await read_json(request, "LintRequest")
    rel = note_path(body["path"])
    ctx = await _context(request, body)
    diagnostics = await asyncio.to_thread(lint_text, body["text"], rel, ctx)
    return web.json_response({"diagnostics": [d.to_json() for d in diagnostics]})


@routes.post("/v1/lint/fix")
async def lint_fix(request: web.Request) -> web.Response:
    body = await read_json(request, "LintFixRequest")
    rel = note_path(body["path"])
    config = request.app[CONFIG]
    file = vault_path(config.vault, rel)  # no symbolic link anywhere along the path
    try:
        present = file.is_file()
    except OSError as exc:  # e.g. a folder in the path is a file, or is unreadable
        raise BadRequest(f"cannot use {rel}: {exc.strerror}") from exc
    if not present:
        raise NotFound(f"no note at {rel}")
    max_bytes = int(config.max_file_bytes)
    changed = await asyncio.to_thread(fix_dates, config.vault, rel, max_bytes)
    ctx = await _context(request, body)
    diagnostics = await asyncio.to_thread(lint_file, config.vault, rel, ctx, max_bytes)
    return web.json_response(
        {"changed": changed, "diagnostics": [d.to_json() for d in diagnostics]}
    )
