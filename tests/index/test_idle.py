"""An idle process gives its models' memory back: `sidecar/index/idle.py`."""

from __future__ import annotations

import asyncio

import pytest

from sidecar.index import idle


def _counting(calls: list[float], released: bool) -> idle.Releaser:
    def release(idle_s: float) -> bool:
        calls.append(idle_s)
        return released
    return release


def test_every_releaser_is_asked_and_the_heap_trimmed_only_when_one_released(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[str] = []
    trims: list[float] = []
    monkeypatch.setattr(idle, "release_free_heap", lambda: _counting(trims, True)(0.0))

    def releaser(name: str, released: bool) -> idle.Releaser:
        def release(idle_s: float) -> bool:
            asked.append(f"{name} {idle_s}")
            return released
        return release

    assert idle.release_idle([releaser("a", True), releaser("b", False)], 5.0)
    assert asked == ["a 5.0", "b 5.0"] and len(trims) == 1
    assert not idle.release_idle([releaser("c", False)], 5.0)
    assert len(trims) == 1


async def test_releases_come_while_idle_and_stop_with_the_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[float] = []
    monkeypatch.setattr(idle, "CHECK_S", 0.01)
    stop = asyncio.Event()
    task = asyncio.create_task(idle.release_when_idle([_counting(calls, False)], 0.05, stop))
    while len(calls) < 3:
        await asyncio.sleep(0.01)
    stop.set()
    await asyncio.wait_for(task, 5.0)
    assert set(calls) == {0.05}


async def test_no_release_when_the_idle_period_is_zero() -> None:
    calls: list[float] = []
    stop = asyncio.Event()
    task = asyncio.create_task(idle.release_when_idle([_counting(calls, True)], 0.0, stop))
    await asyncio.sleep(0.05)
    stop.set()
    await asyncio.wait_for(task, 5.0)
    assert calls == []


async def test_a_releaser_that_fails_neither_stops_the_others_nor_the_idle_checks(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    calls: list[float] = []
    monkeypatch.setattr(idle, "CHECK_S", 0.01)

    def failing(idle_s: float) -> bool:
        raise RuntimeError("the store's close failed")

    stop = asyncio.Event()
    task = asyncio.create_task(
        idle.release_when_idle([failing, _counting(calls, False)], 0.05, stop))
    while len(calls) < 3:  # asked again and again after the failure
        await asyncio.sleep(0.01)
        assert not task.done()
    stop.set()
    await asyncio.wait_for(task, 5.0)  # and the process stops cleanly
    assert "releasing idle memory failed" in caplog.text
