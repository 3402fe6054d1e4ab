"""The lockstep index: ChromaDB + BM25 + ledger, kept in step with the vault.

`open_index(config)` is the entry point; see `sidecar/index/index.py` for the `Index` methods.
"""

from sidecar.errors import IndexLocked
from sidecar.index.index import EVENT_KINDS, Index, open_index
from sidecar.index.records import ChunkRecord
from sidecar.index.scope import NoteFilter, Scope
from sidecar.index.sync_report import Progress, ProgressFn

__all__ = [
    "EVENT_KINDS",
    "ChunkRecord",
    "Index",
    "IndexLocked",
    "NoteFilter",
    "Progress",
    "ProgressFn",
    "Scope",
    "open_index",
]
