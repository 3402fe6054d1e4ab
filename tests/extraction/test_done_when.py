"""Issue #26's "done when", end to end through `ora`: a conversation held through `ora ask` with a
scripted model, extracted by the rule extractor, kept, searched, triaged, and extracted again."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sidecar.cleaning import Queue

from ..memory.test_chat_notes import delete_data
from .conftest import CAFFEINE, STARTER

# (what the user says, what the scripted model answers)
SCRIPT = [
    ("Which flour ferments fastest?", "Rye flour ferments faster than wheat flour."),
    ("Can you see the Great Wall of China from space?",
     "The Great Wall of China is visible from space with the naked eye."),
    ("No, that's wrong. I bake my bread in a cast iron pot at 230 degrees.",
     "A sourdough starter is a culture of wild yeast and lactic bacteria."),
    ("Thanks! Does coffee help me bake at night?",
     "Caffeine does not improve alertness in adults."),
]
NEW_ASSISTANT = "Rye flour ferments faster than wheat flour."
NEW_USER = "I bake my bread in a cast iron pot at 230 degrees."
REFUTED = "The Great Wall of China is visible from space with the naked eye."
RESTATED = "A sourdough starter is a culture of wild yeast and lactic bacteria."
CONTRADICTING = "Caffeine does not improve alertness in adults."


async def _converse(vault: Path, llm: Any, use_settings: Callable[..., Any],
                    ora: Callable[..., tuple[int, Any]]) -> str:
    use_settings(vault, llm_url=llm.url)
    assert (await asyncio.to_thread(ora, "index", str(vault)))[0] == 0
    replies = dict(SCRIPT)
    llm.reply = lambda body: replies[body["messages"][-1]["content"].rsplit("Question: ", 1)[-1]]
    note = ""
    for question, _ in SCRIPT:
        status, doc = await asyncio.to_thread(ora, "ask", str(vault), question,
                                              "--conversation", "kitchen", "--no-rerank")
        assert status == 0 and doc["generator"] == "llm:test-model", doc
        note = doc["conversation_note"]
    return str(note)


async def test_a_conversation_becomes_engrams_through_the_gate_and_only_once(
    vault: Path, llm: Any, use_settings: Callable[..., Any],
    ora: Callable[..., tuple[int, Any]],
) -> None:
    note = await _converse(vault, llm, use_settings, ora)
    config = use_settings(vault)  # no model for extraction: the rule extractor
    status, plan = await asyncio.to_thread(ora, "extract", str(vault), "--conversation",
                                           "kitchen")
    assert status == 0 and plan["extractor"] == "rules" and "fallback" not in plan

    proposed = {p["text"]: p for p in plan["proposals"]}
    assert set(proposed) == {NEW_ASSISTANT, NEW_USER, CONTRADICTING}, plan
    assert proposed[NEW_ASSISTANT]["ai_derived"] is True
    assert proposed[NEW_USER]["ai_derived"] is False
    assert proposed[CONTRADICTING]["contradicts"] == [CAFFEINE]
    assert proposed[NEW_ASSISTANT]["contradicts"] == proposed[NEW_USER]["contradicts"] == []
    assert proposed[NEW_ASSISTANT]["subtype"] == "evaluative" or proposed[NEW_ASSISTANT][
        "subtype"] == "fact"
    source = proposed[NEW_USER]["source"]
    lines = (vault / note).read_text(encoding="utf-8").splitlines()
    assert source["path"] == note
    assert NEW_USER in "\n".join(lines[source["line_start"] - 1: source["line_end"]])

    dropped = {d["text"]: d for d in plan["dropped"]}
    assert dropped[REFUTED]["reason"] == "pushback"
    assert dropped[RESTATED] == {"text": RESTATED, "reason": "duplicate", "of": STARTER}
    chatter = [SCRIPT[0][0], SCRIPT[1][0], "No, that's wrong.", "Thanks!",
               "Does coffee help me bake at night?"]
    assert all(dropped[q]["reason"] == "not-a-claim" for q in chatter), dropped
    assert len(dropped) == len(chatter) + 2

    # Accept all: lint-clean engrams, found by search at P1 weight, the contradiction in triage.
    status, kept = await asyncio.to_thread(ora, "extract", str(vault), "--conversation",
                                           "kitchen", "--accept", "all")
    assert status == 0 and len(kept["written"]) == 3 and kept["queued_contradictions"] == 1
    assert all(rel.startswith("Engrams/") for rel in kept["written"])
    status, lint = await asyncio.to_thread(ora, "lint", str(vault))
    assert status == 0, lint
    assert not [d for d in lint["diagnostics"] if d["path"] in kept["written"] + [note]], lint
    texts = {rel: (vault / rel).read_text(encoding="utf-8") for rel in kept["written"]}
    ai = [rel for rel, t in texts.items() if "  - ai-derived\n" in t]
    assert len(ai) == 2 and all("type: engram\n" in t for t in texts.values())
    status, found = await asyncio.to_thread(ora, "search", str(vault), NEW_USER, "--no-rerank")
    top = found["results"][0]
    assert top["path"] in kept["written"] and top["type"] == "engram", found["results"][:2]
    assert top["why"]["type_weight"] == 1.0 and top["why"]["decay"] == 1.0
    queue = Queue(config.data, config.vault)
    try:
        pairs = queue.pairs("open")
    finally:
        queue.close()
    assert len(pairs) == 1 and {pairs[0].a.path, pairs[0].b.path} == {
        CAFFEINE, next(r for r in kept["written"] if "Caffeine" in r)}
    assert pairs[0].evidence["ai_derived"] == [False, True]

    # A second extraction proposes nothing, even after the data folder is deleted and rebuilt:
    # the chat note records what was kept.
    status, again = await asyncio.to_thread(ora, "extract", str(vault), "--conversation",
                                            "kitchen")
    assert status == 0 and again["proposals"] == []
    delete_data(config.data)
    assert (await asyncio.to_thread(ora, "index", str(vault)))[0] == 0
    status, again = await asyncio.to_thread(ora, "extract", str(vault), "--conversation",
                                            "kitchen")
    assert status == 0 and again["proposals"] == []
