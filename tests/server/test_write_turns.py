"""An undo sent while an apply (or an accept) is still planning waits for it and undoes it, never
the one before: applies, accepts and their undos take their turn in the order they came in.

The QA pass paused the sidecar (SIGSTOP), adopted a second note, ran "Undo the last Ora
adoption", and resumed it: the undo ran first and restored the note adopted earlier. Here the
apply is held right after its planning by the route's own `planned` hook, the undo is sent, and
the apply is let go once the undo is waiting for its turn."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

from sidecar.server.routes_adopt import ADOPT_TURNS, Turns
from sidecar.server.routes_extract import EXTRACT_TURNS
from sidecar.settings import Config
from tests.notes import write_notes

from ..extraction.conftest import NOTES as EXTRACT_NOTES
from ..extraction.conftest import chat_text
from .conftest import Api

FIRST, SECOND = "Inbox/Meeting with Ana.md", "Inbox/Book ideas.md"
ADOPT_NOTES = {FIRST: "# Meeting with Ana\n\nWe talked about the garden #project\n",
               SECOND: "# Book ideas\n\nA novel about a lighthouse keeper.\n"}
KITCHEN, CRUST = "Chats/Ora/kitchen.md", "Chats/Ora/crust.md"
CHATS = {
    KITCHEN: chat_text("kitchen", [("user", "Which flour ferments fastest?"), (
        "assistant", "Rye flour ferments faster than wheat flour.")]),
    CRUST: chat_text("crust", [("assistant", "Steam in the first minutes of baking gives bread "
                                             "a glossy crust.")]),
}
POLLS = 2000  # bounded polling: 2000 rounds of the event loop at most


class Held:
    """A `Turns.planned` hook that holds the request which reaches it until `release`."""

    def __init__(self) -> None:
        self.reached = asyncio.Event()
        self.released = asyncio.Event()

    async def __call__(self) -> None:
        self.reached.set()
        await self.released.wait()


async def _raced(api: Api, turns: Turns, write: Coroutine[Any, Any, Any],
                 undo_path: str) -> tuple[Any, Any]:
    """`write` held once it has planned, an undo sent meanwhile, then `write` let go: both
    answers. The undo must still be waiting then (its turn comes after the write's)."""
    held = Held()
    turns.planned = held
    writing = asyncio.create_task(write)
    await asyncio.wait_for(held.reached.wait(), 60)
    undo = asyncio.create_task(api.post(undo_path, {}))
    for _ in range(POLLS):
        if undo.done() or turns.waiting:
            break
        await asyncio.sleep(0.005)
    assert not undo.done(), "the undo ran while the write was still planning"
    assert turns.waiting == 1
    held.released.set()
    return await writing, await undo


async def test_an_undo_sent_while_an_apply_plans_undoes_that_apply_not_the_one_before(
    tmp_path: Path, configure: Callable[..., Config], api_for: Callable[..., Awaitable[Any]]
) -> None:
    vault = write_notes(tmp_path / "vault", ADOPT_NOTES)
    api: Api = await api_for(configure(vault, tmp_path / "data"))
    await api.wait_reconciled()
    plan = {p["path"]: {"path": p["path"], "digest": p["digest"]}
            for p in (await api.get("/v1/adopt")).json["proposals"]}
    first = await api.post("/v1/adopt/apply", {"notes": [plan[FIRST]]})
    assert first.json["applied"] == [FIRST]
    adopted = (vault / FIRST).read_bytes()
    assert api.app is not None
    applied, undone = await _raced(api, api.app[ADOPT_TURNS],
                                   api.post("/v1/adopt/apply", {"notes": [plan[SECOND]]}),
                                   "/v1/adopt/undo")
    assert applied.json["applied"] == [SECOND]
    assert undone.status == 200 and undone.json["restored"] == [SECOND]
    assert (vault / FIRST).read_bytes() == adopted  # the earlier adoption is left alone
    assert (vault / SECOND).read_text(encoding="utf-8") == ADOPT_NOTES[SECOND]


async def test_an_undo_sent_while_an_accept_plans_undoes_that_accept_not_the_one_before(
    tmp_path: Path, configure: Callable[..., Config], api_for: Callable[..., Awaitable[Any]]
) -> None:
    vault = write_notes(tmp_path / "vault", {**EXTRACT_NOTES, **CHATS})
    api: Api = await api_for(configure(vault, tmp_path / "data", llm_url=""))
    await api.wait_reconciled()
    kitchen = await api.post("/v1/extract/accept", {"conversation": "kitchen", "accept": "all"})
    assert kitchen.status == 200 and kitchen.json["written"], kitchen.json
    kitchen_note = (vault / KITCHEN).read_bytes()
    assert api.app is not None
    accepted, undone = await _raced(
        api, api.app[EXTRACT_TURNS],
        api.post("/v1/extract/accept", {"conversation": "crust", "accept": "all"}),
        "/v1/extract/undo")
    assert accepted.status == 200 and accepted.json["written"], accepted.json
    assert undone.status == 200 and undone.json["removed"] == accepted.json["written"]
    assert undone.json["restored"] == [CRUST]
    assert all((vault / rel).is_file() for rel in kitchen.json["written"])
    assert (vault / KITCHEN).read_bytes() == kitchen_note  # its record of what was kept stays
    assert (vault / CRUST).read_text(encoding="utf-8") == CHATS[CRUST]
