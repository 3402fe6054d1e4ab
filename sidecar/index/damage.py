"""Damaged index files, found when an index opens: a writer rebuilds them, a reader says how.

A half-truncated `ledger.sqlite`, garbage in `bm25.sqlite` or in `chroma/chroma.sqlite3` makes
SQLite report SQLITE_CORRUPT or SQLITE_NOTADB on the first read. Each store is probed as it opens
(a read that touches its tables); on such an error the writer deletes the damaged file and opens
a new one, and the reconcile that follows refills it (the vault is the source of truth: a lost
ledger or Chroma re-embeds, a lost BM25 store reuses the stored vectors). A reader cannot write,
so it raises `IndexDamaged` naming the one command to run.

A store that opens but is gone or empty while the ledger lists chunks for it (a 0-byte
`bm25.sqlite`, a deleted `chroma/`) would make every search silently empty: a reader refuses it
the same way; a writer's reconcile redoes the files whose chunks are missing (`consistency.py`).
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TypeVar

from chromadb.api.shared_system_client import SharedSystemClient

from sidecar.errors import IndexDamaged
from sidecar.index.bm25 import Bm25Store
from sidecar.index.chroma import ChromaStore
from sidecar.index.ledger import Ledger

T = TypeVar("T")


class _Closable(Protocol):
    def close(self) -> None: ...


S = TypeVar("S", bound=_Closable)
log = logging.getLogger("sidecar.index")

# SQLITE_CORRUPT and SQLITE_NOTADB (primary result codes).
_CORRUPT_CODES = frozenset({11, 26})
# Chroma's Rust bindings report SQLite's errors as text ("(code: 26) file is not a database").
_CORRUPT_TEXT = ("file is not a database", "database disk image is malformed", "(code: 11)",
                 "(code: 26)")


def is_corrupt(exc: BaseException) -> bool:
    """True for an error that means a damaged database file (not a busy or missing one)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(exc, sqlite3.DatabaseError) and code is not None:
        return (code & 0xFF) in _CORRUPT_CODES
    return any(text in str(exc) for text in _CORRUPT_TEXT)


def damaged(what: str, vault: Path, reason: str) -> IndexDamaged:
    return IndexDamaged(
        f"the index's {what} is damaged or missing ({reason}); "
        f"run `ora index {vault}` to rebuild it from the vault"
    )


def open_checked(what: str, open_: Callable[[], T], remove: Callable[[], None], *,
                 writer: bool, vault: Path) -> T:
    """`open_()` opens and probes one store. When it finds the file damaged: a writer removes it
    and opens a fresh one; a reader raises IndexDamaged."""
    try:
        return open_()
    except Exception as exc:
        if not is_corrupt(exc):
            raise
        if not writer:
            raise damaged(what, vault, str(exc).splitlines()[0]) from exc
        log.warning("the index's %s was damaged (%s): rebuilding it from the vault", what, exc)
        remove()
        return open_()


def remove_sqlite(path: Path) -> Callable[[], None]:
    """A remover for a SQLite database and its journal files."""

    def remove() -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)

    return remove


def _forget_chroma(folder: Path) -> None:
    """Chroma caches one client system per folder, even one whose start failed (which can then
    neither start nor stop): drop it so that the next open starts afresh."""
    SharedSystemClient._identifier_to_system.pop(str(folder), None)


def _open_chroma(data: Path) -> ChromaStore:
    try:
        return ChromaStore(data, "")
    except BaseException:
        _forget_chroma(data / "chroma")
        raise


def remove_chroma(folder: Path) -> Callable[[], None]:
    """A remover for the embedded Chroma folder."""

    def remove() -> None:
        _forget_chroma(folder)
        shutil.rmtree(folder, ignore_errors=True)

    return remove


def _probed(store: T, probe: Callable[[T], object], close: Callable[[T], None]) -> T:
    try:
        probe(store)
    except BaseException:
        close(store)
        raise
    return store


def _sqlite_store(what: str, path: Path, factory: Callable[[Path], S],
                  probe: Callable[[S], object], *, writer: bool, vault: Path) -> S:
    return open_checked(f"{what} ({path.name})",
                        lambda: _probed(factory(path), probe, lambda s: s.close()),
                        remove_sqlite(path), writer=writer, vault=vault)


def open_stores(data: Path, vault: Path, namespace: str, chroma_url: str, *,
                writer: bool) -> tuple[Ledger, Bm25Store, ChromaStore]:
    """The ledger, BM25 and Chroma stores of `data`, each probed (module docstring)."""
    opened: list[Ledger | Bm25Store] = []
    try:
        ledger = _sqlite_store("ledger", data / "ledger.sqlite", Ledger,
                               lambda s: s.stats(namespace), writer=writer, vault=vault)
        opened.append(ledger)
        bm25 = _sqlite_store("BM25 store", data / "bm25.sqlite", Bm25Store,
                             lambda s: s.probe(namespace), writer=writer, vault=vault)
        opened.append(bm25)
        if chroma_url:  # a Chroma server's files are not ours to check or remove
            chroma = ChromaStore(data, chroma_url)
        else:
            chroma = open_checked(
                "vector store (chroma/)",
                lambda: _probed(_open_chroma(data),
                                lambda s: [s.count(namespace, p) for p in (False, True)],
                                lambda s: None),
                remove_chroma(data / "chroma"), writer=writer, vault=vault)
    except BaseException:
        for store in opened:
            store.close()
        raise
    if not writer:
        _check_complete(ledger, bm25, chroma, namespace, vault)
    return ledger, bm25, chroma


def _check_complete(ledger: Ledger, bm25: Bm25Store, chroma: ChromaStore, namespace: str,
                    vault: Path) -> None:
    """A reader refuses stores that are missing or empty while the ledger lists their chunks.

    Chroma is judged by the chunks the ledger says are embedded only: while an index is being
    built (a cold `ora index`, `--rebuild`, a new model) every note is written by its words
    first and embedded after, so an empty collection with only pending chunks listed is a store
    being filled, not a damaged one (docs/index.md, "A cold index, and answers while it runs")."""
    try:
        for private, (chunks, embedded) in ledger.chunk_counts(namespace).items():
            store = "private" if private else "public"
            if chunks and not bm25.count(namespace, private):
                raise damaged("BM25 store (bm25.sqlite)", vault,
                              f"its {store} table is missing or empty, the ledger lists {chunks}"
                              " chunks")
            if embedded and not chroma.count(namespace, private):
                raise damaged("vector store (chroma/)", vault,
                              f"its {store} collection is missing or empty, the ledger lists "
                              f"{embedded} embedded chunks")
    except BaseException:
        ledger.close()
        bm25.close()
        raise
