"""New notes' names: only the names of notes a non-private request may see count as taken, and
no name is one Windows keeps for a device."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from sidecar.vault.new_notes import create_named, public_names, safe_name
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
    names = public_names(vault, 1 << 20, data=None)
    assert "idea" in names
    assert "plan" not in names and "secret" not in names


def test_a_name_windows_keeps_for_a_device_is_not_given_to_a_note() -> None:
    # Before: a title "CON" made Engrams/CON.md, which breaks a vault synced to Windows.
    assert [safe_name(n, fallback="x") for n in ("CON", "nul", "Com1", "LPT9.txt")] == [
        "CON note", "nul note", "Com1 note", "LPT9.txt note"]
    assert [safe_name(n, fallback="x") for n in ("Console", "Nul point")] == [
        "Console", "Nul point"]


def test_a_name_typed_decomposed_is_the_name_of_the_composed_note(tmp_path: Path) -> None:
    # Before: names were compared case-folded only, so a title in NFD ("Cafe" + U+0301) next
    # to an existing NFC "Web/Café.md" was saved as a second, identical-looking "Web/Café.md".
    nfc, nfd = "Caf\u00e9", "Cafe\u0301"
    vault = write_notes(tmp_path, {f"Web/{nfc}.md": "Mine.\n"})
    names = public_names(vault, 1 << 20, data=None)
    assert nfd in names and nfd.upper() in public_names(vault, 1 << 20, data=None)
    assert safe_name(nfd, fallback="x") == nfc  # written composed
    rel, _ = create_named(vault, "Web", nfd, "New.\n", public_names(vault, 1 << 20, data=None))
    assert unicodedata.normalize("NFC", rel) == f"Web/{nfc} 2.md"
    # A private note's name is not taken, but its file is not written over in either form.
    private = write_notes(tmp_path / "p", {f"Web/{nfd}.md": "#private\n"})
    rel, _ = create_named(private, "Web", nfc, "New.\n", public_names(private, 1 << 20, data=None))
    assert rel == f"Web/{nfc} 2.md"
    assert sorted(p.name for p in (private / "Web").iterdir()) == [f"{nfd}.md", f"{nfc} 2.md"]
