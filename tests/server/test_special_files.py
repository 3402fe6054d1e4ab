"""`ora serve` on a vault holding FIFOs (`pipe.md`, `.obsidian/app.json`): it never started
listening and ignored SIGTERM, blocked opening them. Now it starts, answers, and stops."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import aiohttp

from ..vault.test_special_files import vault_with_fifos


async def test_serve_starts_and_stops_on_a_vault_holding_fifos(
    tmp_path: Path, configure: Any, serve: Any
) -> None:
    config = configure(vault_with_fifos(tmp_path / "vault"), tmp_path / "data")
    served = serve(config)  # waits (at most 120 s) for "listening on"
    timeout = aiohttp.ClientTimeout(total=30)
    async with (aiohttp.ClientSession(timeout=timeout) as session,
                session.get(f"{served.url}/v1/health") as answer):
        assert answer.status == 200
    assert served.stop(signal.SIGTERM, timeout=60) == 0
