"""A chat note the user empties or deletes on purpose: an emptied one is a deleted one once it
has stayed empty past an editor's save (`EMPTY_GRACE_S`), a deleted one is never re-created for
turns kept from it, and a turn its note still refuses when the server stops is written into a
new note rather than lost."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from sidecar.errors import Conflict
from sidecar.memory import notes as chat_notes

from .test_chat_note_saves import Saving
from .test_memory import CHAT, _say

NOTE = "Chats/Ora/c1.md"
NEXT = "Chats/Ora/c1 2.md"


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Saving:
    """The note as another program's save holds it (`Saving`): refused while `busy`."""
    fake = Saving()
    monkeypatch.setattr(chat_notes, "append_to_note", fake)
    monkeypatch.setattr(chat_notes, "WRITE_RETRY_PAUSE_S", 0.0, raising=False)
    return fake


def _roles_and_texts(memory: Any) -> list[tuple[str, str]]:
    return [(t.role, t.content) for t in memory.turns()]


def test_a_note_left_empty_past_the_grace_is_forgotten_and_the_next_turns_go_to_a_new_note(
    open_memory: Callable[..., Any], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(chat_notes, "EMPTY_GRACE_S", 0.0, raising=False)
    monkeypatch.setattr(chat_notes, "WRITE_RETRY_S", 0.0, raising=False)
    opened = open_memory()
    memory = opened.memory()
    _say(memory, CHAT[:2])
    path = opened.config.vault / NOTE
    path.write_text("", "utf-8")  # the user erases the conversation's text
    report = memory.notes.sync()
    assert report.dropped == ["c1"]
    assert memory.turns() == [] and memory.note_path is None  # erased turns are not served
    _say(memory, CHAT[2:4])  # never refused
    assert memory.note_path == NEXT
    assert _roles_and_texts(memory) == CHAT[2:4]
    assert path.read_bytes() == b""  # the emptied note stays as the user left it
    text = (opened.config.vault / NEXT).read_text("utf-8")
    assert CHAT[2][1] in text and CHAT[3][1] in text and CHAT[0][1] not in text


def test_an_append_to_a_note_left_empty_past_the_grace_writes_its_kept_turns_to_a_new_note(
    open_memory: Callable[..., Any], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(chat_notes, "WRITE_RETRY_S", 0.0, raising=False)
    opened = open_memory()
    memory = opened.memory()
    _say(memory, CHAT[:2])
    (opened.config.vault / NOTE).write_text("", "utf-8")
    with pytest.raises(Conflict):  # within the grace: perhaps an editor's save
        memory.remember("user", CHAT[2][1])
    monkeypatch.setattr(chat_notes, "EMPTY_GRACE_S", 0.0, raising=False)  # the grace is over
    memory.remember("assistant", CHAT[3][1])
    assert memory.note_path == NEXT
    assert _roles_and_texts(memory) == CHAT[2:4]
    assert memory.notes._pending == {}


def _refused_question(open_memory: Callable[..., Any], held: Saving,
                      monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """A private exchange written, then a question refused by a note held past every retry;
    (the opened memory, the conversation)."""
    monkeypatch.setattr(chat_notes, "WRITE_RETRY_S", 0.0, raising=False)
    opened = open_memory()
    memory = opened.memory(private=True)
    _say(memory, CHAT[:2])
    held.busy = None  # held past every retry, and still when the server stops
    with pytest.raises(Conflict):
        memory.remember("user", CHAT[2][1])
    return opened, memory


def test_a_turn_its_note_refuses_when_the_server_stops_is_written_to_a_new_note(
    open_memory: Callable[..., Any], held: Saving, monkeypatch: pytest.MonkeyPatch,
) -> None:
    opened, memory = _refused_question(open_memory, held, monkeypatch)
    memory.notes.flush(final=True)
    assert memory.notes._pending == {}
    rescued = (opened.config.vault / NEXT).read_text("utf-8")
    assert CHAT[2][1] in rescued and CHAT[0][1] not in rescued
    assert "  - private" in rescued  # a private turn's note is private
    assert CHAT[2][1] not in (opened.config.vault / NOTE).read_text("utf-8")


def test_a_turn_kept_from_a_note_the_user_then_deletes_never_recreates_it(
    open_memory: Callable[..., Any], held: Saving, monkeypatch: pytest.MonkeyPatch,
) -> None:
    opened, memory = _refused_question(open_memory, held, monkeypatch)
    held.busy = 0
    path = opened.config.vault / NOTE
    path.unlink()  # the user deletes the whole conversation
    memory.notes.sync()  # e.g. a GET
    assert list(path.parent.iterdir()) == []  # no note re-created, under any name
    memory.notes.flush(final=True)  # the server stops
    assert list(path.parent.iterdir()) == [] and memory.note_path is None
    assert memory.notes._pending == {} and memory.turns() == []
    memory.remember("user", CHAT[2][1])  # only a new ask starts a fresh note, without the kept
    assert _roles_and_texts(memory) == [CHAT[2]]  # turn of the deleted conversation
    assert "PRIVATE" not in path.read_text("utf-8")
