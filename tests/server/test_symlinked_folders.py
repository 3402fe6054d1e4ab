"""A live `ora serve` never reads or writes through a symbolic link to a folder outside the vault
(`VAULT/Linked → /elsewhere`): events, lint fixes and the start-up reconcile skip or refuse it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

SECRET = ("---\nnexus: []\ntype: engram\ntags:\n  - memory\n---\n# Quokka ledger\n\n"
          "The zanzibar quokka ledger sits outside the vault.\n")


async def _paths_found(api: Any, query: str) -> list[str]:
    found = await api.post("/v1/search", {"query": query, "k": 10, "private": True})
    return [r["path"] for r in found.json["results"]]


@pytest.mark.asyncio
async def test_a_linked_folder_is_neither_indexed_nor_written(
    vault: Path, tmp_path: Path, configure: Any, serve: Any, connect: Any
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    secret = outside / "secret.md"
    secret.write_text(SECRET, encoding="utf-8")
    (vault / "Linked").symlink_to(outside, target_is_directory=True)
    config = configure(vault, tmp_path / "data")
    async with connect(serve(config)) as api:
        assert (await api.wait_reconciled())["files"] == 4
        events = [{"kind": "created", "path": "Linked/secret.md"},
                  {"kind": "modified", "path": "Linked/secret.md"}]
        assert (await api.post("/v1/events", {"events": events})).status == 200
        # a marker note posted after the attack: once it is searchable, so would the secret be
        marker = vault / "Engrams" / "Marker.md"
        marker.write_text(SECRET.replace("zanzibar quokka", "zanzibar marker"), encoding="utf-8")
        await api.post("/v1/events", {"events": [{"kind": "created",
                                                   "path": "Engrams/Marker.md"}]})
        for _ in range(100):
            if "Engrams/Marker.md" in await _paths_found(api, "zanzibar marker ledger"):
                break
            await asyncio.sleep(0.1)
        assert "Linked/secret.md" not in await _paths_found(api, "zanzibar quokka ledger")
        assert (await api.get("/v1/status")).json["files"] == 5
        fixed = await api.post("/v1/lint/fix", {"path": "Linked/secret.md"})
        assert fixed.status == 400
        assert "symbolic link" in fixed.json["error"]["message"]
    assert secret.read_text(encoding="utf-8") == SECRET
