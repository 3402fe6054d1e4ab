"""`GET /v1/adopt`, `POST /v1/adopt/apply`, `POST /v1/adopt/undo`: `ora adopt` for the plugin.

The plan is made by the same library as the CLI. An apply names the proposals it confirms by
path and digest; the server plans again and writes only those whose digest still matches (a
note edited since the plan has another digest, and is refused untouched). Private notes are
listed, applied and named in answers only in private mode, as everywhere else.

Applies and undos take their turn (`Turns`) one at a time, in the order their requests came in,
from planning through the journal: an apply plans again before it journals, so an undo let in
between would find the adoption before it and undo that one instead (an apply and an undo sent
while the server was paused undid the note adopted first, then wrote the second).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable

from aiohttp import web

from sidecar.lint.adopt import Proposal, plan_adoption
from sidecar.lint.adopt_journal import Outcome, apply_adoption, undo_adoption
from sidecar.server.openapi import query_flag, read_json
from sidecar.server.resources import LANE
from sidecar.server.state import CONFIG
from sidecar.settings import Config

routes = web.RouteTableDef()


async def _go_on() -> None:
    """The default `Turns.planned`: go straight on."""


class Turns:
    """Writes that journal and their undo, one at a time in the order their requests came in.

    `asyncio.Lock` wakes its waiters first come, first served, and takes a free lock without
    yielding, so a handler that takes its turn before anything else keeps the arrival order.
    `planned` is awaited inside an apply's turn once it has planned, before it journals: a
    no-op, which tests replace to hold an apply exactly there."""

    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self.waiting = 0  # requests come in and not yet let through
        self.planned: Callable[[], Awaitable[None]] = _go_on

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Hold the turn for the block; later requests wait for it in arrival order."""
        self.waiting += 1
        try:
            await self._lock.acquire()
        finally:
            self.waiting -= 1
        try:
            yield
        finally:
            self._lock.release()


ADOPT_TURNS = web.AppKey("adopt_turns", Turns)


async def context(app: web.Application) -> AsyncIterator[None]:
    """Adoption's turns, for as long as the server runs."""
    app[ADOPT_TURNS] = Turns()
    yield


@routes.get("/v1/adopt")
async def adopt_plan(request: web.Request) -> web.Response:
    config = request.app[CONFIG]
    plan = await asyncio.to_thread(plan_adoption, config.vault, int(config.max_file_bytes),
                                   data=config.data)
    return web.json_response(plan.to_json(private=query_flag(request, "private")))


def _chosen(config: Config, wanted: dict[str, str], private: bool) -> tuple[list[Proposal],
                                                                             Outcome]:
    """The confirmed proposals that a fresh plan still holds with the same digest, and an
    outcome refusing the others."""
    plan = plan_adoption(config.vault, int(config.max_file_bytes), only=set(wanted),
                         data=config.data)
    current = {p.path: p for p in plan.proposals}
    chosen: list[Proposal] = []
    out = Outcome()
    for path, digest in wanted.items():
        proposal = current.get(path)
        if proposal is None or proposal.digest != digest:
            out.refuse(path, "changed since the plan (or nothing left to adopt); plan again")
        elif proposal.private and not private:
            out.refuse(path, "a private note: apply it in private mode")
            out.private.add(path)
        else:
            chosen.append(proposal)
    return chosen, out


async def _apply(request: web.Request, wanted: dict[str, str], private: bool) -> Outcome:
    """Plan again, then apply what still holds (inside the caller's turn)."""
    config = request.app[CONFIG]
    chosen, out = await asyncio.to_thread(_chosen, config, wanted, private)
    await request.app[ADOPT_TURNS].planned()
    done = await asyncio.to_thread(apply_adoption, config.vault, chosen)
    done.refused = out.refused + done.refused
    done.private |= out.private
    return done


async def _reindex(request: web.Request, paths: Iterable[str]) -> None:
    events = [{"kind": "modified", "path": p} for p in paths]
    if events:
        await request.app[LANE].apply(events)


@routes.post("/v1/adopt/apply")
async def adopt_apply(request: web.Request) -> web.Response:
    async with request.app[ADOPT_TURNS].turn():  # first, to keep the order requests came in
        body = await read_json(request, "AdoptApplyRequest")
        private = bool(body.get("private", False))
        wanted = {str(n["path"]): str(n["digest"]) for n in body["notes"]}
        outcome = await _apply(request, wanted, private)
        await _reindex(request, outcome.done)
    return web.json_response(outcome.to_json("applied", private=private))


@routes.post("/v1/adopt/undo")
async def adopt_undo(request: web.Request) -> web.Response:
    async with request.app[ADOPT_TURNS].turn():  # after any apply that came in before it
        body = await read_json(request, "PrivateModeRequest")
        outcome = await asyncio.to_thread(undo_adoption, request.app[CONFIG].vault)
        await _reindex(request, outcome.done)
    return web.json_response(outcome.to_json("restored", private=bool(body.get("private"))))
