"""New notes' names: only the names of notes a non-private request may see count as taken."""

from __future__ import annotations

from pathlib import Path

from sidecar.vault.new_notes import public_names
from tests.notes import write_notes


def test_only_public_notes_hold_names(tmp_path: Path) -> None:
    # Before: a note in an ora.yaml private folder held its name, so a public note made
    # outside private mode was numbered ("Plan 2") and told that a private "Plan" exists.
    vault = write_notes(tmp_path, {
        "ora.yaml": "private:\n  - Health/\n",
        "Health/Plan.md": "Appointments.\n",
        "Diary/Secret.md": "#private thoughts.\n",
        "Engrams/Idea.md": "A public idea.\n",
    })
    names = public_names(vault, 1 << 20)
    assert "idea" in names
    assert "plan" not in names and "secret" not in names
