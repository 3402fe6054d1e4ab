"""A title's characters a file name cannot hold become spaces, and a run of them with the spaces
around it one space: `a/b: c` is named `a b c`, not `a b  c`."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.vault.new_notes import create_named, public_names, safe_name
from tests.notes import write_notes


@pytest.mark.parametrize(("title", "name"), [
    ("a/b: c*d? e#f^g [h] | i\\j", "a b c d e f g h i j"),
    ("Ratio: 3:1 flour to water", "Ratio 3 1 flour to water"),
    ("[[Starter]] | feeding", "Starter feeding"),
    ('Say "when"?  Never.', "Say when Never"),
    ("tab\tand\nline", "tab and line"),
    ("# Heading: ", "Heading"),
])
def test_a_run_of_unsafe_characters_and_spaces_is_one_space(title: str, name: str) -> None:
    # Before: whitespace was collapsed before the unsafe characters became spaces, so
    # `a/b: c*d? e#f^g [h] | i\j` was named `a b  c d  e f g  h    i j`.
    assert safe_name(title, fallback="x") == name


def test_the_note_of_such_a_title_is_named_with_single_spaces(tmp_path: Path) -> None:
    vault = write_notes(tmp_path, {"Engrams/Other.md": "Mine.\n"})
    rel, _ = create_named(vault, "Engrams", safe_name("Why: proof | rest", fallback="x"),
                          "New.\n", public_names(vault, 1 << 20, data=None))
    assert rel == "Engrams/Why proof rest.md"
    assert (vault / rel).read_text(encoding="utf-8") == "New.\n"
