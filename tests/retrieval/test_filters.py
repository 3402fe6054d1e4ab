"""The second line of defence: which chunks may be returned, and their flags."""

from __future__ import annotations

import pytest

from sidecar.retrieval.filters import is_admissible, result_flags
from sidecar.schema import get_schema


@pytest.mark.parametrize("type_name", sorted(get_schema().types))
def test_only_retrievable_types_are_admissible(type_name: str) -> None:
    admitted = is_admissible(type_name, [], False, private_mode=True, include_archived=True)
    assert admitted == get_schema().types[type_name].retrievable


@pytest.mark.parametrize(
    "tags, private, private_mode, include_archived, expected",
    [
        (["archived"], False, False, False, False),
        (["Archived"], False, False, True, True),
        (["private"], False, False, False, False),
        ([], True, False, False, False),
        (["PRIVATE"], False, True, False, True),
        (["incubating"], False, False, False, True),
    ],
)
def test_status_tags_gate_admission(
    tags: list[str], private: bool, private_mode: bool, include_archived: bool, expected: bool
) -> None:
    assert is_admissible(
        "engram", tags, private, private_mode=private_mode, include_archived=include_archived
    ) is expected


def test_flags_name_incubating_and_included_archived_only() -> None:
    assert result_flags(["incubating", "learning", "archived", "private"]) == [
        "incubating", "archived"
    ]
    assert result_flags(["ai-derived"]) == []
