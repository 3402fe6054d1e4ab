"""The background contradiction scan: the Cleaner's timing rules, and a real `ora serve` whose
queue fills by itself when a contradiction is written into its vault."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from sidecar.cleaning.survey import ScanStopped, StopCheck
from sidecar.server.cleaner import Cleaner
from tests.notes import write_notes

OLD, NEW = "Engrams/Vitamin C and colds.md", "Engrams/Vitamin C revisited.md"
OLD_TEXT = ("---\ntype: engram\nnexus: []\ntags: [health]\ndate created: 2021-03-04\n---\n"
            "# Vitamin C and colds\n\nTaking vitamin C every day prevents the common cold.\n")
NEW_TEXT = ("---\ntype: engram\nnexus: []\ntags: [health]\ndate created: 2024-06-01\n---\n"
            "Large trials show that taking vitamin C every day does not prevent the common "
            "cold.\n")


class Recorder:
    """A scan stand-in that records its calls; `hold` keeps it running until released."""

    def __init__(self) -> None:
        self.calls = 0
        self.hold = asyncio.Event()
        self.hold.set()
        self.saw_stop = False
        self.fail_next = False

    async def __call__(self, should_stop: StopCheck) -> None:
        self.calls += 1
        if self.fail_next:
            self.fail_next = False
            raise RuntimeError("judge exploded")
        while not self.hold.is_set():
            if should_stop():
                self.saw_stop = True
                raise ScanStopped
            await asyncio.sleep(0.01)


async def _until(check: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not met"
        await asyncio.sleep(0.01)


async def test_a_burst_of_changes_is_one_scan() -> None:
    scan = Recorder()
    cleaner = Cleaner(scan, delay=0.2, busy=lambda: False, on_error=print)
    cleaner.start()
    for _ in range(5):  # a burst: no machine is slow enough to split it
        cleaner.poke()
    await _until(lambda: cleaner.scans == 1)
    await asyncio.sleep(0.4)
    assert scan.calls == 1
    cleaner.poke()
    await _until(lambda: cleaner.scans == 2)
    await cleaner.close()


async def test_no_scan_starts_while_the_index_reconciles() -> None:
    scan, busy = Recorder(), [True]
    cleaner = Cleaner(scan, delay=0.01, busy=lambda: busy[0], on_error=print)
    cleaner.start()
    cleaner.poke()
    await asyncio.sleep(0.2)
    assert scan.calls == 0
    busy[0] = False
    cleaner.poke()  # what the reconcile's end does
    await _until(lambda: scan.calls == 1)
    await cleaner.close()


async def test_a_failed_scan_is_reported_and_the_next_change_scans_again() -> None:
    scan, errors = Recorder(), list[Exception]()
    scan.fail_next = True
    cleaner = Cleaner(scan, delay=0.01, busy=lambda: False, on_error=errors.append)
    cleaner.start()
    cleaner.poke()
    await _until(lambda: len(errors) == 1)
    cleaner.poke()
    await _until(lambda: scan.calls == 2 and cleaner.scans == 2)
    await cleaner.close()
    assert str(errors[0]) == "judge exploded"


async def test_closing_stops_a_running_scan_at_its_next_check() -> None:
    scan = Recorder()
    scan.hold.clear()
    cleaner = Cleaner(scan, delay=0.01, busy=lambda: False, on_error=print)
    cleaner.start()
    cleaner.poke()
    await _until(lambda: scan.calls == 1)
    await cleaner.close()
    assert scan.saw_stop


async def test_closing_an_idle_cleaner_ends_its_wait() -> None:
    cleaner = Cleaner(Recorder(), delay=30.0, busy=lambda: False, on_error=print)
    cleaner.start()
    cleaner.poke()
    await asyncio.wait_for(cleaner.close(), 5.0)


async def _event(api: Any, stream: Any, wanted: Any, seen: list[tuple[str, Any]]) -> None:
    while True:
        event = await api.next_event(stream, timeout=120.0)
        seen.append(event)
        if wanted(event):
            return


@pytest.mark.slow
async def test_a_contradiction_written_into_a_served_vault_fills_the_queue_by_itself(
    tmp_path: Path, serve: Any, connect: Any, configure: Any
) -> None:
    vault = write_notes(tmp_path / "vault", {OLD: OLD_TEXT})
    served = serve(configure(vault, tmp_path / "data", scan_delay=0.2))
    async with connect(served) as api:
        await api.wait_reconciled()
        async with api.stream("/v1/events/stream") as stream:
            seen: list[tuple[str, Any]] = []
            # the start-up scan, after the reconcile, with nobody asking
            await _event(api, stream, lambda e: e[0] == "cleaning" and e[1]["scans"] >= 1, seen)
            assert ("contradictions", {"open": 0}) in seen
            (vault / NEW).write_text(NEW_TEXT, encoding="utf-8")
            seen.clear()
            await _event(api, stream, lambda e: e == ("contradictions", {"open": 1}), seen)
            assert any(e == "cleaning" and d["running"] for e, d in seen)
        status = (await api.get("/v1/status")).json
        pairs = (await api.get("/v1/contradictions")).json["pairs"]
    assert status["contradictions_open"] == 1 and status["cleaning"]["scans"] >= 2
    assert [{pairs[0]["a"]["path"], pairs[0]["b"]["path"]}] == [{OLD, NEW}]
    assert served.stop() == 0
    assert "Traceback" not in served.log.read_text()
