"""The published open count (`GET /v1/status` `contradictions_open`, the stream's
`contradictions` event) follows the same live privacy check as the list: once a write reaches
the index, a pair whose note was tagged private, or moved into a private folder, since the last
scan leaves the count as it leaves the list, with no scan (background scans are off here)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from tests.cleaning.conftest import NOTES
from tests.notes import write_notes

NEW = "Engrams/Vitamin C revisited.md"
SECRET = "Secret/Vitamin C revisited.md"


async def _served(tmp_path: Path, configure: Any, api_for: Any) -> tuple[Any, int]:
    """An app over the cleaning vault, scanned once: (api, the open count then)."""
    vault = write_notes(tmp_path / "vault", NOTES)
    (vault / "ora.yaml").write_text("private:\n  - Secret/\n", encoding="utf-8")
    api = await api_for(configure(vault, tmp_path / "data"))
    await api.wait_reconciled()
    listed = (await api.post("/v1/contradictions/scan", {})).json["pairs"]
    opened = (await api.get("/v1/status")).json["contradictions_open"]
    assert opened == len(listed) and "engram" in [p["kind"] for p in listed]
    return api, opened


async def _counts(api: Any, want: int, timeout: float = 30.0) -> dict[str, int]:
    """The list's length, the status's count and a new stream's first count, polled (the count
    is published by a task after the write) until the status says `want` or time runs out."""
    deadline = time.monotonic() + timeout
    while True:
        status = (await api.get("/v1/status")).json["contradictions_open"]
        if status == want or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.1)
    async with api.stream("/v1/events/stream") as stream:
        event, data = await api.next_event(stream)
        while event != "contradictions":
            event, data = await api.next_event(stream)
    listed = len((await api.get("/v1/contradictions")).json["pairs"])
    return {"list": listed, "status": status, "stream": data["open"]}


async def test_tagging_a_note_private_takes_its_pair_out_of_the_open_count(
    tmp_path: Path, configure: Any, api_for: Any
) -> None:
    api, opened = await _served(tmp_path, configure, api_for)
    note = tmp_path / "vault" / NEW
    note.write_text(NOTES[NEW].replace("tags: [", "tags: [private, "), encoding="utf-8")
    await api.post("/v1/events", {"events": [{"kind": "modified", "path": NEW}]})
    want = opened - 1
    assert await _counts(api, want) == {"list": want, "status": want, "stream": want}


async def test_moving_a_note_into_a_private_folder_takes_its_pair_out_of_the_open_count(
    tmp_path: Path, configure: Any, api_for: Any
) -> None:
    api, opened = await _served(tmp_path, configure, api_for)
    vault = tmp_path / "vault"
    (vault / "Secret").mkdir()
    (vault / NEW).rename(vault / SECRET)
    await api.post("/v1/events", {"events": [{"kind": "renamed", "path": SECRET,
                                              "old_path": NEW}]})
    want = opened - 1
    assert await _counts(api, want) == {"list": want, "status": want, "stream": want}
    listed = (await api.get("/v1/contradictions")).json["pairs"]
    assert NEW not in str(listed) and "Vitamin C" not in str(listed)
