"""Outside private mode an id a private conversation holds names a public twin conversation of
that id, kept apart from the private one in every tier: its own chat note, turns and recall
vectors, and rebuilt as such from the notes alone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sidecar.memory import ConversationMemory, Episodic
from sidecar.memory.store import twin_of

from .conftest import SMALL
from .test_chat_notes import _notes, _recalled, delete_data

PRIVATE_Q = "My locker code is 31-12-07."
PUBLIC_Q = "How often do I feed the sourdough starter?"


def _asked(opened: Any, *, private: bool = False) -> ConversationMemory:
    """Conversation c1 as a request names it (`ChatNotes.key_for`, as the routes and
    `ora ask` do)."""
    notes = _notes(opened)
    return ConversationMemory(
        opened.config, opened.store, Episodic(opened.index.chroma, opened.index.namespace),
        opened.embedder, "c1", private=private, limits=SMALL, notes=notes,
        key=notes.key_for("default", "c1", private=private))


def _both(opened: Any) -> tuple[ConversationMemory, ConversationMemory]:
    """The private conversation c1 (asked in private mode) and then its public twin."""
    mine = _asked(opened, private=True)
    mine.remember("user", PRIVATE_Q)
    twin = _asked(opened)
    twin.remember("user", PUBLIC_Q)
    return mine, twin


def test_a_public_ask_on_a_private_conversations_id_gets_a_public_twin(
    open_memory: Callable[..., Any],
) -> None:
    opened = open_memory()
    mine, twin = _both(opened)
    assert (mine.key, twin.key) == ("c1", twin_of("c1"))
    assert twin.conversation == "c1" and twin.note_path == "Chats/Ora/c1 2.md"
    assert twin.shown_note() == "Chats/Ora/c1 2.md"
    text = (opened.config.vault / "Chats/Ora/c1 2.md").read_text("utf-8")
    # the twin's note is an ordinary public chat note of the id the user gave
    assert 'conversation: "c1"' in text and "tags: []" in text and PRIVATE_Q not in text
    assert PUBLIC_Q not in (opened.config.vault / "Chats/Ora/c1.md").read_text("utf-8")
    assert [t.content for t in _asked(opened, private=True).turns()] == [PRIVATE_Q]
    assert [t.content for t in _asked(opened).turns()] == [PUBLIC_Q]
    assert _recalled(opened) == [PUBLIC_Q] and _recalled(opened, private=True) == [PRIVATE_Q]


def test_the_twin_is_rebuilt_apart_from_the_private_conversation_from_the_notes_alone(
    open_memory: Callable[..., Any],
) -> None:
    before = open_memory()
    _both(before)
    before.close()
    delete_data(before.config.data)
    after = open_memory()
    _notes(after).sync()
    links = {k.conversation: k.path for k in after.store.note_links()}
    assert links == {"c1": "Chats/Ora/c1.md", twin_of("c1"): "Chats/Ora/c1 2.md"}
    assert [t.content for t in _asked(after, private=True).turns()] == [PRIVATE_Q]
    assert [t.content for t in _asked(after).turns()] == [PUBLIC_Q]
    assert _recalled(after) == [PUBLIC_Q] and _recalled(after, private=True) == [PRIVATE_Q]


def test_deleting_the_twins_note_leaves_the_private_conversation_whole(
    open_memory: Callable[..., Any],
) -> None:
    opened = open_memory()
    _both(opened)
    (opened.config.vault / "Chats/Ora/c1 2.md").unlink()
    report = _notes(opened).sync()
    assert report.dropped == ["c1"]
    assert [t.content for t in _asked(opened, private=True).turns()] == [PRIVATE_Q]
    assert _recalled(opened) == [] and _recalled(opened, private=True) == [PRIVATE_Q]
