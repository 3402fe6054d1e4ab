"""What a sync says while it runs (`Progress`) and when it is done (`SyncReport`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Progress:
    """One progress report: `unit`s done of total, chunks written and embedded so far."""

    # "scan": files done of files (a lexical pass reports every batch so); "embed": files, or in
    # the embedding pass (`embed_pending`, unit "chunks") chunks with vectors of all chunks;
    # "done".
    phase: str
    done: int
    total: int
    chunks: int
    embedded: int
    unit: str = "files"


ProgressFn = Callable[[Progress], None]


@dataclass
class SyncReport:
    """What one sync did."""

    embedded: int = 0
    removed: int = 0
    written: int = 0
    unchanged: set[str] = field(default_factory=set)  # content as the ledger has it, or gone
    decay_changed: bool = False

