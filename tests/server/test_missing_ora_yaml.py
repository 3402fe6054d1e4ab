"""A running server keeps a private folder private while ora.yaml is briefly missing (a sync tool
or editor saving it by delete-and-create), and applies the defaults once the file has been
deleted on purpose, with no further event (docs/vault-settings.md, "A missing file").

Before, the watcher's event for the deletion re-planned every note with the defaults: for the
seconds until the file was back, searches outside private mode found the private folder's notes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.server.resources import INDEX
from sidecar.vault import vault_settings
from tests.notes import write_notes

from .conftest import NOTES

SECRET = "zqxmissing"
SETTINGS = "private:\n  - Health/\n"


async def _public_hits(api: Any) -> list[str]:
    found = (await api.post("/v1/search", {"query": SECRET, "rerank": False})).json
    return [r["path"] for r in found["results"] if SECRET in r["text"]]


async def _poll(api: Any, leaks: list[list[str]], until: Callable[[dict[str, Any]], bool],
                timeout: float = 300.0) -> None:
    """Search outside private mode until `until(status)`, noting every answer that found the
    private note. The deadline only keeps a broken server from hanging the suite."""
    deadline = time.monotonic() + timeout
    while True:
        hits = await _public_hits(api)
        if hits:
            leaks.append(hits)
        status: dict[str, Any] = (await api.get("/v1/status")).json
        if until(status):
            return
        assert time.monotonic() < deadline, status
        await asyncio.sleep(0.05)


async def _served(api_for: Any, configure: Any, tmp_path: Path) -> tuple[Any, Path]:
    vault = write_notes(tmp_path / "vault", {
        **NOTES, "Health/Scan.md": f"# Scan\n\nThe word {SECRET} is in my scan results.\n"})
    (vault / "ora.yaml").write_text(SETTINGS, encoding="utf-8")
    api = await api_for(configure(vault, tmp_path / "data"))
    await api.wait_reconciled()
    assert await _public_hits(api) == []
    private = (await api.post("/v1/search", {"query": SECRET, "private": True,
                                             "rerank": False})).json
    assert [r["path"] for r in private["results"] if SECRET in r["text"]] == ["Health/Scan.md"]
    return api, vault


async def test_ora_yaml_deleted_and_written_again_never_makes_a_private_folder_public(
    api_for: Any, configure: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # However slow the machine, the save below is over well within the grace.
    monkeypatch.setattr(vault_settings, "MISSING_GRACE_S", 3600.0)
    api, vault = await _served(api_for, configure, tmp_path)
    index = api.app[INDEX]
    leaks: list[list[str]] = []
    (vault / "ora.yaml").unlink()

    def read_missing(status: dict[str, Any]) -> bool:  # the index has planned without it
        settings = index.vault_settings
        read = any("missing" in p for p in settings.problems) or settings.private == ()
        return read and not status["reconcile"]["running"]

    await _poll(api, leaks, read_missing)
    during = index.vault_settings.private
    (vault / "ora.yaml").write_text(SETTINGS, encoding="utf-8")

    def read_back(status: dict[str, Any]) -> bool:
        return index.vault_settings.problems == () and not status["reconcile"]["running"]

    await _poll(api, leaks, read_back)
    assert leaks == []
    assert during == ("Health/",) and index.vault_settings.private == ("Health/",)


async def test_ora_yaml_deleted_on_purpose_gives_the_defaults_without_another_event(
    api_for: Any, configure: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server reads the missing file again when the grace is over (the lane's re-check):
    no file event comes then, and without it the folder would stay private until a restart."""
    monkeypatch.setattr(vault_settings, "MISSING_GRACE_S", 1.0)
    api, vault = await _served(api_for, configure, tmp_path)
    (vault / "ora.yaml").unlink()
    leaks: list[list[str]] = []
    await _poll(api, leaks, lambda status: bool(leaks) and not status["reconcile"]["running"])
    assert leaks[-1] == ["Health/Scan.md"]
    settings = (await api.get("/v1/vault-settings")).json
    assert settings["private"] == [] and settings["problems"] == []
