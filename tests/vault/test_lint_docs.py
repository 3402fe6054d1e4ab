"""docs/lint-codes.md documents every lint code, and only those."""

from __future__ import annotations

import re

from sidecar.lint.diagnostics import CODES
from sidecar.schema import get_schema

from .conftest import ROOT


def _documented() -> dict[str, str]:
    text = (ROOT / "docs" / "lint-codes.md").read_text(encoding="utf-8")
    return dict(re.findall(r"^\| `([a-z-]+)` \| (error|warning|info) \|", text, flags=re.MULTILINE))


def test_every_code_is_documented_with_its_severity() -> None:
    assert _documented() == {code: c.severity for code, c in CODES.items()}


def test_every_required_property_has_a_missing_code() -> None:
    for key in get_schema().frontmatter_schema["required"]:
        assert f"{key}-missing" in CODES
