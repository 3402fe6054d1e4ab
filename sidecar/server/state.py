"""What the running server knows about itself, and the typed keys that reach it from a request.

`ServerState` is the one mutable record behind `GET /v1/status` and the SSE stream: every change
goes through a setter that also publishes the matching event, so the two never disagree.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from sidecar.errors import OraError, storage_error
from sidecar.server.events import Event, EventHub
from sidecar.server.supervise import TaskStatus
from sidecar.settings import Config

log = logging.getLogger("sidecar.server")


@dataclass
class Reconcile:
    """Progress of the index's reconcile with the vault (start-up, `POST /v1/reindex`)."""

    running: bool = False
    phase: str = "pending"
    done: int = 0
    total: int = 0

    def as_json(self) -> dict[str, Any]:
        return {"running": self.running, "phase": self.phase, "done": self.done,
                "total": self.total}


@dataclass
class Cleaning:
    """The contradiction scan: running now (background or asked for), and the last one's end."""

    running: bool = False
    phase: str = "idle"
    done: int = 0
    total: int = 0
    scans: int = 0
    last_finished: str | None = None
    fallbacks: int = 0  # claim pairs of the last scan the rules judged because the judge failed
    warnings: tuple[str, ...] = ()  # what the last scan skipped, and why

    def as_json(self) -> dict[str, Any]:
        return {"running": self.running, "phase": self.phase, "done": self.done,
                "total": self.total, "scans": self.scans, "last_finished": self.last_finished,
                "fallbacks": self.fallbacks, "warnings": list(self.warnings)}


@dataclass
class ServerState:
    config: Config
    hub: EventHub
    reconcile: Reconcile = field(default_factory=Reconcile)
    files: int = 0
    chunks: int = 0
    queues: dict[str, int] = field(default_factory=dict)  # files waiting, by who holds them
    tasks: dict[str, TaskStatus] = field(
        default_factory=lambda: {"watcher": TaskStatus(), "reconcile": TaskStatus()})
    model: str | None = None
    reranker: str = "none"
    reranker_reason: str | None = None
    contradictions_open: int = 0
    last_error: str | None = None
    cleaning: Cleaning = field(default_factory=Cleaning)
    data_deleted: bool = False  # the data folder went while serving: the server is stopping

    @property
    def queue(self) -> int:
        """Files waiting to be applied or being applied (file events, the watcher's batches)."""
        return sum(self.queues.values())

    @property
    def indexing(self) -> bool:
        """True while any index write is running or waiting: a reconcile, a watcher batch,
        file events."""
        return self.reconcile.running or self.queue > 0

    def set_queue(self, source: str, n: int) -> None:
        self.queues[source] = n

    def set_progress(self, phase: str, done: int, total: int, *, running: bool = True) -> None:
        self.reconcile = Reconcile(running, phase, done, total)
        self.hub.publish("progress", {"phase": phase, "done": done, "total": total})

    def set_counts(self, files: int, chunks: int) -> None:
        self.files, self.chunks = files, chunks
        self.hub.publish("index", {"files": files, "chunks": chunks})

    def fail(self, what: str, err: Exception) -> None:
        """A background job failed: log it (with the traceback if unexpected), show it in status."""
        if self.data_deleted:
            # Every write fails once the folder is gone, as a "read-only disk" or with a
            # traceback: the one true cause, already logged, is said instead.
            log.warning("%s stopped: the data folder %s was deleted", what, self.config.data)
            self.last_error = f"{what} stopped: the data folder was deleted"
            return
        known = err if isinstance(err, OraError) else storage_error(err)
        if known is None:
            message = f"{type(err).__name__}: {err}"
            log.error("%s failed: %s", what, message, exc_info=True)
            self.last_error = f"{what} failed: {_shown(err, message)}"
            return
        log.error("%s failed: %s%s", what, known.message, "" if known is err else f" ({err})")
        self.last_error = f"{what} failed: {known.message}"

    def set_contradictions_open(self, n: int) -> None:
        """For the claims routes: the open-pair count shown in status and streamed."""
        self.contradictions_open = n
        self.hub.publish("contradictions", {"open": n})

    def set_cleaning(self, cleaning: Cleaning) -> None:
        """The scan's progress, shown in status and streamed (the plugin shows "scanning")."""
        self.cleaning = cleaning
        self.hub.publish("cleaning", cleaning.as_json())

    def snapshot(self) -> list[Event]:
        """The events a new stream subscriber starts from."""
        r = self.reconcile
        return [
            ("progress", {"phase": r.phase, "done": r.done, "total": r.total}),
            ("index", {"files": self.files, "chunks": self.chunks}),
            ("contradictions", {"open": self.contradictions_open}),
            ("cleaning", self.cleaning.as_json()),
        ]


def _shown(err: Exception, message: str) -> str:
    """The message for status: an OS error without its file name, which may be a private
    note's path (status is not a private-mode answer); the log keeps the whole message."""
    if isinstance(err, OSError) and err.strerror:
        return f"{type(err).__name__}: [Errno {err.errno}] {err.strerror}"
    return message


CONFIG = web.AppKey("config", Config)
STATE = web.AppKey("state", ServerState)
HUB = web.AppKey("hub", EventHub)
