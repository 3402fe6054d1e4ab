"""`POST /v1/extract/accept` writes what the review showed: the plan the server made for
`POST /v1/extract` is held and gated again on the note as it is, never extracted again, so a
model that words a claim otherwise the second time, or fails, changes nothing that is written;
and a model's answer holding an escaped lone surrogate is planned, not a 500. Against a real
loopback chat model."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.extraction.proposals import extraction_data
from sidecar.extraction.reviews import FILE
from sidecar.memory.chat_note import turn_section
from sidecar.server.state import CONFIG
from tests.extraction.conftest import NOTES, WHEN, chat_text, fake_llm
from tests.notes import write_notes
from tests.server.conftest import Api

KITCHEN = "Chats/Ora/kitchen.md"
TURNS = [
    ("user", "Which flour ferments fastest?"),
    ("assistant", "Rye flour ferments faster than wheat flour. Rye flour holds more water than "
                  "wheat flour."),
    ("user", "I bake my loaves in a cast iron Dutch oven at 250 degrees."),
]
RYE = "Rye flour ferments faster than wheat flour."
WATER = "Rye flour holds more water than wheat flour."
OVEN = "I bake my loaves in a cast iron Dutch oven at 250 degrees."
REVIEWED = [{"turn": 2, "text": RYE, "title": "Rye ferments fastest"},
            {"turn": 2, "text": WATER, "title": "Rye holds water"},
            {"turn": 3, "text": OVEN, "title": "Dutch oven baking"}]
# the same claims as a sampling model words them on a second call
REWORDED = [{"turn": 2, "text": "Rye flour ferments faster than wheat flour does.",
             "title": "Rye flour ferments faster"},
            {"turn": 2, "text": WATER, "title": "Rye flour holds more water"},
            {"turn": 3, "text": "I bake my loaves in a cast-iron Dutch oven at 250 degrees.",
             "title": "Cast-iron Dutch oven"}]


def _answer(proposals: list[dict[str, Any]]) -> str:
    return json.dumps({"proposals": proposals})


@pytest.fixture
async def llm() -> AsyncIterator[Any]:
    server = await fake_llm.FakeLLM().start()
    yield server
    await server.stop()


async def _app(tmp_path: Path, configure: Callable[..., Any],
               api_for: Callable[..., Awaitable[Api]], llm: Any) -> tuple[Api, Path]:
    vault = write_notes(tmp_path / "vault", {**NOTES, KITCHEN: chat_text("kitchen", TURNS)})
    api = await api_for(configure(vault, tmp_path / "data", llm_url=llm.url))
    await api.wait_reconciled()
    return api, vault


async def _reviewed(api: Api, llm: Any) -> dict[str, str]:
    """The review of the kitchen chat, the model answering REVIEWED: each claim's id."""
    llm.reply = lambda body: _answer(REVIEWED)
    plan = (await api.post("/v1/extract", {"conversation": "kitchen"})).json
    assert plan["extractor"] == "llm:default"
    ids = {p["text"]: p["id"] for p in plan["proposals"]}
    assert set(ids) == {RYE, WATER, OVEN}
    return ids


async def _kept(api: Api, claim: str) -> str:
    """Accept one reviewed claim of the kitchen chat: the engram note written."""
    kept = await api.post("/v1/extract/accept", {"conversation": "kitchen", "accept": [claim]})
    assert kept.status == 200, kept.json
    (written,) = kept.json["written"]
    return str(written)


def _extractions(llm: Any) -> int:
    """How many times the model was asked to extract."""
    return len(llm.with_system(extraction_data()["llm"]["system"]))


async def test_an_accept_writes_the_reviewed_proposals_whatever_the_model_says_later(
    tmp_path: Path, configure: Callable[..., Any], api_for: Callable[..., Awaitable[Api]],
    llm: Any,
) -> None:
    api, vault = await _app(tmp_path, configure, api_for, llm)
    ids = await _reviewed(api, llm)

    # Before: the accept asked the model again; its other wording of the claim was a 409
    # ("extracted already, or the note changed") and a second call per accept.
    llm.reply = lambda body: _answer(REWORDED)
    oven = await _kept(api, ids[OVEN])
    assert (vault / oven).read_text(encoding="utf-8").endswith(
        f"# Dutch oven baking\n\n{OVEN}\n")

    # Before: with the model down the rule extractor planned the accept, and its title (the
    # claim itself) was written instead of the one reviewed.
    llm.mode = "error"
    rye = await _kept(api, ids[RYE])
    assert (vault / rye).read_text(encoding="utf-8").endswith(
        f"# Rye ferments fastest\n\n{RYE}\n")
    assert _extractions(llm) == 1

    # The held plan is gated on the note as it is now: a pushback the conversation gained
    # since the review rejects the claim, and nothing is written.
    note = vault / KITCHEN
    note.write_text(note.read_text(encoding="utf-8") + "\n" + turn_section(
        "user", "No, that's wrong.", WHEN.format(9), private=False), encoding="utf-8")
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    stale = await api.post("/v1/extract/accept", {"conversation": "kitchen",
                                                   "accept": [ids[WATER]]})
    assert stale.status == 409
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before
    assert _extractions(llm) == 1


async def test_a_review_is_still_held_after_the_server_restarted(
    tmp_path: Path, configure: Callable[..., Any], api_for: Callable[..., Awaitable[Api]],
    llm: Any,
) -> None:
    # Before: the restarted server planned afresh, and the model's other wording of the
    # reviewed claim was a 409 (and a second extraction).
    api, vault = await _app(tmp_path, configure, api_for, llm)
    ids = await _reviewed(api, llm)
    assert api.client is not None and api.app is not None
    config = api.app[CONFIG]
    await api.client.close()

    llm.reply = lambda body: _answer(REWORDED)
    again = await api_for(config)
    await again.wait_reconciled()
    oven = await _kept(again, ids[OVEN])
    assert (vault / oven).read_text(encoding="utf-8").endswith(
        f"# Dutch oven baking\n\n{OVEN}\n")
    assert _extractions(llm) == 1
    assert (config.data / FILE).stat().st_mode & 0o777 == 0o600


async def test_an_accept_with_no_review_held_plans_afresh(
    tmp_path: Path, configure: Callable[..., Any], api_for: Callable[..., Awaitable[Api]],
    llm: Any,
) -> None:
    api, _ = await _app(tmp_path, configure, api_for, llm)
    llm.reply = lambda body: _answer(REVIEWED)
    kept = await api.post("/v1/extract/accept", {"conversation": "kitchen", "accept": "all"})
    assert kept.status == 200 and len(kept.json["written"]) == 3
    assert _extractions(llm) == 1


async def test_an_answer_with_an_escaped_lone_surrogate_is_planned_and_kept(
    tmp_path: Path, configure: Callable[..., Any], api_for: Callable[..., Awaitable[Api]],
    llm: Any,
) -> None:
    # Before: 500 (the embedder refused the lone surrogate the answer's JSON decoded to).
    api, vault = await _app(tmp_path, configure, api_for, llm)
    llm.reply = lambda body: ('{"proposals": [{"turn": 3, "text": "I bake my loaves in a '
                              'cast iron Dutch oven at 250 degrees \\ud83d."}]}')
    planned = await api.post("/v1/extract", {"conversation": "kitchen"})
    assert planned.status == 200, planned.json
    (proposal,) = planned.json["proposals"]
    assert proposal["text"] == OVEN.removesuffix(".") + " \ufffd."
    kept = await api.post("/v1/extract/accept", {"conversation": "kitchen",
                                                  "accept": [proposal["id"]]})
    assert kept.status == 200
    (written,) = kept.json["written"]
    assert OVEN.removesuffix(".") + " \ufffd." in (vault / written).read_text(encoding="utf-8")
