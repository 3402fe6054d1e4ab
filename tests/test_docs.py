"""The documentation is complete: every setting, every `ora` subcommand, every module of the
sidecar and every error code it can raise is documented."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from sidecar.cli import COMMANDS
from sidecar.server.errors import _HTTP_CODES
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


def _raised_codes() -> set[str]:
    """Every error code the sidecar's modules can raise (the CLI's own aside): a `code = "…"` of
    an error class, a `code="…"` given to one, and the codes the server gives aiohttp's errors."""
    codes = set(_HTTP_CODES.values())
    for path in (ROOT / "sidecar").rglob("*.py"):
        if path.parent.name == "cli":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                codes |= {stmt.value.value for stmt in node.body
                          if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant)
                          and isinstance(stmt.value.value, str)
                          and any(isinstance(t, ast.Name) and t.id == "code"
                                  for t in stmt.targets)}
            elif isinstance(node, ast.Call):
                codes |= {k.value.value for k in node.keywords
                          if k.arg == "code" and isinstance(k.value, ast.Constant)
                          and isinstance(k.value.value, str)}
    return codes - {"ora_error"}  # the base class's placeholder, never raised as such


def _error_code_list() -> str:
    """The "Every error" item of docs/http-api.md, which lists the codes."""
    text = (ROOT / "docs" / "http-api.md").read_text(encoding="utf-8")
    item = re.search(r"^- Every error:.*?(?=^- |^#)", text, re.S | re.M)
    assert item is not None
    return item.group(0)


@pytest.mark.parametrize("code", sorted(_raised_codes()))
def test_every_error_code_is_in_the_http_api_code_list(code: str) -> None:
    assert f"`{code}`" in _error_code_list()
