"""A chat note another program is saving: memory waits it out or keeps the turn for later, and
never takes the note's empty moment for a conversation that is gone."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from sidecar.errors import Conflict
from sidecar.memory import notes as chat_notes
from sidecar.memory.chat_note import note_rel
from sidecar.vault.new_notes import safe_name

from .test_memory import CHAT, _say

NOTE = "Chats/Ora/c1.md"


class Saving:
    """`append_to_note` as seen while another program saves the note: Conflict for the next
    `busy` appends (all of them while `busy` is None), then the real one."""

    def __init__(self) -> None:
        self.busy: int | None = 0
        self.refused = 0

    def __call__(self, *args: Any, **kwargs: Any) -> tuple[str, str]:
        if self.busy is None or self.busy > 0:
            self.busy = None if self.busy is None else self.busy - 1
            self.refused += 1
            raise Conflict("c1.md is open for writing in another program; try again")
        return _APPEND(*args, **kwargs)


_APPEND = chat_notes.append_to_note


@pytest.fixture
def saving(monkeypatch: pytest.MonkeyPatch) -> Iterator[Saving]:
    fake = Saving()
    monkeypatch.setattr(chat_notes, "append_to_note", fake)
    monkeypatch.setattr(chat_notes, "WRITE_RETRY_PAUSE_S", 0.0, raising=False)
    yield fake


def _roles_and_texts(memory: Any) -> list[tuple[str, str]]:
    return [(t.role, t.content) for t in memory.turns()]


def test_a_sync_reading_the_note_empty_mid_save_keeps_the_conversation(
    open_memory: Callable[..., Any],
) -> None:
    opened = open_memory()
    memory = opened.memory()
    _say(memory, CHAT[:2])
    path = opened.config.vault / NOTE
    saved = path.read_bytes()
    path.write_bytes(b"")  # an editor's in-place save, between its truncate and its write
    report = memory.notes.sync()
    assert report.dropped == [] and memory.note_path == NOTE
    path.write_bytes(saved + b"\nA line the user typed.\n")  # the save completes
    memory.notes.sync()
    memory.remember("user", CHAT[2][1])
    assert memory.note_path == NOTE
    assert sorted(p.name for p in path.parent.iterdir()) == ["c1.md"]  # no `c1 2.md`
    turns = _roles_and_texts(memory)  # the user's line is read into the answer before it
    assert [t[0] for t in turns] == ["user", "assistant", "user"]
    assert turns[0] == CHAT[0] and turns[2] == CHAT[2]


def test_an_append_waits_out_a_note_held_by_a_save(
    open_memory: Callable[..., Any], saving: Saving,
) -> None:
    opened = open_memory()
    memory = opened.memory()
    memory.remember("user", CHAT[0][1])
    saving.busy = 3  # the note is held for three tries, then free
    memory.remember("assistant", CHAT[1][1])
    assert saving.refused == 3
    assert _roles_and_texts(memory) == CHAT[:2]
    assert CHAT[1][1] in (opened.config.vault / NOTE).read_text("utf-8")


def _refused_answer(open_memory: Callable[..., Any], saving: Saving,
                    monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """A question written, then its answer refused by a note held past every retry; (the opened
    memory, the conversation)."""
    monkeypatch.setattr(chat_notes, "WRITE_RETRY_S", 0.0, raising=False)
    opened = open_memory()
    memory = opened.memory()
    memory.remember("user", CHAT[0][1])
    saving.busy = None  # held past every retry
    with pytest.raises(Conflict):
        memory.remember("assistant", CHAT[1][1])
    return opened, memory


def test_a_turn_the_note_refuses_is_kept_and_written_before_the_next_one(
    open_memory: Callable[..., Any], saving: Saving, monkeypatch: pytest.MonkeyPatch,
) -> None:
    opened, memory = _refused_answer(open_memory, saving, monkeypatch)
    saving.busy = 0
    memory.remember("user", CHAT[2][1])
    assert _roles_and_texts(memory) == CHAT[:3]
    text = (opened.config.vault / NOTE).read_text("utf-8")
    assert text.index(CHAT[0][1]) < text.index(CHAT[1][1]) < text.index(CHAT[2][1])


def test_a_turn_the_note_refused_is_written_at_the_next_sync(
    open_memory: Callable[..., Any], saving: Saving, monkeypatch: pytest.MonkeyPatch,
) -> None:
    opened, memory = _refused_answer(open_memory, saving, monkeypatch)
    saving.busy = 0
    memory.notes.sync()
    assert _roles_and_texts(memory) == CHAT[:2]
    assert CHAT[1][1] in (opened.config.vault / NOTE).read_text("utf-8")


@pytest.mark.parametrize("conversation", ["CON", "nul", "AUX", "COM1", "lpt1.x"])
def test_a_conversation_named_as_a_windows_device_gets_a_note_name_windows_can_open(
    conversation: str,
) -> None:
    rel = note_rel("Chats/Ora", "default", conversation, "default")
    assert rel == f"Chats/Ora/{safe_name(conversation, fallback='x')}.md"
    assert rel == f"Chats/Ora/{conversation} note.md"
    assert note_rel("Chats/Ora", "con", "c1", "default") == "Chats/Ora/con note/c1.md"
