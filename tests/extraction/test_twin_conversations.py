"""A private conversation and its public twin share an id (`memory/notes.py`): outside private
mode extraction reads the twin, as if the private one were not there; in private mode the
private one."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.extraction import load_source
from tests.notes import write_notes

from .conftest import NOTES, chat_text, settings

PRIVATE = [("user", "My lawyer said the hearing moves to March."), ("assistant", "Noted.")]
PUBLIC = [("user", "Rye flour ferments faster than wheat flour."), ("assistant", "Indeed.")]


@pytest.mark.parametrize("tagged", [True, False], ids=["tagged", "private-turns-only"])
def test_outside_private_mode_the_public_twin_is_extracted_in_private_mode_the_private_one(
    tmp_path: Path, tagged: bool,
) -> None:
    """The private one is private by its tag, or only by its private-mode turns (its twin's
    note name sorts first: review found private mode extracting the twin)."""
    private_note = chat_text("d-1", PRIVATE, private=True)
    if not tagged:
        private_note = private_note.replace("tags:\n  - private", "tags: []", 1)
    vault = write_notes(tmp_path / "vault", {
        **NOTES,
        "Chats/Ora/d-1.md": private_note,
        "Chats/Ora/d-1 2.md": chat_text("d-1", PUBLIC),
    })
    config = settings(vault)
    public = load_source(config, conversation="d-1", private=False)
    assert public.path == "Chats/Ora/d-1 2.md"
    assert public.turns[0].content == PUBLIC[0][1] and not public.private
    private = load_source(config, conversation="d-1", private=True)
    assert private.path == "Chats/Ora/d-1.md"
    assert private.turns[0].content == PRIVATE[0][1]
