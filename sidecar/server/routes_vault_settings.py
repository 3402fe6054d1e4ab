"""`GET /v1/vault-settings`, `POST /v1/vault-settings/lint-ignore` and
`POST /v1/vault-settings/exclude`: the vault's ora.yaml, read and edited by the same library the
CLI uses, so the plugin never keeps a second copy.

The server's own edits take turns (`EDITING`): each reads, checks and replaces the whole file, so
two at once would each see the other's write as a change by another program (409). The 409 stays
for edits by other programs.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from aiohttp import web

from sidecar.server.openapi import read_json
from sidecar.server.paths import request_path
from sidecar.server.resources import LANE, LINT
from sidecar.server.state import CONFIG
from sidecar.settings import Config
from sidecar.vault.settings_edit import add_lint_ignore, exclude_refusal, set_excluded
from sidecar.vault.vault_settings import VaultSettings, load_vault_settings

routes = web.RouteTableDef()
EDITING = web.AppKey("vault_settings_editing", asyncio.Lock)


async def context(app: web.Application) -> AsyncIterator[None]:
    """The lock the server's edits of ora.yaml take turns under, for as long as it runs."""
    app[EDITING] = asyncio.Lock()
    yield


async def _answer(config: Config, settings: VaultSettings) -> web.Response:
    """`settings` with `exclude_refused`: whether the picker's next edit would be refused (after
    an edit too, so the picker never falls back to guessing it from the problems)."""
    refused = await asyncio.to_thread(exclude_refusal, config.vault, config.data)
    return web.json_response({**settings.to_json(), "exclude_refused": refused})


@routes.get("/v1/vault-settings")
async def vault_settings(request: web.Request) -> web.Response:
    config = request.app[CONFIG]
    return await _answer(config, await asyncio.to_thread(load_vault_settings, config.vault,
                                                         config.data))


@routes.post("/v1/vault-settings/lint-ignore")
async def lint_ignore(request: web.Request) -> web.Response:
    body = await read_json(request, "LintIgnoreRequest")
    raw = str(body["path"])
    path = request_path(raw) + ("/" if raw.rstrip().endswith("/") else "")
    config = request.app[CONFIG]
    async with request.app[EDITING]:
        settings = await asyncio.to_thread(add_lint_ignore, config.vault, path, config.data)
    await request.app[LINT].reload_settings()
    return await _answer(config, settings)


@routes.post("/v1/vault-settings/exclude")
async def exclude(request: web.Request) -> web.Response:
    """The plugin's excluded-folders picker. The index follows at once, as after an edit of
    ora.yaml by hand (the watcher's `settings_changed`), and without a watcher too."""
    body = await read_json(request, "ExcludeRequest")
    raw = str(body["path"])
    path = request_path(raw) + ("/" if raw.rstrip().endswith("/") else "")
    config = request.app[CONFIG]
    async with request.app[EDITING]:
        settings = await asyncio.to_thread(set_excluded, config.vault, path,
                                           bool(body["excluded"]), config.data)
    await request.app[LANE].settings_changed()
    return await _answer(config, settings)
