"""The documentation is complete: every setting, every `ora` subcommand and every module of the
sidecar is documented."""

from __future__ import annotations

import re
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


# A subcommand's module (`sidecar/cli/`) is documented by its command, above.
MODULES = sorted(path for path in (ROOT / "sidecar").rglob("*.py")
                 if path.name != "__init__.py" and path.parent.name != "cli")


@pytest.mark.parametrize("module", MODULES, ids=lambda p: str(p.relative_to(ROOT / "sidecar")))
def test_every_module_is_named_in_the_architecture_page(module: Path) -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    # Named as a file (`ledger.py`, `index/ledger.py`) or by a name it holds (`ledger.Ledger`).
    assert re.search(rf"(?<!\w){re.escape(module.stem)}\.(?:py\b|[A-Za-z_])", text)
