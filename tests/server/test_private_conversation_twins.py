"""Outside private mode an id a private conversation holds behaves exactly as an unknown id: a
non-private ask creates and continues a public conversation of that id (its twin), kept apart
from the private one, so no sequence of non-private requests tells whether a private
conversation holds the id.

The property is checked side by side: vault A holds private conversations of the ids asked,
vault B holds private conversations of other ids, built by the same requests (the same turns,
words and note names), so the two differ only in which ids the private conversations hold.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from sidecar.server.routes_memory import MEMORY
from tests.notes import write_notes
from tests.server.conftest import NOTES

# id held by a private conversation in A -> the id B's private conversation holds instead
HELD = {"c-base": "x-base", "c-renamed": "x-renamed"}
ASKED = ["c-base", "c-renamed", "fresh"]  # "fresh": held by no private conversation anywhere
QUESTIONS = ["What leavens sourdough bread?", "How does recall decay over days?"]
# Each id's own questions: its twin's note (named `c-base 2.md` in A, see below) is then no
# near tie with another conversation's in an answer's passages.
PUBLIC = {"c-base": ["Which yeast is in a starter?", "Do lactobacilli leaven dough?"],
          "c-renamed": ["Who measured forgetting?", "Does memory decay exponentially?"],
          "fresh": ["When is a card reviewed?", "Why do review intervals grow?"]}
# The private note renamed by its owner to a telling title (a free name for the twin's note).
RENAMED = "Chats/Ora/Divorce lawyer notes.md"
STAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC")


async def _settled(api: Any) -> None:
    """Wait (bounded) until every chat note an answer wrote is indexed: the next answer's
    passages must not depend on how fast the index followed."""
    indexing = api.app[MEMORY].indexing
    for _ in range(600):
        if not indexing:
            return
        await asyncio.wait(set(indexing), timeout=0.2)
    raise AssertionError("chat notes were not indexed")


async def _ask(api: Any, conversation: str, question: str, *, private: bool) -> dict[str, Any]:
    answer = await api.post("/v1/ask", {"question": question, "conversation": conversation,
                                        "private": private, "rerank": False})
    assert answer.status == 200, answer.json
    await _settled(api)
    doc: dict[str, Any] = answer.json
    return doc


async def _with_private(api: Any, vault: Path, ids: dict[str, str]) -> None:
    """Private conversations: one asked in private mode whose note keeps its path (`base`),
    one whose note its owner renamed (`renamed`)."""
    await api.wait_reconciled()
    for conversation in (ids["base"], ids["renamed"]):
        await _ask(api, conversation, QUESTIONS[0], private=True)
    old = f"Chats/Ora/{ids['renamed']}.md"
    (vault / old).rename(vault / RENAMED)
    await api.post("/v1/events", {"events": [{"kind": "renamed", "path": RENAMED,
                                              "old_path": old}]})


def _normal(doc: Any) -> Any:
    """A response without what differs between two runs anyway: turns' timestamps (and the
    chat notes' headings quoting them)."""
    if isinstance(doc, dict):
        return {k: "T" if k == "created" else _normal(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_normal(v) for v in doc]
    if isinstance(doc, str):
        return STAMP.sub("T", doc)
    return doc


async def _public_sequence(api: Any) -> list[Any]:
    """Every non-private response, in order, for the ids asked: ask, GET the conversation,
    GET the list, twice over."""
    seen: list[Any] = []
    for turn in range(2):
        for conversation in ASKED:
            seen.append(await _ask(api, conversation, PUBLIC[conversation][turn],
                                   private=False))
            got = await api.get(f"/v1/conversations/{conversation}")
            seen.append([got.status, got.json])
            listed = await api.get("/v1/conversations")
            seen.append([listed.status, listed.json])
    return _normal(seen)


async def _run(api_for: Callable[..., Awaitable[Any]], configure: Callable[..., Any],
               root: Path, ids: dict[str, str]) -> list[Any]:
    vault = write_notes(root / "vault", NOTES)
    api = await api_for(configure(vault, root / "data"))
    await _with_private(api, vault, ids)
    return await _public_sequence(api)


async def test_non_private_responses_are_the_same_whether_a_private_conversation_holds_the_id(
    api_for: Callable[..., Awaitable[Any]], configure: Callable[..., Any], tmp_path: Path,
) -> None:
    held = await _run(api_for, configure, tmp_path / "a",
                      {"base": "c-base", "renamed": "c-renamed"})
    other = await _run(api_for, configure, tmp_path / "b",
                       {"base": HELD["c-base"], "renamed": HELD["c-renamed"]})
    text = json.dumps(held, sort_keys=True)
    # The one difference left (docs/privacy.md): the private note holds the path the twin's
    # note would take, so the twin's takes the next free name, as a saved page's does.
    same = json.loads(text.replace("c-base 2", "c-base"))  # its path, and the title it gives
    for step, (mine, theirs) in enumerate(zip(same, other, strict=True)):
        assert mine == theirs, f"response {step} differs"
    assert "Chats/Ora/c-base 2.md" in text and "Chats/Ora/c-base.md" not in text
    first = held[0]
    assert first["conversation"] == "c-base" and first["conversation_note"] is not None


async def test_the_public_twin_is_kept_apart_from_the_private_conversation(
    api_for: Callable[..., Awaitable[Any]], configure: Callable[..., Any], tmp_path: Path,
) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    api = await api_for(configure(vault, tmp_path / "data"))
    await _with_private(api, vault, {"base": "c-base", "renamed": "c-renamed"})
    private_note = (vault / "Chats/Ora/c-base.md").read_bytes()
    doc = await _ask(api, "c-base", PUBLIC["c-base"][0], private=False)
    assert doc["conversation_note"] == "Chats/Ora/c-base 2.md"
    assert (vault / "Chats/Ora/c-base.md").read_bytes() == private_note
    public = (await api.get("/v1/conversations/c-base")).json
    assert [t["content"] for t in public["turns"]] == [PUBLIC["c-base"][0]]
    assert not any(t["private"] for t in public["turns"])
    # Private mode: the id names the private conversation; the twin is listed beside it.
    mine = (await api.get("/v1/conversations/c-base?private=true")).json
    assert [t["content"] for t in mine["turns"]] == [QUESTIONS[0]]
    assert mine["note"] == "Chats/Ora/c-base.md"
    listed = (await api.get("/v1/conversations?private=true")).json["conversations"]
    assert sorted(c["note"] for c in listed if c["conversation"] == "c-base") == [
        "Chats/Ora/c-base 2.md", "Chats/Ora/c-base.md"]
