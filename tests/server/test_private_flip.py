"""A private flip is immediate (issue 10 item 6), against a real `ora serve`.

A note tagged `private` while the watcher embeds a large paste stayed publicly searchable until
the whole paste was embedded (3.8 s for 300 notes), and `/v1/status` said `queue: 0` meanwhile.
Now the watcher hands every change to `Index.expedite`: the running write applies the ones that
embed nothing (the privacy move reuses the note's vectors) at its next embedding slice, and the
status counts the files waiting or being applied.
"""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any

import pytest

from tests.notes import write_notes

from .conftest import NOTES

SECRET = "zqxflip"
FLIP = "Engrams/Flip.md"
PUBLIC = (f"---\nnexus: []\ntype: engram\ntags: [health]\n---\n# Flip\n\n"
          f"The word {SECRET} is here.\n")
WORDS = ("orbit", "comet", "basalt", "delta", "harvest", "enzyme", "lattice", "voltage", "pollen",
         "ledger", "glacier", "quasar", "orchard", "crystal", "sediment", "nebula")


async def _until(api: Any, check: Any, timeout: float = 300.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        status: dict[str, Any] = (await api.get("/v1/status")).json
        if check(status):
            return status
        assert time.monotonic() < deadline, status
        await asyncio.sleep(0.05)


async def _public_hits(api: Any) -> int:
    found = (await api.post("/v1/search", {"query": SECRET, "rerank": False})).json
    return sum(SECRET in r["text"] for r in found["results"])


@pytest.mark.slow
async def test_a_note_tagged_private_during_a_large_paste_leaves_public_search_at_once(
    tmp_path: Path, serve: Any, connect: Any, configure: Any
) -> None:
    vault = write_notes(tmp_path / "vault", {**NOTES, FLIP: PUBLIC})
    config = configure(vault, tmp_path / "data")
    served = serve(config)
    rng = random.Random(5)
    paste = 120
    async with connect(served) as api:
        before = await api.wait_reconciled()
        assert await _public_hits(api) == 1
        for n in range(paste):  # the paste: one full chunk of new text each
            body = " ".join(rng.choice(WORDS) for _ in range(180))
            (vault / "Pasted" / f"Note {n:03d}.md").parent.mkdir(exist_ok=True)
            (vault / "Pasted" / f"Note {n:03d}.md").write_text(
                f"---\nnexus: []\ntype: engram\ntags: []\n---\n# Pasted {n}\n\n{body}.\n")
        # status tells the truth: the watcher's batch is waiting or being applied
        busy = await _until(api, lambda s: s["indexing"] and s["queue"] >= 60)
        assert busy["files"] < before["files"] + paste
        (vault / FLIP).write_text(PUBLIC.replace("tags: [health]", "tags: [health, private]"))
        deadline = time.monotonic() + 300
        while await _public_hits(api):
            assert time.monotonic() < deadline, "the private note stayed in public search"
            await asyncio.sleep(0.05)
        during = (await api.get("/v1/status")).json
        done = await _until(api, lambda s: not s["indexing"] and s["queue"] == 0)
        private = (await api.post("/v1/search", {"query": SECRET, "private": True,
                                                 "rerank": False})).json
    # the flip overtook the paste: it left public search while the paste was still embedding
    assert during["indexing"] and during["files"] < before["files"] + paste, during
    assert done["files"] == before["files"] + paste and done["last_error"] is None
    assert [r["path"] for r in private["results"] if SECRET in r["text"]] == [FLIP]
