"""schema/frontmatter.schema.json agrees with the vocabulary files it mirrors."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from sidecar.schema import get_schema, load_json


def _props() -> dict[str, Any]:
    props: dict[str, Any] = get_schema().frontmatter_schema["properties"]
    return props


def test_the_schema_is_a_valid_json_schema() -> None:
    Draft202012Validator.check_schema(get_schema().frontmatter_schema)


def test_type_enum_equals_types_json() -> None:
    assert _props()["type"]["enum"] == list(load_json("types.json")["types"])


def test_relationship_kinds_equal_relationships_json() -> None:
    kinds = _props()["relationships"]["propertyNames"]["enum"]
    assert kinds == list(load_json("relationships.json")["kinds"])


def test_closed_vocabularies_equal_vocabularies_json() -> None:
    voc = load_json("vocabularies.json")
    assert _props()["subtype"]["enum"] == voc["subtype"]
    assert _props()["writing"]["enum"] == voc["writing"]
    assert _props()["project_type"]["enum"] == voc["project_type"]["core"] + voc["project_type"][
        "domain"]


def test_every_listed_property_is_in_the_schema() -> None:
    voc = load_json("vocabularies.json")
    tags = load_json("tags.json")
    listed = {*voc["source_properties"], *voc["date_properties"], *voc["linter_managed_dates"],
              tags["domain_tags_property"]}
    assert listed <= set(_props())


def test_date_properties_are_dates_in_the_schema() -> None:
    for key in load_json("vocabularies.json")["date_properties"]:
        formats = {alt.get("format") for alt in _props()[key].get("anyOf", [])}
        assert formats == {"date", "date-time"}, key


def test_required_core_properties() -> None:
    assert get_schema().frontmatter_schema["required"] == ["nexus", "type", "tags"]
