"""A folder added to ora.yaml's `private` leaves every non-private answer of the HTTP API as soon
as the file says so (`retrieval/private_now.py`), not once the index has filed its notes as
private: search (with its expansion), ask, related and the status's unreadable documents.

The watcher is left out of the app here, so the index never hears of the change: what the
routes answer is what they answered in the window between the save and the reconcile, however
long that is (seconds on a vault of a few hundred notes).
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from sidecar.server import resources
from tests.notes import write_notes

SECRET = "zqxzanzibarsecret"
NOTES: dict[str, str | bytes] = {
    "Open/Garden.md": ("---\nnexus: []\ntype: resource\ntags: []\nrelationships:\n"
                       "  supports: ['[[Codeword]]']\n---\n# Garden\n\n"
                       "Zanzibar tomatoes need deep watering in summer.\n"),
    "Big/Codeword.md": ("---\nnexus: []\ntype: resource\ntags: []\n---\n# Codeword\n\n"
                        f"The zanzibar codeword is {SECRET}, watering the tomatoes.\n"),
    "Big/Broken.pdf": b"%PDF-1.7 not a document at all",
}


async def _idle(index: Any, stop: asyncio.Event, *args: Any, **kwargs: Any) -> None:
    await stop.wait()  # a watcher that hears nothing


@pytest.fixture
async def api(tmp_path: Path, configure: Any, api_for: Any,
              monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(resources, "watch", _idle)
    vault = write_notes(tmp_path / "vault", NOTES)
    (vault / "ora.yaml").write_text("private: [Health/]\n", encoding="utf-8")
    served = await api_for(configure(vault, tmp_path / "data"))
    await served.wait_reconciled()
    return served


def _make_big_private(vault: Path) -> None:
    """ora.yaml saved by rename with Big/ added, as an editor saves it."""
    temporary = vault / ".ora.yaml.tmp"
    temporary.write_text("private: [Health/, Big/]\n", encoding="utf-8")
    os.replace(temporary, vault / "ora.yaml")


async def _answers(api: Any) -> dict[str, Any]:
    query = {"query": "zanzibar codeword watering", "rerank": False}
    return {
        "search": await api.post("/v1/search", {**query, "expand": True}),
        "ask": await api.post("/v1/ask", {"question": query["query"], "rerank": False}),
        "related": await api.post("/v1/related", {"path": "Open/Garden.md"}),
        "status": await api.get("/v1/status"),
    }


async def test_a_folder_made_private_leaves_every_non_private_route_before_any_reindex(
    api: Any, tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    before = await _answers(api)
    assert SECRET in json.dumps(before["search"].json)  # found while Big/ is public
    assert "Big/Broken.pdf" in json.dumps(before["status"].json["unreadable_documents"])
    _make_big_private(vault)

    after = await _answers(api)
    for route, answer in after.items():
        assert answer.status == 200, route
        body = json.dumps(answer.json)
        assert "Big/" not in body and SECRET not in body, route
    assert [r["path"] for r in after["search"].json["results"]] == ["Open/Garden.md"]
    assert after["search"].json["results"][0]["relationships"] == {}
    missing = await api.post("/v1/related", {"path": "Big/Nothing.md"})
    hidden = await api.post("/v1/related", {"path": "Big/Codeword.md"})
    assert (hidden.status, json.dumps(hidden.json).replace("Codeword", "Nothing")) == (
        missing.status, json.dumps(missing.json))
    private = await api.post("/v1/search", {"query": "zanzibar codeword", "rerank": False,
                                            "private": True})
    assert SECRET in json.dumps(private.json)  # private mode still finds it
