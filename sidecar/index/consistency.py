"""Start-up repair: make the ledger, Chroma and BM25 agree before a sync.

Writes go stores-first, ledger-last, so after a crash (even `kill -9`) a store can hold chunks the
ledger does not list (orphans: removed here) and, if a store lost a write, the ledger can list
chunks a store lacks (their files are marked dirty, so the sync that follows redoes them). Chunk
ids are deterministic, so redoing a file overwrites rather than duplicates.

Memory does not grow with the vault: the ledger's chunk ids wait in a temporary SQLite table
(`Ledger.chunk_owners`), and each store is compared with it WINDOW ids at a time: the store's ids
looked up in the ledger's (orphans), then, only when a store then holds fewer chunks than the
ledger lists, the ledger's looked up in the store (missing chunks).
"""

from __future__ import annotations

from sidecar.index.bm25 import Bm25Store
from sidecar.index.chroma import ChromaStore
from sidecar.index.ledger import ChunkOwners, Ledger

# Ids compared at once (a few hundred KiB of strings; Chroma pays per page, not per id).
WINDOW = 5000


def repair(namespace: str, ledger: Ledger, bm25: Bm25Store, chroma: ChromaStore) -> dict[str, int]:
    """Remove orphan chunks and mark files with missing chunks dirty; returns both counts."""
    orphans = 0
    dirty: set[str] = set()  # paths, not chunk ids: only files whose chunks went missing
    with ledger.chunk_owners(namespace) as owners:
        for private in (False, True):
            # BM25 first: an orphan of both stores is counted once, by the Chroma pass.
            orphans += _bm25_orphans(namespace, private, owners, bm25, chroma)
            orphans += _chroma_orphans(namespace, private, owners, chroma)
            listed = owners.count(private)
            if (chroma.count(namespace, private) == listed
                    and bm25.count(namespace, private) == listed):
                continue  # each holds only listed chunks, as many as listed: all of them
            for window in owners.windows(private, WINDOW):
                ids = [cid for cid, _, _ in window]
                in_chroma = chroma.present(namespace, private, ids)
                in_bm25 = bm25.present(namespace, private, ids)
                dirty.update(p for cid, p, embedded in window
                             if (embedded and cid not in in_chroma) or cid not in in_bm25)
    if dirty:
        ledger.mark_dirty(namespace, sorted(dirty))
    return {"orphans": orphans, "dirty": len(dirty)}


def _chroma_orphans(namespace: str, private: bool, owners: ChunkOwners,
                    chroma: ChromaStore) -> int:
    removed, offset = 0, 0
    while page := chroma.id_page(namespace, private, offset, WINDOW):
        extra = sorted(set(page) - owners.owned(private, page))
        if extra:
            chroma.delete(namespace, private, extra)
        removed += len(extra)
        offset += len(page) - len(extra)  # the ids after the deleted ones moved down
    return removed


def _bm25_orphans(namespace: str, private: bool, owners: ChunkOwners, bm25: Bm25Store,
                  chroma: ChromaStore) -> int:
    """Removes BM25's orphans; counts those Chroma does not hold (its pass counts the rest)."""
    removed, after = 0, ""
    while window := bm25.id_window(namespace, private, after, WINDOW):
        extra = sorted(set(window) - owners.owned(private, window))
        if extra:
            bm25.replace(namespace, deletes={private: extra}, inserts={})
            removed += len(extra) - len(chroma.present(namespace, private, extra))
        after = window[-1]
    return removed
