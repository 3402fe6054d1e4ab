"""A note's other names come from its alias properties however they are capitalised, as in
Obsidian (`Aliases:` resolves links and is searchable like `aliases:`)."""

from __future__ import annotations

import pytest

from sidecar.vault.properties import note_aliases


@pytest.mark.parametrize(("frontmatter", "expected"), [
    ({"aliases": ["Levain", "Mother dough"]}, ("Levain", "Mother dough")),
    ({"Aliases": ["Levain"]}, ("Levain",)),
    ({"ALIAS": "Levain, Mother dough"}, ("Levain", "Mother dough")),
    ({"aliases": ["Levain"], "Alias": "levain"}, ("Levain",)),
])
def test_aliases_in_any_capitalisation(frontmatter: dict[str, object],
                                       expected: tuple[str, ...]) -> None:
    assert note_aliases(frontmatter) == expected
