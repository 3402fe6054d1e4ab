"""`POST /v1/lint` (the editor's unsaved text) and `POST /v1/lint/fix` (linter-managed dates);
links resolve against private notes only with `"private": true` (`lint_cache.py`), and only then
does `lint/fix` find (and write) a private note."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from sidecar.errors import BadRequest, NotFound, OraError
from sidecar.lint.diagnostics import LintContext, fix_dates, lint_file, lint_text
from sidecar.retrieval.private_now import settings_now_of
from sidecar.server.openapi import read_json
from sidecar.server.paths import note_path
from sidecar.server.resources import LINT
from sidecar.server.state import CONFIG
from sidecar.settings import Config
from sidecar.vault.note import read_note
from sidecar.vault.scan import as_saved, vault_path
from sidecar.vault.vault_settings import load_vault_settings, note_private

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


def _public(config: Config, rel: str, max_bytes: int) -> bool:
    """Whether the note at `rel` is not private: by its own words or by where it lies. A note
    that cannot be read, or settings that cannot say which folders are private, count as
    private (fail closed, as everywhere)."""
    settings = load_vault_settings(config.vault, config.data)
    try:
        return not note_private(read_note(config.vault, rel, max_bytes), settings)
    except (OSError, OraError):
        return False


def _private_path(config: Config, rel: str) -> bool:
    """Whether `rel` lies where the settings make notes private (a folder of ora.yaml's)."""
    return bool(settings_now_of(config).private_paths()(rel))


@routes.post("/v1/lint/fix")
async def lint_fix(request: web.Request) -> web.Response:
    body = await read_json(request, "LintFixRequest")
    typed = note_path(body["path"])
    config = request.app[CONFIG]
    private = bool(body.get("private", False))
    if not private and await asyncio.to_thread(_private_path, config, typed):
        # before any look at the file: a link or an odd path there would say something exists
        raise NotFound(f"no note at {typed}")
    # the name as typed (composed) finds a note saved decomposed (NFD), as /v1/related does
    rel = await asyncio.to_thread(as_saved, config.vault, typed)
    if rel != typed and not private and await asyncio.to_thread(_private_path, config, rel):
        raise NotFound(f"no note at {typed}")
    file = vault_path(config.vault, rel)  # no symbolic link anywhere along the path
    try:
        present = file.is_file()
    except OSError as exc:  # e.g. a folder in the path is a file, or is unreadable
        raise BadRequest(f"cannot use {typed}: {exc.strerror}") from exc
    max_bytes = int(config.max_file_bytes)
    if not present or not (private or await asyncio.to_thread(_public, config, rel, max_bytes)):
        # Outside private mode a private note is answered as a missing one, and not written:
        # its diagnostics quote it, and a different answer would say it exists.
        raise NotFound(f"no note at {typed}")
    changed = await asyncio.to_thread(fix_dates, config.vault, rel, max_bytes)
    ctx = await _context(request, body)
    diagnostics = await asyncio.to_thread(lint_file, config.vault, rel, ctx, max_bytes)
    return web.json_response(
        {"changed": changed, "diagnostics": [d.to_json() for d in diagnostics]}
    )
