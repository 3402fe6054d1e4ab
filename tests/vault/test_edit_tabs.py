"""A tab between a key's colon and its value (`title:<TAB>My title`), valid YAML 1.2 that Obsidian
and the reader read: lint and the writer give one verdict. It used to pass lint and be refused
as "not valid YAML" by `ora adopt` and `ora lint --fix`, whose round-trip parser stops at it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from ruamel.yaml.comments import CommentedMap

from sidecar.errors import InvalidFrontmatter
from sidecar.lint.adopt import plan_adoption
from sidecar.lint.adopt_journal import apply_adoption
from sidecar.lint.diagnostics import lint_vault
from sidecar.vault.frontmatter_edit import rewrite_frontmatter, set_value
from sidecar.vault.note import parse_note
from tests.notes import write_notes


def _modified(cm: CommentedMap) -> None:
    set_value(cm, "date modified", dt.date(2024, 5, 6))


@pytest.mark.parametrize("yaml", [
    "title:\tMy title\ntags: [a]\n",
    "title: \t My title\n",
    "type: engram\t# a tab, then a comment\n",
    "tags:\n  - a\t\n  - b\n",
    "{title:\tMy title,\ttags: [a]}\n",
    "title:\tMy title\r\n",
])
def test_tabs_the_reader_takes_as_spaces_are_edited_keeping_their_bytes(yaml: str) -> None:
    text = f"---\n{yaml}---\nbody\n"
    assert parse_note(text, "n.md").yaml_error is None
    edited = rewrite_frontmatter(text, _modified)
    assert "date modified: 2024-05-06" in edited
    kept = yaml.split("}")[0] if yaml.startswith("{") else yaml
    assert kept in edited  # every tab where it was


def test_adopt_takes_a_note_lint_finds_valid_with_a_tab_after_a_colon(tmp_path: Path) -> None:
    vault = write_notes(tmp_path, {"n.md": "---\ntitle:\tMy title\ntags: [a]\n---\nbody\n"})
    assert [d.code for d in lint_vault(vault, data=None) if d.code == "yaml-invalid"] == []
    plan = plan_adoption(vault, data=None)
    assert [p.path for p in plan.proposals] == ["n.md"] and plan.skipped == []
    assert apply_adoption(vault, plan.proposals).refused == []
    assert (vault / "n.md").read_text(encoding="utf-8").startswith(
        "---\ntitle:\tMy title\ntags: [a]\ntype: ")


def test_a_tab_inside_a_value_is_refused_naming_its_line() -> None:
    # The reader keeps the tabs in the value; ruamel cannot: refused, never changed.
    with pytest.raises(InvalidFrontmatter, match=r"tab on line 3 .* replace it by a space"):
        rewrite_frontmatter("---\ntype: engram\ntitle: Tab\t\tbed\n---\n", _modified)


def test_a_tab_that_indents_is_invalid_for_both() -> None:
    text = "---\ntags:\n\t- a\n---\n"
    assert parse_note(text, "n.md").yaml_error is not None
    with pytest.raises(InvalidFrontmatter, match="not valid YAML"):
        rewrite_frontmatter(text, _modified)
