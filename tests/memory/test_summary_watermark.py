"""A running summary's watermark names the turns it covers, not their number: a question and
answer the user deletes by hand from a chat note never makes the summary skip a later turn, and
the deleted text leaves the summary the model is sent (the note is the truth, ADR-0005 d.4)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sidecar.memory import ChatNotes, ConversationMemory
from sidecar.memory.conversation import SUMMARY_PROMPT
from sidecar.vault.note import parse_note

from .test_chat_notes import delete_data

NOTE = "Chats/Ora/c1.md"
HEADING = re.compile(r"(?=^## (?:You|Ora) · )", re.M)


def _fact(n: int) -> str:
    return f"Fact {n}: the code word number {n} is WORD{n}X."


def _echo_summary(body: dict[str, Any]) -> str:
    """The summary prompt itself, on one line: every text the model was sent stays visible."""
    return "SUMMARY " + body["messages"][-1]["content"].replace("\n", " ")


def _notes(opened: Any) -> ChatNotes:
    return ChatNotes(opened.config, opened.store, opened.index.chroma, opened.embedder)


async def _ask(opened: Any, memory: ConversationMemory, n: int) -> None:
    """One question and answer as the server asks it: sync with the notes, context, turns."""
    _notes(opened).sync()
    await memory.context(_fact(n))
    memory.remember("user", _fact(n))
    memory.remember("assistant", f"Noted fact {n}.")


def _delete_exchange(path: Path, word: str) -> None:
    """What a user does in an editor: delete the question holding `word` and its answer."""
    sections = HEADING.split(path.read_text(encoding="utf-8"))
    at = next(i for i, s in enumerate(sections) if s.startswith("## You") and word in s)
    del sections[at:at + 2]
    path.write_text("".join(sections), encoding="utf-8")


async def _six_facts(open_memory: Callable[..., Any],
                     llm: Any) -> tuple[Any, ConversationMemory, Any]:
    """A conversation of six facts, the model summarising what it is given: the memory opened,
    its conversation, and the summary the window's evictions made."""
    llm.reply = _echo_summary
    opened = open_memory(llm_url=llm.url)
    memory = opened.memory()
    for n in range(1, 7):
        await _ask(opened, memory, n)
    return opened, memory, opened.store.summary("default", "c1", private=False)


def _new_turns(body: dict[str, Any]) -> str:
    return str(body["messages"][1]["content"].split("New turns:\n", 1)[1])


async def test_deleting_a_covered_turn_by_hand_keeps_every_evicted_turn_summarised_once(
    open_memory: Callable[..., Any], llm: Any,
) -> None:
    opened, memory, summary = await _six_facts(open_memory, llm)
    assert "WORD1X" in summary.text and "WORD3X" in summary.text
    before = len(llm.with_system(SUMMARY_PROMPT))

    _delete_exchange(opened.config.vault / NOTE, "WORD1X")
    for n in range(7, 10):
        await _ask(opened, memory, n)
    _notes(opened).sync()
    await memory.context("anything else?")

    since = llm.with_system(SUMMARY_PROMPT)[before:]
    assert since and not any("WORD1X" in b["messages"][1]["content"] for b in since)
    # Made afresh from the turns the note holds, then each newly evicted turn folded in once.
    assert "(none yet)" in since[0]["messages"][1]["content"]
    folded = "\n".join(_new_turns(b) for b in since)
    evicted = [t for t in memory.turns() if t.id < memory.window()[0].id]
    assert [t.content for t in evicted if t.role == "user"] == [
        _fact(n) for n in range(2, 2 + len([t for t in evicted if t.role == "user"]))]
    assert len(evicted) >= 8  # facts 2 to 5 at least, past the window
    for turn in evicted:
        assert folded.count(f"{turn.role}: {turn.content}") == 1, turn.content
    summary = opened.store.summary("default", "c1", private=False)
    assert summary.covered == evicted[-1].id and "WORD1X" not in summary.text


async def test_a_note_whose_summary_counts_its_turns_loads_and_is_rewritten_by_turn(
    open_memory: Callable[..., Any], llm: Any,
) -> None:
    llm.reply = _echo_summary
    opened = open_memory(llm_url=llm.url)
    memory = opened.memory()
    for n in range(1, 6):
        await _ask(opened, memory, n)
    covered = opened.store.summary("default", "c1", private=False).covered
    count = len([t for t in memory.turns() if t.id <= covered])
    path = opened.config.vault / NOTE
    text = path.read_text(encoding="utf-8")
    # The note as Ora wrote it before: `summary covers` a count of the turns covered.
    old = re.sub(r"^summary covers: .*$", f"summary covers: {count}", text, count=1, flags=re.M)
    assert f"\nsummary covers: {count}\n" in old
    path.write_text(old, encoding="utf-8")
    opened.close()
    delete_data(opened.config.data)  # a data folder rebuilt from the notes, as after an upgrade

    opened = open_memory(llm_url=llm.url)
    assert _notes(opened).sync().imported == ["c1"]
    loaded = opened.store.summary("default", "c1", private=False)
    turns = opened.memory().turns()
    assert loaded.text and loaded.covered == turns[count - 1].id  # the count, read as before
    mark = parse_note(path.read_text(encoding="utf-8"), NOTE).frontmatter["summary covers"]
    last = turns[count - 1]
    assert isinstance(mark, str)
    assert mark.startswith(last.created.replace("T", " ").replace("+00:00", " UTC"))
    assert _notes(opened).sync().imported == []  # the rewrite left the log matching the note

    # Written by turn, the watermark no longer moves when an exchange is deleted by hand.
    _delete_exchange(path, "WORD1X")
    _notes(opened).sync()
    assert opened.store.summary("default", "c1", private=False).text == ""


async def test_deleting_an_evicted_turn_the_summary_does_not_cover_keeps_the_summary(
    open_memory: Callable[..., Any], llm: Any,
) -> None:
    opened, memory, summary = await _six_facts(open_memory, llm)
    turns = memory.turns()
    after = [t for t in turns if t.id > summary.covered and t.role == "user"]
    assert after  # the last question is not covered yet
    _delete_exchange(opened.config.vault / NOTE, after[0].content.split(" is ")[-1].rstrip("."))
    _notes(opened).sync()
    kept = opened.store.summary("default", "c1", private=False)
    assert kept.text == summary.text
    assert [t.content for t in memory.turns() if t.id <= kept.covered] == [
        t.content for t in turns if t.id <= summary.covered]
