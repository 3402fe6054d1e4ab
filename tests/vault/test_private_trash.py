"""Where a note goes to the trash (`trash_place.trash_of`): the vault's `.trash/`, but for a note of
a folder ora.yaml's `private` covers, the `.trash/` at the top of that folder, so its text never
leaves where the rule covers it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from sidecar.vault.trash import move_to_trash
from sidecar.vault.trash_place import trash_of
from sidecar.vault.vault_settings import default_vault_settings
from sidecar.vault.write import content_hash

PRIVATE = replace(default_vault_settings(), private=("Health/",))


@pytest.mark.parametrize(("rel", "trash"), [
    ("Health/blood/blood - page 1.md", "Health/.trash"),
    ("Health/note.md", "Health/.trash"),
    ("Resources/labs/labs - page 1.md", ".trash"),
    ("note.md", ".trash"),
])
def test_a_note_goes_to_the_trash_of_the_private_folder_it_lies_in(rel: str, trash: str) -> None:
    assert trash_of(PRIVATE, rel) == trash


def test_settings_that_cannot_say_what_is_private_keep_a_note_inside_its_top_folder() -> None:
    unsafe = replace(default_vault_settings(), unsafe=True)
    assert trash_of(unsafe, "Health/blood/blood - page 1.md") == "Health/.trash"


def test_a_note_moved_to_a_private_trash_keeps_its_name_there(tmp_path: Path) -> None:
    note = tmp_path / "Health/blood/x.md"
    note.parent.mkdir(parents=True)
    note.write_text("secret\n", encoding="utf-8")
    moved = move_to_trash(tmp_path, "Health/blood/x.md", content_hash(b"secret\n"),
                          trash_of(PRIVATE, "Health/blood/x.md"))
    assert moved == "Health/.trash/x.md" and (tmp_path / moved).read_text() == "secret\n"
