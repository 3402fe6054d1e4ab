"""The existing engrams a proposal is compared with, found through the index, and on disk where
the index is behind.

Each proposal's vector (the index's own embedder) is searched among the chunks of `type: engram`
notes only (the search filter's scope, `Index.scope`), the nearest chunks are cut into claims
with the survey's splitter, and each claim is compared sentence to sentence: a chunk holds a
title and several sentences, a duplicate repeats one of them. Private engrams are searched only
for a private extraction.

The index may not hold the vault as it is: `ora index` never ran, or notes changed while no
`ora watch` or `ora serve` was running. The notes it does not hold as they are on disk (no
ledger row, another size or time, not embedded yet, or gone) are left out of the index's
answer, and those of them that are engrams are read from disk instead: their claims that share
a content word with a proposal are embedded and compared the same way. So the gate never misses
an engram for want of an index; with the index up to date there is nothing to read.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sidecar.cleaning.claims import Claim, split_claims
from sidecar.errors import OraError
from sidecar.extraction.gate import content_stems
from sidecar.extraction.proposals import Match, extraction_data
from sidecar.index import Index
from sidecar.index.ledger import stamp_of
from sidecar.index.scope import NoteFilter
from sidecar.models.embedder import Embedder, FloatArray
from sidecar.retrieval.private_now import hidden_now, settings_now_of
from sidecar.vault.note import read_note
from sidecar.vault.scan import iter_note_paths, vault_path
from sidecar.vault.vault_settings import effective_type, holds_private_text, is_excluded

_WINDOW = 500  # ledger rows read at a time (a row holds the note's centroid)


class IndexEngrams:
    """`EngramLookup` over an open index."""

    def __init__(self, index: Index, embedder: Embedder, *, private: bool) -> None:
        self.index, self.embedder, self.private = index, embedder, private
        # the settings as they are now: a folder made private since indexing is private at once
        self.now = settings_now_of(index.config)

    def neighbours(self, texts: Sequence[str]) -> list[list[Match]]:
        if not texts:
            return []
        vectors = self.embedder.embed(list(texts))
        behind = self._behind()
        found = zip(self._indexed(vectors, behind), self._on_disk(texts, vectors, behind),
                    strict=True)
        return [sorted(a + b, key=lambda m: (-m.similarity, m.path, m.line_start))
                for a, b in found]

    def _indexed(self, vectors: FloatArray, behind: set[str]) -> list[list[Match]]:
        scope = self.index.scope(NoteFilter.make(["engram"]), private=self.private)
        if scope is not None and not any(scope.values()):
            return [[] for _ in vectors]
        k = int(extraction_data()["gate"]["neighbours"])
        hits = [self.index.dense_search(v, k, private=self.private, only=scope)
                for v in vectors]
        private_now = self.now.private_paths()
        chunks = {cid: c for cid, c in self.index.get_chunks(
            sorted({cid for h in hits for cid, _ in h}), private=self.private).items()
            if c.path not in behind  # read from disk instead
            and not hidden_now(private_now, self.private, c.path)}
        claims = {cid: split_claims(c.text, c.line_start) for cid, c in chunks.items()}
        flat = sorted({c.text for found in claims.values() for c in found})
        claim_vectors = dict(zip(flat, self.embedder.embed(flat), strict=True)) if flat else {}
        return [[Match(chunks[cid].path, c.text, c.line_start, c.line_end,
                       float(np.dot(vector, claim_vectors[c.text])), chunks[cid].private)
                 for cid, _ in found if cid in chunks for c in claims[cid]]
                for vector, found in zip(vectors, hits, strict=True)]

    def _behind(self) -> set[str]:
        """The notes the index does not hold as they are on disk."""
        index, vault = self.index, self.index.config.vault
        settings = self.now.settings()  # as the rest of the lookup reads them: now
        on_disk = [rel for rel in iter_note_paths(vault) if not is_excluded(settings, rel)]
        behind = {rel for rel in set(index.ledger.paths(index.namespace)) - set(on_disk)
                  if not vault_path(vault, rel).exists()}  # gone (not a document, say)
        for start in range(0, len(on_disk), _WINDOW):
            window = on_disk[start:start + _WINDOW]
            rows = index.ledger.rows(index.namespace, window)
            for rel in window:
                row = rows.get(rel)
                try:
                    st = vault_path(vault, rel).stat()
                except (OSError, ValueError):
                    continue
                if row is None or not row.embedded or row.stamp != stamp_of(st):
                    behind.add(rel)
        return behind

    def _on_disk(self, texts: Sequence[str], vectors: FloatArray,
                 behind: set[str]) -> list[list[Match]]:
        """The engrams among `behind`, compared as they are on disk (the nearest `neighbours`
        claims of each text that share a content word with it)."""
        config, settings = self.index.config, self.now.settings()
        claims: list[tuple[str, Claim, bool, frozenset[str]]] = []
        for rel in sorted(behind):
            try:
                note = read_note(config.vault, rel, int(config.max_file_bytes))
            except (OSError, ValueError, OraError):
                continue  # gone, or not a note the index would read either
            private = holds_private_text(note, settings)
            if (effective_type(settings, rel, note.type)[0] != "engram" or note.is_archived
                    or (private and not self.private)):
                continue
            claims += [(rel, c, private, content_stems(c.text))
                       for c in split_claims(note.body, note.body_line)]
        near = [[(rel, c, private) for rel, c, private, stems in claims if stems & said]
                for said in map(content_stems, texts)]
        flat = sorted({c.text for found in near for _, c, _ in found})
        claim_vectors = dict(zip(flat, self.embedder.embed(flat), strict=True)) if flat else {}
        k = int(extraction_data()["gate"]["neighbours"])
        out = []
        for vector, found in zip(vectors, near, strict=True):
            matches = [Match(rel, c.text, c.line_start, c.line_end,
                             float(np.dot(vector, claim_vectors[c.text])), private)
                       for rel, c, private in found]
            out.append(sorted(matches, key=lambda m: -m.similarity)[:k])
        return out
