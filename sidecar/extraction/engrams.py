"""The existing engrams a proposal is compared with, found through the index.

Each proposal's vector (the index's own embedder) is searched among the chunks of `type: engram`
notes only (the search filter's scope, `Index.scope`), the nearest chunks are cut into claims
with the survey's splitter, and each claim is compared sentence to sentence: a chunk holds a
title and several sentences, a duplicate repeats one of them. Private engrams are searched only
for a private extraction.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sidecar.cleaning.claims import split_claims
from sidecar.extraction.proposals import Match, extraction_data
from sidecar.index import Index
from sidecar.index.scope import NoteFilter
from sidecar.models.embedder import Embedder


class IndexEngrams:
    """`EngramLookup` over an open index."""

    def __init__(self, index: Index, embedder: Embedder, *, private: bool) -> None:
        self.index, self.embedder, self.private = index, embedder, private

    def neighbours(self, texts: Sequence[str]) -> list[list[Match]]:
        if not texts:
            return []
        scope = self.index.scope(NoteFilter.make(["engram"]), private=self.private)
        if scope is not None and not any(scope.values()):
            return [[] for _ in texts]
        k = int(extraction_data()["gate"]["neighbours"])
        vectors = self.embedder.embed(list(texts))
        hits = [self.index.dense_search(v, k, private=self.private, only=scope)
                for v in vectors]
        chunks = self.index.get_chunks(sorted({cid for h in hits for cid, _ in h}),
                                       private=self.private)
        claims = {cid: split_claims(c.text, c.line_start) for cid, c in chunks.items()}
        flat = sorted({c.text for found in claims.values() for c in found})
        claim_vectors = dict(zip(flat, self.embedder.embed(flat), strict=True)) if flat else {}
        out = []
        for vector, found in zip(vectors, hits, strict=True):
            matches = [
                Match(chunks[cid].path, c.text, c.line_start, c.line_end,
                      float(np.dot(vector, claim_vectors[c.text])), chunks[cid].private)
                for cid, _ in found if cid in chunks for c in claims[cid]]
            out.append(sorted(matches, key=lambda m: (-m.similarity, m.path, m.line_start)))
        return out
