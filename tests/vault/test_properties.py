"""A note's other names come from its alias properties however they are capitalised, as in
Obsidian (`Aliases:` resolves links and is searchable like `aliases:`)."""

from __future__ import annotations

import pytest

from sidecar.index.records import decay_date
from sidecar.vault.properties import note_aliases, property_key, stated_created


@pytest.mark.parametrize(("frontmatter", "expected"), [
    ({"aliases": ["Levain", "Mother dough"]}, ("Levain", "Mother dough")),
    ({"Aliases": ["Levain"]}, ("Levain",)),
    ({"ALIAS": "Levain, Mother dough"}, ("Levain", "Mother dough")),
    ({"aliases": ["Levain"], "Alias": "levain"}, ("Levain",)),
])
def test_aliases_in_any_capitalisation(frontmatter: dict[str, object],
                                       expected: tuple[str, ...]) -> None:
    assert note_aliases(frontmatter) == expected


@pytest.mark.parametrize(("frontmatter", "expected"), [
    ({"Date Created": "2021-03-04"}, "Date Created"),
    ({"DATE CREATED": "2021-03-04"}, "DATE CREATED"),
    ({"Date Created": "x", "date created": "y"}, "date created"),  # the exact spelling wins
    ({"date": "2021-03-04"}, None),
])
def test_a_property_is_found_under_any_capitalisation(frontmatter: dict[str, object],
                                                      expected: str | None) -> None:
    assert property_key(frontmatter, "date created") == expected


@pytest.mark.parametrize("key", ["Date Created", "DATE CREATED", "Date created"])
def test_a_capitalised_date_created_dates_the_note(key: str) -> None:
    """The record date ignored `Date Created:` and fell back to the file's mtime."""
    assert decay_date({key: "2021-03-04"}, 1_700_000_000 * 10**9, "n.md") == "2021-03-04T00:00:00"


@pytest.mark.parametrize("value", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:00:00-05:00"])
def test_a_date_that_leaves_the_calendar_in_utc_is_no_date_not_a_crash(value: str) -> None:
    """One such `date created` ended `ora index` with an OverflowError."""
    assert decay_date({"date created": value, "date modified": "2022-05-06"}, 0, "n.md") == (
        "2022-05-06T00:00:00")


def test_a_capitalised_date_modified_and_created_property_are_read() -> None:
    assert decay_date({"Date Modified": "2022-05-06"}, 0, "n.md") == "2022-05-06T00:00:00"
    assert stated_created({"Created": "2020-01-02T10:00"}, "n.md") == (
        "2020-01-02", "the note's `created` property")
