"""Start-up repair: make the ledger, Chroma and BM25 agree before a sync.

Writes go stores-first, ledger-last, so after a crash (even `kill -9`) a store can hold chunks the
ledger does not list (orphans: removed here) and, if a store lost a write, the ledger can list
chunks a store lacks (their files are marked dirty, so the sync that follows redoes them). Chunk
ids are deterministic, so redoing a file overwrites rather than duplicates.
"""

from __future__ import annotations

from sidecar.index.bm25 import Bm25Store
from sidecar.index.chroma import ChromaStore
from sidecar.index.ledger import Ledger


def repair(namespace: str, ledger: Ledger, bm25: Bm25Store, chroma: ChromaStore) -> dict[str, int]:
    """Remove orphan chunks and mark files with missing chunks dirty; returns both counts."""
    expected: dict[bool, set[str]] = {False: set(), True: set()}
    owner: dict[str, str] = {}
    for row in ledger.rows(namespace).values():
        expected[row.private].update(row.chunk_ids)
        owner.update(dict.fromkeys(row.chunk_ids, row.path))
    orphans = 0
    dirty: set[str] = set()
    for private in (False, True):
        want = expected[private]
        in_chroma = chroma.ids(namespace, private)
        in_bm25 = bm25.ids(namespace, private)
        extra_chroma = sorted(in_chroma - want)
        extra_bm25 = sorted(in_bm25 - want)
        if extra_chroma:
            chroma.delete(namespace, private, extra_chroma)
        if extra_bm25:
            bm25.replace(namespace, deletes={private: extra_bm25}, inserts={})
        orphans += len(set(extra_chroma) | set(extra_bm25))
        dirty.update(owner[i] for i in want - in_chroma)
        dirty.update(owner[i] for i in want - in_bm25)
    if dirty:
        ledger.mark_dirty(namespace, sorted(dirty))
    return {"orphans": orphans, "dirty": len(dirty)}
