"""A scalar value Ora replaces keeps the form the user wrote it in: its quotes (when the new
value can be written in them), its explicit tag, and the exact bytes around it, a tab before an
end-of-line comment included. Only the value's own characters change."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest
from ruamel.yaml.comments import CommentedMap

from sidecar.lint.diagnostics import fix_dates
from sidecar.vault.frontmatter_edit import rewrite_frontmatter, set_value
from sidecar.vault.note import parse_note

NEW = dt.date(2024, 5, 6)


@pytest.mark.parametrize(("line", "after"), [
    ("date modified: 2020-01-02\t# tab comment", "date modified: 2024-05-06\t# tab comment"),
    ("date modified: 2020-01-02 \t # mixed", "date modified: 2024-05-06 \t # mixed"),
    ("date modified: '2020-01-02'", "date modified: '2024-05-06'"),
    ('date modified: "2020-01-02"  # c', 'date modified: "2024-05-06"  # c'),
    ("date modified: !!str 2020-01-02", "date modified: !!str 2024-05-06"),
    ("date modified: !!str '2020-01-02'\t# both", "date modified: !!str '2024-05-06'\t# both"),
    ("date modified:\t2020-01-02", "date modified:\t2024-05-06"),
])
def test_replacing_a_date_changes_only_its_digits(line: str, after: str) -> None:
    text = f"---\ntype: engram\n{line}\ntags: [a]\n---\nbody\n"

    def mutate(cm: CommentedMap) -> None:
        set_value(cm, "date modified", NEW)

    assert rewrite_frontmatter(text, mutate) == text.replace(line, after)
    crlf = text.replace("\n", "\r\n")
    assert rewrite_frontmatter(crlf, mutate) == crlf.replace(line, after)


@pytest.mark.parametrize(("line", "value", "after"), [
    ("title: 'Old'  # t", "it's new", "title: 'it''s new'  # t"),
    ('title: "Old"', 'say "hi"', 'title: "say \\"hi\\""'),
    ("title: !!str v1", "v2", "title: !!str v2"),
    ("title: Old\t# t", "#hash", "title: '#hash'\t# t"),  # plain: quoted only as it must be
])
def test_a_replaced_string_keeps_its_quotes_tag_and_comment_spacing(
        line: str, value: str, after: str) -> None:
    text = f"---\n{line}\nother: 1\n---\nbody\n"
    out = rewrite_frontmatter(text, lambda cm: set_value(cm, "title", value))
    assert out == text.replace(line, after)
    assert str(parse_note(out, "").frontmatter["title"]) == value


def test_a_number_replacing_a_quoted_value_stays_a_number() -> None:
    """Quotes are kept only for a value that reads the same in them: 5 in quotes is text."""
    text = "---\ncount: '3'\t# c\n---\n"
    out = rewrite_frontmatter(text, lambda cm: set_value(cm, "count", 5))
    assert parse_note(out, "").frontmatter["count"] == 5
    assert out.endswith("\t# c\n---\n")


@pytest.mark.parametrize("line", [
    "date modified: 2020-01-02\t# tab comment",
    "date modified: '2020-01-02'",
    "date modified: !!str 2020-01-02",
])
def test_lint_fix_changes_only_the_date_digits(tmp_path: Path, line: str) -> None:
    text = f"---\ntype: resource\nnexus: []\ntags: []\ndate created: 2020-01-01\n{line}\n---\nb\n"
    note = tmp_path / "N.md"
    note.write_text(text, encoding="utf-8")
    old = dt.datetime(2023, 6, 7).timestamp()
    os.utime(note, (old, old))
    assert fix_dates(tmp_path, "N.md") is True
    after = note.read_text(encoding="utf-8")
    day = dt.date.fromtimestamp(note.stat().st_mtime).isoformat()
    assert after == text.replace("2020-01-02", day)
