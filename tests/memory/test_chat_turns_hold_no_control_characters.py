"""A question or an answer holding control characters (a NUL, ESC, BEL, backspace) is written to
its chat note without them: a NUL made Ora take the note for a binary file, so the conversation's
earlier turns were lost to memory and its next turn went to a new note."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sidecar.memory import ChatNotes
from sidecar.vault.note import decode_note

NOTE = "Chats/Ora/c1.md"


def test_a_turn_with_control_characters_leaves_the_chat_note_a_note(
    open_memory: Callable[..., Any],
) -> None:
    opened = open_memory()
    memory = opened.memory()
    memory.remember("user", "How much sun do tomatoes need?")
    memory.remember("assistant", "Six hours [1].")
    memory.remember("user", "And compost?\x00")
    memory.remember("assistant", "Compost needs carbon [1]. \x00\x1b[2J\x07 end\x08")
    data = (opened.config.vault / NOTE).read_bytes()
    assert not any(byte < 0x20 and byte not in b"\t\n" for byte in data), data
    decode_note(data, NOTE, int(opened.config.max_file_bytes))  # a note, not a binary file

    # The notes read back as the log holds them: every turn, and the next one in the same note.
    report = ChatNotes(opened.config, opened.store, opened.index.chroma, opened.embedder).sync()
    assert report.dropped == []
    memory.remember("user", "And blight?")
    assert memory.note_path == NOTE
    assert [t.content for t in memory.turns()] == [
        "How much sun do tomatoes need?", "Six hours [1].", "And compost?",
        "Compost needs carbon [1].   [2J  end", "And blight?"]
