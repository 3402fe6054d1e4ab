"""Conversations are chat notes: every turn is appended to a readable note, and the log, the
summaries and the recall vectors are rebuilt from the notes (edits followed, deletions honoured).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from chromadb.api.shared_system_client import SharedSystemClient

from sidecar.lint.diagnostics import lint_file
from sidecar.memory import ChatNotes
from sidecar.memory.conversation import SUMMARY_PROMPT
from sidecar.vault.note import parse_note

from .test_memory import CHAT, _say, _text

NOTE = "Chats/Ora/c1.md"
SOURCES = ["- [1] [[Resources/Sourdough|Sourdough]], lines 10-12 (incubating)"]


def delete_data(data: Path) -> None:
    """What a user does to `.ora/`; Chroma's in-process cache of the deleted store goes too (a
    new process would not have it)."""
    shutil.rmtree(data)
    SharedSystemClient.clear_system_cache()


def _notes(opened: Any) -> ChatNotes:
    return ChatNotes(opened.config, opened.store, opened.index.chroma, opened.embedder)


def _recalled(opened: Any, private: bool = False) -> list[str]:
    name = "mem__default__private" if private else "mem__default"
    client = opened.index.chroma.client
    if name not in {c.name for c in client.list_collections()}:
        return []
    return sorted(client.get_collection(name).get()["documents"] or [])


def test_each_turn_is_appended_to_a_chat_note_that_reads_as_plain_text(
    open_memory: Callable[..., Any],
) -> None:
    opened = open_memory()
    memory = opened.memory()
    memory.remember("user", CHAT[0][1])
    memory.remember("assistant", CHAT[1][1], sources=SOURCES, topic="Sourdough")
    assert memory.note_path == NOTE
    text = (opened.config.vault / NOTE).read_text(encoding="utf-8")
    first, second = memory.turns()
    day = first.created[:10]
    stamp = lambda t: t.created.replace("T", " ").replace("+00:00", " UTC")  # noqa: E731
    assert text == (
        f'---\ntype: chat\nnexus: []\ntags: []\ndate created: {day}\ndate modified: {day}\n'
        f'conversation: "c1"\nnamespace: "default"\ncluster: Sourdough\n---\n# c1\n\n'
        f"## You · {stamp(first)}\n\n{CHAT[0][1]}\n\n"
        f"## Ora · {stamp(second)}\n\n{CHAT[1][1]}\n\nSources:\n{SOURCES[0]}\n"
    )
    note = parse_note(text, NOTE)
    assert note.type == "chat" and note.cluster == "Sourdough"


async def test_deleting_the_data_folder_loses_no_turn_summary_or_recall(
    open_memory: Callable[..., Any], llm: Any,
) -> None:
    llm.reply = lambda body: "they talked about bread, bikes and taxes"
    before = open_memory(llm_url=llm.url)
    memory = before.memory()
    _say(memory, CHAT)
    await memory.context("anything")
    turns, summary = memory.turns(), memory.store.summary("default", "c1", private=False)
    assert summary.covered > 0
    before.close()
    delete_data(before.config.data)

    after = open_memory(llm_url=llm.url)
    report = _notes(after).sync()
    assert report.imported == ["c1"] and report.dropped == []
    rebuilt = after.memory()
    assert [(t.role, t.content, t.created, t.private) for t in rebuilt.turns()] == [
        (t.role, t.content, t.created, t.private) for t in turns]
    restored = after.store.summary("default", "c1", private=False)
    assert restored.text == summary.text
    covered = [t.content for t in rebuilt.turns() if t.id <= restored.covered]
    assert covered == [t.content for t in turns if t.id <= summary.covered]
    context = await rebuilt.context("how often do I feed the sourdough starter?")
    assert len(llm.with_system(SUMMARY_PROMPT)) == 1  # the watermark came back with the note
    assert "bread, bikes and taxes" in context[0]["content"]
    assert CHAT[0][1] in _text(context)  # recalled from vectors rebuilt from the note
    assert _notes(after).sync().imported == []  # nothing changed: nothing re-read


def test_an_edited_turn_is_what_memory_remembers(open_memory: Callable[..., Any]) -> None:
    opened = open_memory()
    _say(opened.memory(), CHAT[:2])
    path = opened.config.vault / NOTE
    path.write_text(path.read_text(encoding="utf-8").replace("rye flour", "spelt flour"),
                    encoding="utf-8")
    assert _notes(opened).sync().imported == ["c1"]
    edited = CHAT[0][1].replace("rye flour", "spelt flour")
    assert [t.content for t in opened.memory().turns()] == [edited, CHAT[1][1]]
    assert _recalled(opened) == sorted([edited, CHAT[1][1]])


def test_an_append_after_a_users_edit_keeps_the_edit(open_memory: Callable[..., Any]) -> None:
    opened = open_memory()
    memory = opened.memory()
    _say(memory, CHAT[:2])
    path = opened.config.vault / NOTE
    path.write_text(path.read_text(encoding="utf-8").replace("twelve hours", "eight hours"),
                    encoding="utf-8")
    memory.remember("user", CHAT[2][1])
    text = path.read_text(encoding="utf-8")
    assert "eight hours" in text and CHAT[2][1] in text
    assert [t.content for t in memory.turns()] == [
        CHAT[0][1].replace("twelve hours", "eight hours"), CHAT[1][1], CHAT[2][1]]


def test_deleting_the_note_forgets_the_conversation(open_memory: Callable[..., Any]) -> None:
    opened = open_memory()
    _say(opened.memory(), CHAT[:2])
    _say(opened.memory("kept"), CHAT[2:4])
    (opened.config.vault / NOTE).unlink()
    report = _notes(opened).sync()
    assert report.dropped == ["c1"]
    assert not opened.store.exists("default", "c1") and opened.store.exists("default", "kept")
    assert _recalled(opened) == sorted(c for _, c in CHAT[2:4])
    memory = opened.memory()  # the same id starts afresh, in a new note
    memory.remember("user", "A new start.")
    assert [t.content for t in memory.turns()] == ["A new start."]


def test_a_note_moved_out_of_the_chats_folder_keeps_its_conversation(
    open_memory: Callable[..., Any],
) -> None:
    opened = open_memory()
    _say(opened.memory(), CHAT[:2])
    moved = opened.config.vault / "Projects" / "Bread chat.md"
    moved.parent.mkdir()
    (opened.config.vault / NOTE).rename(moved)
    notes = _notes(opened)
    assert notes.moved(NOTE, "Projects/Bread chat.md")
    assert not notes.moved("Elsewhere/Other.md", "Elsewhere/Other 2.md")
    assert notes.sync().dropped == []
    memory = opened.memory()
    memory.remember("user", CHAT[2][1])
    assert memory.note_path == "Projects/Bread chat.md"
    assert not (opened.config.vault / NOTE).exists()
    assert CHAT[2][1] in moved.read_text(encoding="utf-8")
    assert [t.content for t in memory.turns()] == [c for _, c in CHAT[:3]]


def test_a_private_turn_makes_the_note_private_and_comes_back_private(
    open_memory: Callable[..., Any],
) -> None:
    opened = open_memory()
    _say(opened.memory(), CHAT[:2])
    opened.memory(private=True).remember("user", "My locker code is 31-12-07.")
    note = parse_note((opened.config.vault / NOTE).read_text(encoding="utf-8"), NOTE)
    assert note.is_private and "· private\n\nMy locker code" in note.text
    # Every turn of a private note is private: the earlier ones leave non-private memory now.
    assert [t.private for t in opened.memory(private=True).turns()] == [True, True, True]
    assert opened.memory().turns() == [] and _recalled(opened) == []
    opened.close()
    delete_data(opened.config.data)

    after = open_memory()
    _notes(after).sync()
    assert [t.private for t in after.memory(private=True).turns()] == [True, True, True]
    assert _recalled(after) == []
    assert _recalled(after, private=True) == sorted(
        [*(c for _, c in CHAT[:2]), "My locker code is 31-12-07."])


def test_turns_logged_before_chat_notes_existed_are_written_into_the_first_note(
    open_memory: Callable[..., Any],
) -> None:
    opened = open_memory()
    for role, content in CHAT[:2]:
        opened.store.append("default", "c1", role, content, tokens=12, private=False)
    memory = opened.memory()
    memory.remember("user", CHAT[2][1])
    text = (opened.config.vault / NOTE).read_text(encoding="utf-8")
    assert all(content in text for _, content in CHAT[:3])
    assert [t.content for t in memory.turns()] == [c for _, c in CHAT[:3]]


def test_a_conversation_of_another_namespace_has_its_own_folder(tmp_path: Path) -> None:
    from sidecar.memory.chat_note import note_rel
    assert note_rel("Chats/Ora", "default", "c1", "default") == "Chats/Ora/c1.md"
    assert note_rel("Chats/Ora", "work", "a:b", "default") == "Chats/Ora/work/a-b.md"


def test_the_vault_settings_choose_the_chats_folder(open_memory: Callable[..., Any]) -> None:
    opened = open_memory()
    (opened.config.vault / "ora.yaml").write_text("chats_folder: Talks/With Ora/\n")
    memory = opened.memory()
    memory.remember("user", CHAT[0][1])
    assert memory.note_path == "Talks/With Ora/c1.md"
    assert (opened.config.vault / "Talks/With Ora/c1.md").is_file()


@pytest.mark.parametrize("how", ["tag", "folder"])
async def test_a_chat_note_made_private_by_hand_is_private_in_every_tier(
    open_memory: Callable[..., Any], llm: Any, how: str,
) -> None:
    """The note is the truth: once its owner tags it `private` (a frontmatter tag or an inline
    #private), or makes its folder private in ora.yaml (the note's bytes unchanged), none of its
    turns is listed, recalled or summarised outside private mode, as the index keeps the note
    itself out of non-private search."""
    llm.reply = lambda body: "they talked about bread and bikes"
    opened = open_memory(llm_url=llm.url)
    memory = opened.memory()
    _say(memory, CHAT[:6])
    await memory.context("anything")  # a public summary is written into the note
    path = opened.config.vault / NOTE
    if how == "tag":
        path.write_text(path.read_text(encoding="utf-8").replace("tags: []", "tags: [private]"),
                        encoding="utf-8")
    else:
        (opened.config.vault / "ora.yaml").write_text("private: [Chats/]\n", encoding="utf-8")
    _notes(opened).sync()
    assert opened.memory().turns() == []
    assert opened.store.summary("default", "c1", private=False).text == ""
    assert _recalled(opened) == []
    context = await opened.memory("other").context("what flour feeds my sourdough starter?")
    assert "rye flour" not in _text(context)
    assert [t.content for t in opened.memory(private=True).turns()] == [c for _, c in CHAT[:6]]
    # A turn asked outside private mode goes into the private note: it is private too.
    opened.memory().remember("user", "What about spelt flour?")
    assert opened.memory().turns() == [] and _recalled(opened) == []


async def test_a_chat_note_grown_past_the_size_limit_takes_turns_but_is_private(
    open_memory: Callable[..., Any],
) -> None:
    """Appending checks whether the note turned private by reading it back; a note too large
    to read still takes the turn (it was written), but whether its owner tagged it private
    cannot be known: its turns leave every non-private tier (privacy fails closed)."""
    opened = open_memory(max_file_bytes=600)
    memory = opened.memory()
    _say(memory, CHAT)
    assert (opened.config.vault / NOTE).stat().st_size > 600
    assert [t.content for t in opened.memory(private=True).turns()] == [c for _, c in CHAT]
    assert memory.turns() == [] and _recalled(opened) == []
    context = await opened.memory("other").context("what flour feeds my sourdough starter?")
    assert "rye flour" not in _text(context)


async def test_a_chat_note_made_undecodable_and_private_by_hand_is_private_in_every_tier(
    open_memory: Callable[..., Any], llm: Any,
) -> None:
    """One Latin-1 byte hides the private tag its owner added from every reader: the
    conversation is treated as private (log, summary, recall) until the note reads again."""
    llm.reply = lambda body: "they talked about bread and bikes"
    opened = open_memory(llm_url=llm.url)
    memory = opened.memory()
    _say(memory, CHAT[:6])
    await memory.context("anything")  # a public summary
    path = opened.config.vault / NOTE
    path.write_bytes(path.read_bytes().replace(b"tags: []", b"tags: [private]") + b"caf\xe9\n")
    _notes(opened).sync()
    assert opened.memory().turns() == [] and _recalled(opened) == []
    assert opened.store.summary("default", "c1", private=False).text == ""
    context = await opened.memory("other").context("what flour feeds my sourdough starter?")
    assert "rye flour" not in _text(context)
    assert [t.content for t in opened.memory(private=True).turns()] == [c for _, c in CHAT[:6]]
    assert "rye flour" in " ".join(_recalled(opened, private=True))
    path.write_bytes(path.read_bytes().replace(b"caf\xe9", b"cafe"))  # readable, still private
    _notes(opened).sync()
    assert opened.memory().turns() == []
    path.write_bytes(path.read_bytes().replace(b"tags: [private]", b"tags: []"))
    _notes(opened).sync()
    assert [t.content for t in opened.memory().turns()][:5] == [c for _, c in CHAT[:5]]


@pytest.fixture
def other_day_zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A time zone whose day now is not UTC's (UTC+14 from 10:00 UTC, UTC-12 before 12:00)."""
    zone = "Etc/GMT-14" if datetime.now(UTC).hour >= 10 else "Etc/GMT+12"
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    yield zone
    monkeypatch.undo()
    time.tzset()


def test_a_chat_note_is_dated_by_the_local_day_so_lint_finds_it_current(
    open_memory: Callable[..., Any], other_day_zone: str,
) -> None:
    """Chat notes were dated by the turn's UTC day: where that is not the local day, each note
    Ora wrote had a `date modified` a day off its file's, and lint called it stale."""
    opened = open_memory()
    memory = opened.memory()
    memory.remember("user", CHAT[0][1])  # creates the note
    memory.remember("assistant", CHAT[1][1], sources=SOURCES)  # appends, updating the date
    first, _ = memory.turns()
    local = datetime.fromisoformat(first.created).astimezone().date().isoformat()
    assert local != first.created[:10]  # the zone was chosen so
    text = (opened.config.vault / NOTE).read_text(encoding="utf-8")
    assert f"date created: {local}\ndate modified: {local}\n" in text
    assert [d.code for d in lint_file(opened.config.vault, NOTE)] == []
