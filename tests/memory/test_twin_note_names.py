"""A public twin's chat note is named as the note of an id no conversation holds would be in the
same place: `ID.md` when that name is free, else the next free number (`ID 2.md`), whatever
note holds the name (the private conversation's, the owner's own private note, a public one).
So its name tells that a note is at `ID.md`, never that a private conversation holds the id,
and the private note is never written over."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sidecar.memory import ConversationMemory, Episodic

from .conftest import SMALL
from .test_chat_notes import _notes

PRIVATE_NOTE = "---\ntags: [private]\n---\nThe code of the locker is 31-12-07.\n"
PUBLIC_NOTE = "A note of my own, filed among the chats.\n"


def _asked(opened: Any, conversation: str, *, private: bool = False) -> ConversationMemory:
    """The conversation a request naming `conversation` means (`ChatNotes.key_for`, as the
    routes and `ora ask` do), with one question asked in it."""
    notes = _notes(opened)
    memory = ConversationMemory(
        opened.config, opened.store, Episodic(opened.index.chroma, opened.index.namespace),
        opened.embedder, conversation, private=private, limits=SMALL, notes=notes,
        key=notes.key_for("default", conversation, private=private))
    memory.remember("user", "How often do I feed the sourdough starter?")
    return memory


def test_the_twins_note_is_named_as_an_unknown_ids_note_where_the_name_is_taken(
    open_memory: Callable[..., Any],
) -> None:
    opened = open_memory()
    chats = opened.config.vault / "Chats/Ora"
    chats.mkdir(parents=True)
    (chats / "mine.md").write_text(PRIVATE_NOTE, "utf-8")  # the owner's private note
    (chats / "filed.md").write_text(PUBLIC_NOTE, "utf-8")
    private_chat = _asked(opened, "twin", private=True)
    private_bytes = (opened.config.vault / str(private_chat.note_path)).read_bytes()
    named = {c: _asked(opened, c).shown_note() for c in ("twin", "mine", "filed", "fresh")}
    assert named == {"twin": "Chats/Ora/twin 2.md", "mine": "Chats/Ora/mine 2.md",
                     "filed": "Chats/Ora/filed 2.md", "fresh": "Chats/Ora/fresh.md"}
    assert (chats / "twin.md").read_bytes() == private_bytes  # never written over
    assert (chats / "mine.md").read_text("utf-8") == PRIVATE_NOTE
