"""Episodic recall: every turn embedded into Chroma (ADR-0005 decision 4, fourth tier).

Collections are named per namespace (decision 3): `mem__<namespace>` for ordinary turns and
`mem__<namespace>__private` for turns asked in private mode, so a query that is not private never
opens the private one. They live in the index's own Chroma client, are given vectors (never an
embedding function) and use cosine space like the vault collections. Recall spans every
conversation of the namespace: it is the agent's long-term memory, not one chat's.
"""

from __future__ import annotations

from collections.abc import Collection as Ids
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from chromadb.api.models.Collection import Collection

from sidecar.index.chroma import ChromaStore
from sidecar.index.names import check_namespace
from sidecar.memory.store import Turn
from sidecar.models.embedder import FloatArray


def memory_collection(namespace: str, private: bool) -> str:
    """`mem__<namespace>`, or `mem__<namespace>__private` for private-mode turns."""
    name = f"mem__{check_namespace(namespace)}"
    return f"{name}__private" if private else name


@dataclass(frozen=True)
class Recalled:
    turn_id: int
    conversation: str
    role: str
    content: str
    similarity: float


class Episodic:
    """The embedded turns of one namespace."""

    def __init__(self, chroma: ChromaStore, namespace: str) -> None:
        self.chroma = chroma
        self.namespace = check_namespace(namespace)

    def _collection(self, private: bool, *, create: bool) -> Collection | None:
        """One of the two collections; call inside `self.chroma.use()`."""
        return self.chroma.named(memory_collection(self.namespace, private), create=create)

    def add(self, turn: Turn, vector: FloatArray) -> None:
        self.add_many([turn], np.asarray(vector, dtype=np.float32).reshape(1, -1))

    def add_many(self, turns: Sequence[Turn], vectors: FloatArray) -> None:
        """Embedded turns, one upsert per collection (a conversation rebuilt from its note)."""
        with self.chroma.use():
            self._add_many(turns, vectors)

    def _add_many(self, turns: Sequence[Turn], vectors: FloatArray) -> None:
        for private in (False, True):
            rows = [i for i, t in enumerate(turns) if t.private == private]
            if not rows:
                continue
            col = self._collection(private, create=True)
            assert col is not None  # create=True always returns one
            col.upsert(
                ids=[str(turns[i].id) for i in rows],
                embeddings=np.asarray(vectors, dtype=np.float32)[rows],
                documents=[turns[i].content for i in rows],
                metadatas=[{"conversation": turns[i].conversation, "role": turns[i].role,
                            "created": turns[i].created} for i in rows],
            )

    def drop_conversations(self, conversations: Sequence[str], *,
                           scopes: Sequence[bool] = (False, True)) -> None:
        """Forget every embedded turn of these conversations, in both collections (or only the
        ordinary one, `scopes=(False,)`)."""
        if not conversations:
            return
        with self.chroma.use():
            for private in scopes:
                col = self._collection(private, create=False)
                if col is not None:
                    where: Any = {"conversation": {"$in": list(conversations)}}  # chromadb's
                    col.delete(where=where)

    def ids(self, private: bool) -> set[int]:
        """Ids of the turns embedded in the private or the ordinary collection."""
        with self.chroma.use():
            col = self._collection(private, create=False)
            return set() if col is None else {int(i) for i in col.get(include=[])["ids"]}

    def recall(
        self, vector: FloatArray, k: int, *, private: bool, exclude: Ids[int], min_similarity: float
    ) -> list[Recalled]:
        """The k turns most similar to `vector` (private ones only if `private`), best first."""
        with self.chroma.use():
            return self._recall(vector, k, private, exclude, min_similarity)

    def _recall(self, vector: FloatArray, k: int, private: bool, exclude: Ids[int],
                min_similarity: float) -> list[Recalled]:
        found: list[Recalled] = []
        for store_private in (False, True) if private else (False,):
            col = self._collection(store_private, create=False)
            stored = 0 if col is None or k <= 0 else col.count()
            if col is None or stored == 0:
                continue
            got = col.query(
                query_embeddings=np.asarray(vector, dtype=np.float32).reshape(1, -1),
                n_results=min(k + len(exclude), stored),
                include=["documents", "metadatas", "distances"],
            )
            docs, metas = (got["documents"] or [[]])[0], (got["metadatas"] or [[]])[0]
            for tid, doc, meta, dist in zip(got["ids"][0], docs, metas,
                                            (got["distances"] or [[]])[0], strict=True):
                similarity = 1.0 - float(dist)
                if int(tid) not in exclude and similarity >= min_similarity:
                    found.append(Recalled(int(tid), str(meta["conversation"]),
                                          str(meta["role"]), doc or "", similarity))
        found.sort(key=lambda r: (-r.similarity, r.turn_id))
        return found[:k]
