"""Frontmatter written as one flow mapping (`{type: resource, tags: [], …}`): an edit changes only
the entries it changes, inside the braces, and keeps every other byte (it used to rewrite the
whole block as one key per line)."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest
from ruamel.yaml.comments import CommentedMap

from sidecar.errors import InvalidFrontmatter
from sidecar.lint.adopt import plan_adoption
from sidecar.lint.adopt_journal import apply_adoption, undo_adoption
from sidecar.lint.diagnostics import fix_dates
from sidecar.vault.frontmatter_edit import Mutation, add_tag, rewrite_frontmatter, set_value
from tests.notes import write_notes

FLOW = ("{type: resource, nexus: [], tags: [], date created: 2020-01-01, "
        "date modified: 2020-01-02}")


def _modified(cm: CommentedMap) -> None:
    set_value(cm, "date modified", dt.date(2024, 5, 6))


def _drop(key: str) -> Mutation:
    return lambda cm: cm.pop(key)


@pytest.mark.parametrize(("before", "mutate", "after"), [
    (f"---\n{FLOW}\n---\nbody\n", _modified,
     f"---\n{FLOW.replace('2020-01-02', '2024-05-06')}\n---\nbody\n"),
    # The entries' own spelling, spacing and line breaks stay; a new entry goes before the `}`.
    ('---\r\n{ "type" : resource ,  tags: [a, "b,c"],\r\n  nexus: [] }  # mine\r\n---\r\n',
     lambda cm: add_tag(cm, "new"),
     '---\r\n{ "type" : resource ,  tags: [a, "b,c", new],\r\n  nexus: [] }  # mine\r\n---\r\n'),
    ("---\n{type: resource, nexus: []}\n---\n", _modified,
     "---\n{type: resource, nexus: [], date modified: 2024-05-06}\n---\n"),
    ("---\n{}\n---\n", _modified, "---\n{date modified: 2024-05-06}\n---\n"),
    # A removed entry goes with the separator after it (before it, when it is the last).
    ("---\n{tag: x,  type: resource}\n---\n", _drop("tag"), "---\n{type: resource}\n---\n"),
    ("---\n{type: resource,  tag: x}\n---\n", _drop("tag"), "---\n{type: resource}\n---\n"),
    ("---\n{a: 1, tag: x,  b: 2}\n---\n", _drop("tag"), "---\n{a: 1, b: 2}\n---\n"),
])
def test_an_edit_of_a_flow_mapping_keeps_every_other_byte(
    before: str, mutate: Mutation, after: str,
) -> None:
    assert rewrite_frontmatter(before, mutate) == after


def test_lint_fix_changes_only_the_date_inside_a_one_line_mapping(tmp_path: Path) -> None:
    # Before: the block became five `key: value` lines.
    vault = write_notes(tmp_path, {"n.md": f"---\n{FLOW}\n---\nbody\n"})
    os.utime(vault / "n.md", (1_700_000_000, 1_700_000_000))
    assert fix_dates(vault, "n.md") is True
    text = (vault / "n.md").read_text(encoding="utf-8")
    today = dt.date.today().isoformat()
    assert text in (f"---\n{FLOW.replace('2020-01-02', day)}\n---\nbody\n"
                    for day in (today, (dt.date.today() - dt.timedelta(days=1)).isoformat()))


def test_adopt_adds_its_properties_inside_a_one_line_mapping_and_undoes_them(
    tmp_path: Path,
) -> None:
    before = "---\n{title: Kettles, tags: [Home]}\n---\nDescale monthly.\n"
    vault = write_notes(tmp_path, {"Kettles.md": before})
    plan = plan_adoption(vault, data=None)
    assert [p.path for p in plan.proposals] == ["Kettles.md"]
    assert apply_adoption(vault, plan.proposals).refused == []
    text = (vault / "Kettles.md").read_text(encoding="utf-8")
    assert text.startswith("---\n{title: Kettles, tags: [Home], type: resource, nexus: [], ")
    assert text.count("\n") == before.count("\n")
    undo_adoption(vault)
    assert (vault / "Kettles.md").read_text(encoding="utf-8") == before


def test_a_flow_mapping_the_splice_cannot_keep_is_refused_not_rewritten() -> None:
    # An empty last value (`c: }`) would run into a new entry: refused, as anchors are.
    with pytest.raises(InvalidFrontmatter, match="edit it by hand"):
        rewrite_frontmatter("---\n{a: 1, c: }\n---\n", _modified)
