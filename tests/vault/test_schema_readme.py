"""schema/README.md documents every property, type, tag, kind, value and constant, and its
examples are valid notes."""

from __future__ import annotations

import re
from typing import Any

import pytest

from sidecar.lint.diagnostics import LintContext, lint_text
from sidecar.schema import get_schema, load_json
from sidecar.vault.note import parse_note
from sidecar.vault.scan import iter_note_paths

from .conftest import EXAMPLE_VAULT, ROOT

README = (ROOT / "schema" / "README.md").read_text(encoding="utf-8")


def _leaves(data: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(data, dict):
        return [leaf for k, v in data.items() for leaf in _leaves(v, f"{prefix}{k}.")]
    return [(prefix.rstrip("."), data)]


def test_every_frontmatter_property_is_documented() -> None:
    for prop in get_schema().frontmatter_schema["properties"]:
        assert f"`{prop}`" in README, prop


@pytest.mark.parametrize("info", list(get_schema().types.values()), ids=lambda t: t.name)
def test_every_type_row_has_its_tier_and_weight(info: Any) -> None:
    row = next(line for line in README.splitlines() if line.startswith(f"| `{info.name}` |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == (info.tier or "–")
    assert float(cells[2]) == info.weight
    assert cells[3] == ("yes" if info.retrievable else "no")
    assert cells[4] == ("yes" if info.decay_eligible else "no")


def test_every_vocabulary_value_is_documented() -> None:
    schema = get_schema()
    values = [*schema.known_tags, *schema.relationship_kinds, *schema.subtypes, *schema.writing,
              *schema.project_types, *schema.source_properties, *schema.date_properties,
              *schema.web_tiers, *load_json("web_tiers.json")["cascade"]]
    missing = [v for v in values if f"`{v}`" not in README]
    assert missing == []


def test_every_constant_is_documented_with_its_value() -> None:
    for name, value in _leaves(load_json("ranking.json")):
        if name.endswith("description"):
            continue
        row = next(line for line in README.splitlines() if line.startswith(f"| `{name}` |"))
        cell = row.split("|")[2].strip()
        if isinstance(value, list):  # a word list is documented by its size
            assert cell == f"{len(value)} words", name
        elif isinstance(value, str):
            assert cell == value, name
        else:
            assert float(cell) == value, name
    for tier, weight in get_schema().web_tiers.items():
        row = next(line for line in README.splitlines() if line.startswith(f"| `{tier}` |"))
        assert float(row.split("|")[2]) == weight
    assert f"({get_schema().corroboration_min_domains})" in README


def test_there_is_a_clean_example_for_every_type() -> None:
    blocks = re.findall(r"```yaml\n(---\n.*?---\n)```", README, flags=re.DOTALL)
    ctx = LintContext.for_vault(EXAMPLE_VAULT, list(iter_note_paths(EXAMPLE_VAULT)), data=None)
    types = set()
    for block in blocks:
        note = parse_note(block, "example.md")
        types.add(note.type)
        assert lint_text(block, "example.md", ctx) == [], block
    assert types == set(get_schema().types)
