"""Dense retrieval: ChromaDB collections `NS__vault` and `NS__private`, cosine space.

Embedded (`PersistentClient` in `DATA/chroma`) unless a server URL is configured (`HttpClient`).
Chroma is always given vectors; it never gets an embedding function (its default one downloads a
model). Archived chunks are left out inside the store (over-fetch, else a `where` clause), so a
filtered query still returns k results when k exist.

An embedded client holds every collection's HNSW graph in memory (2.1–2.4 KiB a chunk): an idle
process closes it (`release`, setting `idle_release_s`) and the next use opens it again. Every
operation runs inside `use()`, so a release never closes a client in use.

Chroma's HNSW graph keeps a deleted vector's slot for good, and a chunk id is re-added on every
move or rename, so a collection whose deleted share passes `schema/limits.json` `chroma` is
copied into a fresh generation (`<store>.g<N>`) at the end of a write (`compact`). The copy is
made with the metadata `ora_building`; clearing it is the commit, after which the old generation
is deleted. Every process reads a store's highest complete generation, and asks again when the
one it had is gone; a writer opening deletes what a crash left (`settle`). Chroma deletes a
collection's rows but not its segment folder: Ora deletes the folders chroma.sqlite3 no longer
names (`chroma_generations.py`).
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar
from urllib.parse import urlsplit

import chromadb
import numpy as np
from chromadb.api import ClientAPI
from chromadb.api.client import Client
from chromadb.api.models.Collection import Collection
from chromadb.config import Settings
from chromadb.errors import InternalError, NotFoundError

from sidecar.data_folder import private_folder, private_tree
from sidecar.errors import BadRequest, OraError, storage_error
from sidecar.index.chroma_generations import (
    CONFIGURATION,
    copy_generation,
    count_deleted,
    current_generation,
    delete_collection,
    due,
    generation_name,
    generation_of,
    generations,
    prune_segments,
)
from sidecar.index.names import store_name
from sidecar.index.scope import overfetch
from sidecar.leases import Leases
from sidecar.models.embedder import FloatArray

log = logging.getLogger(__name__)

Metadata = dict[str, Any]

# Chroma refuses batches over its max_batch_size; stay well below it.
_BATCH = 1000
def _client(data: Path, url: str) -> ClientAPI:
    settings = Settings(anonymized_telemetry=False)
    if not url:
        folder = private_folder(data / "chroma")  # its SQLite file and segments hold notes' text
        with _storage_errors(data, url):  # it writes its SQLite file as it starts
            client = chromadb.PersistentClient(path=str(folder), settings=settings)
        private_tree(folder)  # Chroma creates its files with the umask's mode
        return client
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadRequest(f"chroma_url {url!r} is not an http(s) URL such as http://127.0.0.1:8000")
    port = parts.port or (443 if parts.scheme == "https" else 8000)
    try:
        return chromadb.HttpClient(
            host=parts.hostname, port=port, ssl=parts.scheme == "https", settings=settings
        )
    except Exception as exc:  # the client raises bare ValueError/ConnectError variants
        raise OraError(
            f"cannot reach the Chroma server at {url}: {exc}; start it with `chroma run` "
            "or clear the chroma_url setting to use the embedded store",
            code="chroma_unavailable",
            status=503,
        ) from exc


@contextlib.contextmanager
def _storage_errors(data: Path, url: str) -> Iterator[None]:
    """An embedded store's error on a full or read-only disk as StorageUnavailable. Chroma often
    names no cause ("Error in compaction: Failed to apply logs to the metadata segment", "disk
    I/O error"): `storage_error` then judges by the disk under the data folder, so an error on a
    disk with room is still raised as it is."""
    try:
        yield
    except OraError:
        raise
    except Exception as exc:
        storage = None if url else storage_error(exc, data / "chroma")
        if storage is None:
            raise
        raise storage from exc


P = ParamSpec("P")
R = TypeVar("R")


def _in_use(
    method: Callable[Concatenate[ChromaStore, P], R]
) -> Callable[Concatenate[ChromaStore, P], R]:
    """Run a store operation inside `use()`: the client is not released under it. A full or
    read-only disk fails it with StorageUnavailable (`_storage_errors`)."""
    def run(self: ChromaStore, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with _storage_errors(self._data, self._url), self.use():
            try:
                return method(self, *args, **kwargs)
            except NotFoundError:  # compacted into a new generation since it was opened
                self._forget()
                return method(self, *args, **kwargs)
    functools.update_wrapper(run, method)
    return run


class ChromaStore:
    """The two collections of each namespace, opened lazily and cached."""

    def __init__(self, data: Path, url: str) -> None:
        self._data, self._url = data, url
        self._client: ClientAPI | None = _client(data, url)
        self._collections: dict[str, Collection] = {}
        self._leases = Leases()
        self._guard = self._leases.lock
        self.opens = 1  # clients opened: 1 + reopenings after a release

    def _open(self) -> ClientAPI:
        """The client, opened again if released (the caller holds `_guard`)."""
        if self._client is None:
            self._client = _client(self._data, self._url)
            self.opens += 1
        self._leases.touch()
        return self._client

    @property
    def loaded(self) -> bool:
        """False once released, until the next use opens the client again."""
        return self._client is not None

    @property
    def client(self) -> ClientAPI:
        """The open client; hold `use()` while using it if the process releases when idle."""
        with self._guard:
            return self._open()

    @contextlib.contextmanager
    def use(self) -> Iterator[ClientAPI]:
        """The client, not released while the block runs."""
        with self._leases.hold(self._open) as client:
            yield client

    def release(self, idle_s: float) -> bool:
        """Close an embedded client nobody used for `idle_s` seconds and none is using, with its
        collections' in-memory indexes; True if closed (a server's client holds nothing)."""
        with self._guard:
            if self._url or self._client is None or not self._leases.idle(idle_s):
                return False
            client, self._client = self._client, None
            self._collections.clear()
            if isinstance(client, Client):  # the last client of its path stops Chroma's system
                client.close()
            return True

    def named(self, name: str, *, create: bool) -> Collection | None:
        """The collection `name`, created when `create`; None when absent. Call inside `use()`."""
        return self._cached(name, lambda _client: name, create)

    def collection(self, namespace: str, private: bool, *, create: bool) -> Collection | None:
        """The store's current generation, created when `create`; None when absent (never created
        by readers)."""
        store = store_name(namespace, private)
        return self._cached(store, lambda client: current_generation(client, store), create)

    def _cached(
        self, key: str, name: Callable[[ClientAPI], str], create: bool
    ) -> Collection | None:
        with self._guard:
            found = self._collections.get(key)
            if found is not None:
                return found
            client = self._open()
            if create:
                found = client.get_or_create_collection(
                    name(client), embedding_function=None, configuration=CONFIGURATION)
            else:
                try:
                    found = client.get_collection(name(client), embedding_function=None)
                except (NotFoundError, ValueError):
                    return None
            self._collections[key] = found
            return found

    def _forget(self) -> None:
        """Drop the opened collections: the next use looks each up again."""
        with self._guard:
            self._collections.clear()

    def _writable(self, namespace: str, private: bool) -> Collection:
        col = self.collection(namespace, private, create=True)
        assert col is not None  # create=True always returns one
        return col

    def drop(self, namespace: str) -> None:
        """Delete both stores of the namespace, every generation, and their segment folders."""
        self._removegenerations(namespace, keep_current=False)

    def settle(self, namespace: str) -> None:
        """A writer's open: delete the generations a compaction stopped by a crash left (the one
        it was copying, or the one it had replaced), and their segment folders."""
        self._removegenerations(namespace, keep_current=True)

    def _removegenerations(self, namespace: str, *, keep_current: bool) -> None:
        with self.use() as client:
            for private in (False, True):
                store = store_name(namespace, private)
                current = current_generation(client, store) if keep_current else None
                with self._guard:
                    self._collections.pop(store, None)
                for name in generations(client, store):
                    if name != current:
                        delete_collection(client, name)
        if not self._url:
            prune_segments(self._data / "chroma")

    def compact(self, namespace: str) -> None:
        """Copy each store of the namespace whose deleted share passes the limits into a new
        generation (the writer, at the end of a write, holding its write lock). Housekeeping: a
        copy that fails is deleted and logged, and the store stays as it was."""
        for private in (False, True):
            try:
                self._compact_store(store_name(namespace, private), namespace, private)
            except Exception as exc:  # the write itself has committed; search keeps the old one
                log.warning("could not compact the vector store %s: %s",
                            store_name(namespace, private), exc)

    @_in_use
    def _compact_store(self, store: str, namespace: str, private: bool) -> None:
        old = self.collection(namespace, private, create=False)
        if old is None or not due(old):
            return
        generation = (generation_of(store, old.name) or 0) + 1
        with self.use() as client:
            new = copy_generation(client, old, generation_name(store, generation))
            with self._guard:
                self._collections[store] = new
            delete_collection(client, old.name)
        if not self._url:
            prune_segments(self._data / "chroma")

    @_in_use
    def upsert(
        self,
        namespace: str,
        private: bool,
        ids: Sequence[str],
        vectors: FloatArray,
        documents: Sequence[str],
        metadatas: Sequence[Metadata],
    ) -> None:
        col = self._writable(namespace, private)
        for s in range(0, len(ids), _BATCH):
            e = s + _BATCH
            col.upsert(
                ids=list(ids[s:e]),
                embeddings=vectors[s:e],
                documents=list(documents[s:e]),
                metadatas=list(metadatas[s:e]),
            )

    @_in_use
    def update_metadata(
        self, namespace: str, private: bool, ids: Sequence[str], metadatas: Sequence[Metadata]
    ) -> None:
        """Merge keys into existing chunks' metadata."""
        col = self._writable(namespace, private)
        for s in range(0, len(ids), _BATCH):
            e = s + _BATCH
            col.update(ids=list(ids[s:e]), metadatas=list(metadatas[s:e]))

    @_in_use
    def delete(self, namespace: str, private: bool, ids: Sequence[str]) -> None:
        """Delete these chunks, counting in the collection's metadata how many went (`_due`)."""
        col = self.collection(namespace, private, create=False)
        if col is None or not ids:
            return
        before = col.count()
        for s in range(0, len(ids), _BATCH):
            col.delete(ids=list(ids[s : s + _BATCH]))
        count_deleted(col, before - col.count())

    @_in_use
    def ids(self, namespace: str, private: bool) -> set[str]:
        col = self.collection(namespace, private, create=False)
        if col is None:
            return set()
        return set(col.get(include=[])["ids"])

    @_in_use
    def id_page(self, namespace: str, private: bool, offset: int, limit: int) -> list[str]:
        """`limit` chunk ids from position `offset`, in the order Chroma stored them (deleting
        ids before `offset` moves the later ones down by as many)."""
        col = self.collection(namespace, private, create=False)
        if col is None:
            return []
        return list(col.get(include=[], offset=offset, limit=limit)["ids"])

    @_in_use
    def present(self, namespace: str, private: bool, ids: Sequence[str]) -> set[str]:
        """Those of `ids` stored in one collection."""
        col = self.collection(namespace, private, create=False)
        if col is None or not ids:
            return set()
        found: set[str] = set()
        for s in range(0, len(ids), _BATCH):
            found.update(col.get(ids=list(ids[s : s + _BATCH]), include=[])["ids"])
        return found

    @_in_use
    def count(self, namespace: str, private: bool) -> int:
        col = self.collection(namespace, private, create=False)
        return 0 if col is None else col.count()

    @_in_use
    def query(
        self, namespace: str, private: bool, vector: FloatArray, k: int, *,
        include_archived: bool, live: Callable[[Sequence[str]], set[str]] | None = None,
        only: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        """Top-k (chunk id, cosine similarity) of one collection, archived chunks left out unless
        `include_archived`.

        Chroma's metadata pre-filter costs about a hundred times an unfiltered HNSW query at 50k
        chunks, and archived chunks are rare: ask for 2k unfiltered and drop the archived ones,
        and pay for the filtered query only when archived chunks crowd the top. `live` says which
        ids are stored and not archived (the BM25 table answers that faster than Chroma's own
        metadata, which costs ~0.15 ms a row to fetch); without it the metadata is read.

        `only` restricts the query to those chunk ids (a search filter): Chroma searches exactly
        among them (about 5 ms for 10k ids at 20k chunks), so k come back when k exist. Never
        with a `where` as well: Chroma 1.5 takes seconds for ids and a metadata filter together
        (10 s for 1,000 ids at 10k chunks), so archived ids are dropped the same way, or, when
        they crowd the top, removed from `only` before asking again. When `only` is a large share
        of the collection, the unfiltered top is asked first (see `scope.overfetch`): an exact
        search among 24,000 ids costs several times an HNSW query for a few hundred.
        """
        col = self.collection(namespace, private, create=False)
        if col is None or k <= 0 or (only is not None and not only):
            return []

        def kept(found: list[tuple[str, float, bool]]) -> list[tuple[str, float]]:
            if include_archived:
                return [(cid, sim) for cid, sim, _ in found]
            keep = live([cid for cid, _, _ in found]) if live is not None else {
                cid for cid, _, archived in found if not archived}
            return [(cid, sim) for cid, sim, _ in found if cid in keep]

        # A filter admitting a large share: its best hits are among the unfiltered top (not
        # without `live`: reading the metadata of that many hits costs more than the exact query).
        fetch = None if only is None or (live is None and not include_archived) else overfetch(
            k, len(only), col.count())
        if only is not None and fetch is not None:
            admitted = set(only)
            found = _nearest(col, vector, fetch, None, False)
            among = kept([hit for hit in found if hit[0] in admitted])
            if len(among) >= k or len(found) < fetch:  # enough, or the whole collection was seen
                return among[:k]
        if include_archived:
            return kept(_nearest(col, vector, k, None, False, only))
        wanted = 2 * k
        found = _nearest(col, vector, wanted, None, live is None, only)
        if len(result := kept(found)) >= k or len(found) < wanted:  # enough, or all were seen
            return result[:k]
        if only is not None:
            unarchived = live(only) if live is not None else {
                cid for cid, _, archived in _nearest(col, vector, len(only), None, True, only)
                if not archived}
            if not unarchived:
                return []
            found = _nearest(col, vector, k, None, False, [i for i in only if i in unarchived])
        else:
            found = _nearest(col, vector, k, {"archived": False}, False)
        return [(cid, sim) for cid, sim, _ in found]

    @_in_use
    def get(
        self, namespace: str, private: bool, ids: Sequence[str]
    ) -> dict[str, tuple[str, Mapping[str, Any]]]:
        """(document, metadata) by chunk id, for the ids present in one collection."""
        col = self.collection(namespace, private, create=False)
        if col is None or not ids:
            return {}
        ids = list(dict.fromkeys(ids))  # Chroma refuses repeated ids
        out: dict[str, tuple[str, Mapping[str, Any]]] = {}
        for s in range(0, len(ids), _BATCH):
            got = col.get(ids=list(ids[s : s + _BATCH]), include=["documents", "metadatas"])
            docs = got["documents"] or []
            metas = got["metadatas"] or []
            for cid, doc, meta in zip(got["ids"], docs, metas, strict=True):
                out[cid] = (doc or "", meta or {})
        return out

    @_in_use
    def embeddings(self, namespace: str, private: bool, ids: Sequence[str]) -> FloatArray:
        """The stored vectors of these chunk ids, in the order given (missing ids left out)."""
        col = self.collection(namespace, private, create=False)
        if col is None or not ids:
            return np.zeros((0, 0), dtype=np.float32)
        got = col.get(ids=list(dict.fromkeys(ids)), include=["embeddings"])
        found = got["embeddings"]
        if found is None or len(found) == 0:
            return np.zeros((0, 0), dtype=np.float32)
        by_id = dict(zip(got["ids"], found, strict=True))
        return np.stack([np.asarray(by_id[i], dtype=np.float32) for i in ids if i in by_id])

    @_in_use
    def vectors_by_hash(
        self, namespace: str, hashes: Sequence[str], model: str, *, private: bool
    ) -> dict[str, FloatArray]:
        """Stored vectors of chunks whose text hash is in `hashes`, embedded by `model`, for a
        `private` chunk or a public one: a public chunk's only from the public store (it never
        takes a vector computed in a call of private texts), a private chunk's from either."""
        out: dict[str, FloatArray] = {}
        wanted = sorted(set(hashes))
        for side in (False, True) if private else (False,):
            col = self.collection(namespace, side, create=False)
            if col is None or not wanted:
                continue
            for s in range(0, len(wanted), _BATCH):
                where: Any = {
                    "$and": [{"chunk_hash": {"$in": wanted[s : s + _BATCH]}}, {"model": model}]
                }
                got = col.get(where=where, include=["embeddings", "metadatas"])
                vectors = got["embeddings"]
                if vectors is None:
                    continue
                for vec, meta in zip(vectors, got["metadatas"] or [], strict=True):
                    out[str(meta["chunk_hash"])] = np.asarray(vec, dtype=np.float32)
        return out


# Matches every chunk, archived or not: a `where` that sends the query down Chroma's filtered path.
_ANY: Any = {"archived": {"$in": [True, False]}}


def _nearest(
    col: Collection, vector: FloatArray, n: int, where: Any, with_flags: bool,
    ids: Sequence[str] | None = None,
) -> list[tuple[str, float, bool]]:
    """(chunk id, cosine similarity, archived) of the n nearest chunks; `archived` is read from
    the metadata only `with_flags` (else False).

    An unfiltered query that races the writer's HNSW flush can fail in Chroma 1.5 with "Error
    creating hnsw segment reader"; the filtered path does not read that segment, so the query is
    asked again through it rather than failing a search during a reconcile.
    """
    query = np.asarray(vector, dtype=np.float32).reshape(1, -1)
    include: Any = ["distances", "metadatas"] if with_flags else ["distances"]
    restrict: Any = {"ids": list(ids)} if ids is not None else {}
    try:
        found = col.query(
            query_embeddings=query, n_results=n, where=where, include=include, **restrict
        )
    except InternalError as exc:
        if where is not None or ids is not None or "hnsw segment reader" not in str(exc):
            raise
        found = col.query(query_embeddings=query, n_results=n, where=_ANY, include=include)
    distances = (found["distances"] or [[]])[0]
    metas = (found["metadatas"] or [[]])[0] if with_flags else [None] * len(distances)
    return [(cid, 1.0 - float(d), bool((meta or {}).get("archived")))
            for cid, d, meta in zip(found["ids"][0], distances, metas, strict=True)]
