"""The generations of a Chroma store (`chroma.py`): compaction's naming, its commit and what a
crash leaves.

A store `NS__vault` is the collection of that name (generation 0) or its copy `NS__vault.g<N>`.
A copy is built with the metadata `ora_building`; clearing it is the commit. The current
generation is the highest complete one. `ora_deleted` counts the vectors deleted since a
generation was built: Chroma exposes no count of its graph's dead slots.
"""

from __future__ import annotations

import contextlib
import functools
import shutil
import sqlite3
import uuid
from pathlib import Path
from typing import Any

from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection
from chromadb.errors import InternalError, NotFoundError

from sidecar.schema import load_json

CONFIGURATION: Any = {"hnsw": {"space": "cosine"}}
_BATCH = 1000  # below Chroma's max_batch_size

# Collection metadata: vectors deleted since the generation was built (Chroma exposes no count of
# its graph's dead slots), and the mark of a generation still being copied.
_DELETED = "ora_deleted"
_BUILDING = "ora_building"


@functools.cache
def compaction_limits() -> tuple[float, int]:
    """(max deleted share, min deleted vectors) before a collection is compacted."""
    limits = load_json("limits.json")["chroma"]
    return float(limits["max_deleted_share"]), int(limits["min_deleted"])


def generation_name(store: str, generation: int) -> str:
    return store if generation == 0 else f"{store}.g{generation}"


def generation_of(store: str, name: str) -> int | None:
    """The generation `name` is of `store`, None when it is another store's collection."""
    if name == store:
        return 0
    number = name.removeprefix(f"{store}.g")
    return int(number) if number != name and number.isdigit() else None


def count_deleted(col: Collection, gone: int) -> None:
    """Add `gone` vectors deleted to the collection's count (`due`)."""
    if gone:
        meta = dict(col.metadata or {})
        col.modify(metadata={**meta, _DELETED: int(meta.get(_DELETED, 0)) + gone})


def due(col: Collection) -> bool:
    """Whether the collection's deleted share passes the limits (`compaction_limits`)."""
    share, least = compaction_limits()
    deleted = int((col.metadata or {}).get(_DELETED, 0))
    return deleted >= least and deleted > share * (deleted + col.count())


def _is_uuid(name: str) -> bool:
    try:
        uuid.UUID(name)
    except ValueError:
        return False
    return True


def generations(client: ClientAPI, store: str) -> dict[str, bool]:
    """The store's collections, by name: whether each is complete (not still being copied)."""
    return {col.name: not (col.metadata or {}).get(_BUILDING)
            for col in client.list_collections()
            if generation_of(store, col.name) is not None}


def current_generation(client: ClientAPI, store: str) -> str:
    """The name of the store's highest complete generation (`store` itself when it has none)."""
    complete = [name for name, done in generations(client, store).items() if done]
    return max(complete, key=lambda name: generation_of(store, name) or 0, default=store)


def delete_collection(client: ClientAPI, name: str) -> None:
    with contextlib.suppress(NotFoundError, ValueError):
        client.delete_collection(name)


def copy_generation(client: ClientAPI, old: Collection, name: str) -> Collection:
    """A new collection `name` holding what `old` holds, built in batches and marked complete
    only once it holds as many chunks (a copy that fails is deleted)."""
    delete_collection(client, name)  # left by a copy that failed in this process
    new = client.create_collection(name, embedding_function=None,
                                   configuration=CONFIGURATION, metadata={_BUILDING: True})
    try:
        total = old.count()
        for offset in range(0, total, _BATCH):
            got = old.get(include=["embeddings", "documents", "metadatas"],
                          offset=offset, limit=_BATCH)
            new.add(ids=got["ids"], embeddings=got["embeddings"], documents=got["documents"],
                    metadatas=got["metadatas"])
        if new.count() != total:
            raise InternalError(f"the copy of {old.name} holds {new.count()} of {total} chunks")
        new.modify(metadata={_DELETED: 0})  # the commit: readers take it from now on
    except BaseException:
        delete_collection(client, name)
        raise
    return new


def prune_segments(folder: Path) -> None:
    """Delete the segment folders of an embedded store (`DATA/chroma`) that chroma.sqlite3 no
    longer names: Chroma 1.5 leaves a deleted collection's HNSW files on disk."""
    if not folder.is_dir():
        return
    # Listed before the rows are read: a collection's row is written before its folder.
    folders = [p for p in folder.iterdir() if p.is_dir() and _is_uuid(p.name)]
    with contextlib.closing(sqlite3.connect(
            f"{(folder / 'chroma.sqlite3').as_uri()}?mode=ro", uri=True)) as db:
        named = {str(row[0]) for row in db.execute("SELECT id FROM segments")}
    for path in folders:
        if path.name not in named:
            shutil.rmtree(path, ignore_errors=True)
