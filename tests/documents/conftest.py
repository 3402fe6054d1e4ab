"""What the documents tests share: a small embedder the CLI builds in the test's folder, and the
CLI's JSON answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main


@pytest.fixture(autouse=True)
def _int8(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("ORA_RERANKER_DIR", str(tmp_path / "models" / "none"))


def cli(capsys: pytest.CaptureFixture[str], *args: str, status: int = 0) -> dict[str, Any]:
    """`ora ARGS --json`, which must end with `status`: its JSON document."""
    assert main([*args, "--json"]) == status
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc
