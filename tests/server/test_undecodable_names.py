"""A live `ora serve` whose vault holds names that are not UTF-8: the reconcile finishes (it used
to fail every time, `phase: failed`) and every other note is searchable."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest


@pytest.mark.asyncio
async def test_the_reconcile_runs_past_a_name_that_is_not_utf8(
    vault: Path, tmp_path: Path, configure: Any, serve: Any, connect: Any
) -> None:
    bad = os.fsencode(vault / "Engrams") + b"/bad\xff name.md"
    with open(bad, "wb") as handle:
        handle.write(b"---\ntype: engram\nnexus: []\ntags: []\n---\nWild yeast, again.\n")
    async with connect(serve(configure(vault, tmp_path / "data"))) as api:
        status = await api.wait_reconciled()
        assert status["reconcile"]["phase"] == "done", status
        assert status["files"] == 4
        found = await api.post("/v1/search", {"query": "wild yeast dough", "k": 1})
        assert found.json["results"][0]["path"] == "Resources/Sourdough.md"
