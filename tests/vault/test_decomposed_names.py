"""File names saved decomposed (NFD, as macOS saves `ö` as `o` + U+0308) are named by links typed
composed (NFC), and the reverse, as in Obsidian: lint finds no broken link, related notes see it."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from sidecar.lint.diagnostics import lint_vault
from sidecar.vault.links import NameIndex

from .conftest import as_kept_by_lint


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


@pytest.mark.parametrize(("saved", "typed"), [
    (nfd("Hinweisblöcke.md"), nfc("Hinweisblöcke")),
    (nfc("Hinweisblöcke.md"), nfd("Hinweisblöcke")),
    (nfd("Ordner/Übersicht.md"), nfc("Ordner/Übersicht")),
    (nfd("Ordner/Übersicht.md"), nfc("übersicht")),
    (nfd("Café.md"), nfc("[[CAFÉ#Karte|the menu]]")),
])
def test_a_name_saved_decomposed_resolves_from_a_link_typed_composed(
    saved: str, typed: str,
) -> None:
    names = NameIndex([saved, "Other.md"])
    assert names.resolve_link(typed) == saved
    assert saved in names and nfc(saved) in names and nfd(saved) in names


def test_an_alias_typed_either_way_names_its_note() -> None:
    names = NameIndex(["Note.md"], {"Note.md": [nfd("Schlüssel")]})
    assert names.resolve(nfc("schlüssel")) == "Note.md"


def test_the_body_links_of_a_note_name_a_note_saved_decomposed() -> None:
    # `ora related` finds a note's outgoing links this way.
    saved = nfd("Hinweisblöcke.md")
    names = NameIndex([saved, "Tastenkürzel.md"])
    body = nfc("Siehe [[Hinweisblöcke]] und [die Blöcke](Hinweisbl%C3%B6cke.md).")
    assert list(names.linked(body, "Tastenkürzel.md")) == [saved, saved]


def test_lint_finds_no_broken_link_to_a_note_saved_decomposed(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / nfd("Hinweisblöcke.md")).write_text(
        "# Hinweisblöcke\nHinweisblöcke heben Informationen hervor.\n", encoding="utf-8")
    linking = vault / "Tastenkürzel.md"
    linking.write_text(nfc(
        '---\ntype: resource\nnexus: ["[[Hinweisblöcke]]"]\ntags: []\n'
        "date created: 2024-01-01\ndate modified: 2024-01-01\n---\n"
        "Mit Tastenkürzeln arbeitet man schneller. Siehe [[Hinweisblöcke]].\n"), encoding="utf-8")
    as_kept_by_lint(linking)
    found = [d.code for d in lint_vault(vault, data=None) if d.path == "Tastenkürzel.md"]
    # The nexus names the note (which is no matrix); before, both links were `link-broken`.
    assert found == ["nexus-not-matrix"]
