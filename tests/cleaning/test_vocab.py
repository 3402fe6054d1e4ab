"""The cleaning data names only things the rest of schema/ defines."""

from __future__ import annotations

import pytest

from sidecar.cleaning.vocab import get_cues, get_thresholds, opposite_table, stem
from sidecar.errors import SchemaDataError
from sidecar.schema import get_schema, load_json


def test_resolution_names_are_schema_vocabulary() -> None:
    limits, schema = get_thresholds(), get_schema()
    assert {limits.archive_tag, limits.provenance_tag} <= schema.known_tags
    assert limits.supersedes in schema.relationship_kinds


def test_kinds_name_real_types_and_tags() -> None:
    schema = get_schema()
    for rule in get_thresholds().kinds.values():
        assert set(rule.types) <= set(schema.types)
        assert rule.tag is None or rule.tag in schema.known_tags


def test_news_dates_are_date_properties() -> None:
    dates = set(load_json("vocabularies.json")["date_properties"])
    assert set(get_thresholds().news_date_properties) <= dates


def test_judge_order_lists_every_judge_once() -> None:
    assert sorted(get_thresholds().judge_order) == ["llm", "nli", "rules"]


def test_antonym_groups_oppose_every_word_of_the_other_side() -> None:
    table = opposite_table([[["rise", "grow"], ["fall"]], ["good", "bad"]], get_cues().suffixes)
    assert table["ris"] == {"fall"} and table["fall"] == {"ris", "grow"}
    assert table["good"] == {"bad"}


def test_a_malformed_pair_is_a_schema_error() -> None:
    with pytest.raises(SchemaDataError):
        opposite_table([["up", "down", "sideways"]], ())


def test_negation_cues_are_matched_as_written() -> None:
    cues = get_cues()
    assert "not" in cues.negation and "doesn't" in cues.negation
    assert stem("notes", cues.suffixes) == "not"  # why negation is never stemmed
