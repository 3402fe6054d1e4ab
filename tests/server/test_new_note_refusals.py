"""A new note in a folder Ora cannot write (read-only or immutable) is a clear 409, never a 500:
the folder is the user's to unlock, and nothing is left behind in it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sidecar.errors import NoteNotWritable
from sidecar.vault.write import create_note
from tests.notes import immutable


def test_a_new_note_in_an_immutable_folder_is_note_not_writable(tmp_path: Path) -> None:
    folder = tmp_path / "Web"
    folder.mkdir()
    with immutable(folder), pytest.raises(NoteNotWritable, match=r"Web/Page\.md cannot be written"):
        create_note(tmp_path, "Web/Page.md", "# Page\n")
    assert list(folder.iterdir()) == []


async def test_saving_a_web_page_into_an_immutable_folder_is_409_not_500(
    api: Any, vault: Path
) -> None:
    folder = vault / "Web"
    folder.mkdir(exist_ok=True)
    with immutable(folder):
        saved = await api.post("/v1/web/save", {"url": "https://example.org/tides",
                                                "title": "Tide page", "text": "High water."})
    assert saved.status == 409, saved.json
    assert saved.json["error"]["code"] == "note_not_writable"
    assert "immutable" in saved.json["error"]["message"]
    assert list(folder.iterdir()) == []
