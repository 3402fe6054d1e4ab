"""A private conversation and its public twin share an id (`memory/notes.py`): outside private
mode extraction reads the twin, as if the private one were not there; in private mode the
private one."""

from __future__ import annotations

from pathlib import Path

from sidecar.extraction import load_source
from tests.notes import write_notes

from .conftest import NOTES, chat_text, settings

PRIVATE = [("user", "My lawyer said the hearing moves to March."), ("assistant", "Noted.")]
PUBLIC = [("user", "Rye flour ferments faster than wheat flour."), ("assistant", "Indeed.")]


def test_outside_private_mode_the_public_twin_is_extracted_in_private_mode_the_private_one(
    tmp_path: Path,
) -> None:
    vault = write_notes(tmp_path / "vault", {
        **NOTES,
        "Chats/Ora/d-1.md": chat_text("d-1", PRIVATE, private=True),
        "Chats/Ora/d-1 2.md": chat_text("d-1", PUBLIC),
    })
    config = settings(vault)
    public = load_source(config, conversation="d-1", private=False)
    assert public.path == "Chats/Ora/d-1 2.md"
    assert public.turns[0].content == PUBLIC[0][1] and not public.private
    private = load_source(config, conversation="d-1", private=True)
    assert private.path == "Chats/Ora/d-1.md" and private.private
