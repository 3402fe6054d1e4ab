"""`GET /v1/adopt`, `POST /v1/adopt/apply`, `POST /v1/adopt/undo`: `ora adopt` for the plugin.

The plan is made by the same library as the CLI. An apply names the proposals it confirms by
path and digest; the server plans again and writes only those whose digest still matches (a
note edited since the plan has another digest, and is refused untouched). Private notes are
listed, applied and named in answers only in private mode, as everywhere else.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from aiohttp import web

from sidecar.lint.adopt import plan_adoption
from sidecar.lint.adopt_journal import Outcome, apply_adoption, undo_adoption
from sidecar.server.openapi import query_flag, read_json
from sidecar.server.resources import LANE
from sidecar.server.state import CONFIG
from sidecar.settings import Config

routes = web.RouteTableDef()


@routes.get("/v1/adopt")
async def adopt_plan(request: web.Request) -> web.Response:
    config = request.app[CONFIG]
    plan = await asyncio.to_thread(plan_adoption, config.vault, int(config.max_file_bytes),
                                   data=config.data)
    return web.json_response(plan.to_json(private=query_flag(request, "private")))


def _apply(config: Config, wanted: dict[str, str], private: bool) -> Outcome:
    """Apply the confirmed proposals that a fresh plan still holds with the same digest."""
    vault = config.vault
    plan = plan_adoption(vault, int(config.max_file_bytes), only=set(wanted), data=config.data)
    current = {p.path: p for p in plan.proposals}
    chosen, out = [], Outcome()
    for path, digest in wanted.items():
        proposal = current.get(path)
        if proposal is None or proposal.digest != digest:
            out.refuse(path, "changed since the plan (or nothing left to adopt); plan again")
        elif proposal.private and not private:
            out.refuse(path, "a private note: apply it in private mode")
            out.private.add(path)
        else:
            chosen.append(proposal)
    done = apply_adoption(vault, chosen)
    done.refused = out.refused + done.refused
    done.private |= out.private
    return done


async def _reindex(request: web.Request, paths: Iterable[str]) -> None:
    events = [{"kind": "modified", "path": p} for p in paths]
    if events:
        await request.app[LANE].apply(events)


@routes.post("/v1/adopt/apply")
async def adopt_apply(request: web.Request) -> web.Response:
    body = await read_json(request, "AdoptApplyRequest")
    config, private = request.app[CONFIG], bool(body.get("private", False))
    wanted = {str(n["path"]): str(n["digest"]) for n in body["notes"]}
    outcome = await asyncio.to_thread(_apply, config, wanted, private)
    await _reindex(request, outcome.done)
    return web.json_response(outcome.to_json("applied", private=private))


@routes.post("/v1/adopt/undo")
async def adopt_undo(request: web.Request) -> web.Response:
    body = await read_json(request, "PrivateModeRequest")
    outcome = await asyncio.to_thread(undo_adoption, request.app[CONFIG].vault)
    await _reindex(request, outcome.done)
    return web.json_response(outcome.to_json("restored", private=bool(body.get("private"))))
