"""The documentation is complete: every setting and every `ora` subcommand is documented."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.cli import COMMANDS
from sidecar.settings import SETTINGS

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.name)
def test_every_setting_is_documented(setting: object) -> None:
    text = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    assert f"`{setting.name}`" in text  # type: ignore[attr-defined]
    assert f"`{setting.env}`" in text  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_is_in_the_readme(command: str) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"ora {command}" in text
