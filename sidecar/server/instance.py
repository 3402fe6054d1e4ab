"""What identifies a running `ora serve`: its record in the data folder, and its parent's life.

`DATA/server.json` says which process serves this data folder and on which port:
`{"pid", "port", "host", "vault", "parent_pid", "version", "started"}`. Only the index's one
writer gets as far as listening, so the record is never ambiguous. It is written once the port is
bound (atomically) and removed at a clean exit if it is still this process's own. The plugin reads
it to find a vault's sidecar on a port chosen free (`--port 0`), and recognises a sidecar it
started itself by `parent_pid`.

`--parent-pid PID` ties the server's life to another process (the plugin's): `watch_parent` sets
the stop event soon after that process is gone, so Obsidian quitting without calling the plugin's
`onunload` does not leave a sidecar behind. `watch_record` stops the server when its record (so
its data folder) is deleted under it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sidecar import __version__
from sidecar.index.watcher import until_deleted
from sidecar.processes import process_alive
from sidecar.settings import Config

RECORD_FILE = "server.json"
PARENT_POLL_SECONDS = 0.5
RECORD_POLL_SECONDS = 1.0
log = logging.getLogger("sidecar.server")


def record_path(data: Path) -> Path:
    return data / RECORD_FILE


def write_record(config: Config, port: int, parent_pid: int | None) -> dict[str, Any]:
    """Write DATA/server.json for this process (atomic: a reader never sees half of it)."""
    record = {
        "pid": os.getpid(), "port": port, "host": str(config.host), "vault": str(config.vault),
        "parent_pid": parent_pid, "version": __version__,
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    path = record_path(config.data)
    tmp = path.with_name(f".{RECORD_FILE}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return record


def read_record(data: Path) -> dict[str, Any] | None:
    """The record, or None when absent or unreadable."""
    try:
        doc = json.loads(record_path(data).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def remove_record(data: Path) -> None:
    """Remove the record if it is this process's (a newer server may have replaced it)."""
    record = read_record(data)
    if record is not None and record.get("pid") == os.getpid():
        with contextlib.suppress(FileNotFoundError):
            record_path(data).unlink()


async def watch_parent(pid: int, stop: asyncio.Event,
                       poll: float = PARENT_POLL_SECONDS) -> None:
    """Set `stop` once process `pid` is gone (or, if it was our parent, once we were
    re-parented: its pid may already be reused)."""
    was_parent = os.getppid() == pid
    while not stop.is_set():
        if not process_alive(pid) or (was_parent and os.getppid() != pid):
            log.warning("parent process %d is gone; shutting down", pid)
            stop.set()
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), poll)


async def watch_record(data: Path, stop: asyncio.Event, poll: float = RECORD_POLL_SECONDS,
                       on_deleted: Callable[[], None] = lambda: None) -> bool:
    """Set `stop` once DATA/server.json is gone and return True (False when stopped otherwise).

    The record goes when the data folder is deleted under the running server (to rebuild the
    index, which the README allows): every store then fails on every request, and writes
    report a read-only disk. A new start rebuilds the index from the vault, and the plugin
    starts a new sidecar when its own exits. `ora watch` follows its data folder the same way
    (`until_deleted`, in `sidecar/index/watcher.py`)."""
    if not await until_deleted(lambda: not record_path(data).is_file(), stop, poll):
        return False
    log.error("the data folder %s (its server.json) was deleted; stopping", data)
    on_deleted()
    stop.set()
    return True
