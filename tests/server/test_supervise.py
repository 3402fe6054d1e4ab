"""Background jobs come back after a failure, with a backoff, and the status says so; request
bodies have a deadline (issue 10 item 5)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from sidecar.server.resources import INDEX
from sidecar.server.supervise import Backoff, TaskStatus, supervise
from sidecar.settings import Config

from .conftest import Api


def test_the_backoff_doubles_to_its_ceiling_and_starts_again_after_a_long_run() -> None:
    backoff = Backoff(first=1.0, most=60.0)
    assert [backoff.next(0.5) for _ in range(8)] == [1, 2, 4, 8, 16, 32, 60, 60]
    assert backoff.next(61.0) == 1.0  # it had run well for longer than the ceiling


async def test_a_failing_job_is_reported_and_run_again_until_stopped() -> None:
    stop = asyncio.Event()
    runs: list[int] = []
    errors: list[str] = []
    restarts: list[int] = []

    async def job() -> None:
        runs.append(len(runs))
        if len(runs) <= 2:
            raise OSError(24, "Too many open files")
        await stop.wait()

    status = TaskStatus()
    task = asyncio.create_task(supervise(
        status, job, stop, lambda err: errors.append(str(err)),
        on_restart=lambda: restarts.append(1), backoff=Backoff(first=0.01, most=0.05)))
    while len(runs) < 3:
        await asyncio.sleep(0.01)
    assert status.running and status.failures == 2 and status.retry_in is None
    assert errors == ["[Errno 24] Too many open files"] * 2 and len(restarts) == 2
    stop.set()
    await task
    assert not status.running and status.failures == 2


async def test_a_failed_reconcile_is_tried_again_and_shown_in_status(
    config: Config, api_for: Callable[..., Awaitable[Api]], monkeypatch: pytest.MonkeyPatch
) -> None:
    api = await api_for(config)
    await api.wait_reconciled()
    assert api.app is not None
    index = api.app[INDEX]
    real = index.reconcile
    calls: list[int] = []

    def flaky(*args: Any, **kwargs: Any) -> Any:  # the first try fails as under EMFILE
        calls.append(1)
        if len(calls) == 1:
            raise OSError(24, "Too many open files")
        return real(*args, **kwargs)

    monkeypatch.setattr(index, "reconcile", flaky)
    assert (await api.post("/v1/reindex", {})).status == 202
    for _ in range(100):
        status = (await api.get("/v1/status")).json
        if status["tasks"]["reconcile"]["failures"]:
            break
        await asyncio.sleep(0.02)
    assert status["tasks"]["reconcile"]["retry_in"] == 1.0
    assert "Too many open files" in status["last_error"]
    for _ in range(300):  # tried again after 1 s
        status = (await api.get("/v1/status")).json
        if len(calls) == 2 and status["reconcile"]["phase"] == "done":
            break
        await asyncio.sleep(0.02)
    assert status["reconcile"]["phase"] == "done" and status["tasks"]["reconcile"] == {
        "running": False, "failures": 1, "retry_in": None}


async def test_a_body_that_does_not_arrive_in_time_gets_408(
    config: Config, api_for: Callable[..., Awaitable[Api]]
) -> None:
    api = await api_for(config.with_values(body_timeout=0.3))
    head = (f"POST /v1/search HTTP/1.1\r\nHost: 127.0.0.1:{api.port}\r\n"
            f"Authorization: Bearer {api.token}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"query\": ")

    def send() -> bytes:
        with socket.create_connection(("127.0.0.1", api.port), timeout=10) as conn:
            conn.sendall(head.encode())
            return conn.recv(4096)

    answer = await asyncio.to_thread(send)
    assert answer.startswith(b"HTTP/1.1 408") and b"request_timeout" in answer

