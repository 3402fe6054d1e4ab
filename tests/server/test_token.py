"""The API token: created once in DATA/token, readable by its owner only."""

from __future__ import annotations

import stat
from pathlib import Path

from sidecar.server.security import load_or_create_token


def test_token_file_is_created_once_with_mode_0600(tmp_path: Path) -> None:
    token = load_or_create_token(tmp_path / "data")
    path = tmp_path / "data" / "token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(token) >= 32
    assert load_or_create_token(tmp_path / "data") == token


def test_a_readable_token_file_is_tightened_to_0600(tmp_path: Path) -> None:
    token = load_or_create_token(tmp_path)
    (tmp_path / "token").chmod(0o644)
    assert load_or_create_token(tmp_path) == token
    assert stat.S_IMODE((tmp_path / "token").stat().st_mode) == 0o600


def test_an_empty_token_file_is_replaced(tmp_path: Path) -> None:
    (tmp_path / "token").write_text("")
    assert load_or_create_token(tmp_path)
