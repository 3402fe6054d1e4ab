"""Obsidian-flavoured chunks in the index: block ids reach the results, comments stay out of
what is embedded, and a new chunker version re-chunks an old index without re-embedding
unchanged text."""

from __future__ import annotations

import json
import os
from pathlib import Path

from sidecar.chunking.chunker import CHUNKER_VERSION, chunk_note
from sidecar.index_params import params_path
from sidecar.models.embedder import Embedder
from sidecar.retrieval.search import SearchOptions, search_sync
from sidecar.vault.note import parse_note

from .conftest import OpenIndex, note, write

CLAIMS = note("engram", "# Sleep\n\nSleep consolidates new memories. "
                        "%% draft: ask the physio about naps %% ^sleep-claim\n")


def test_block_ids_reach_search_results_and_comments_are_not_embedded(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    vault = tmp_path / "vault"
    write(vault, "Engrams/Sleep.md", CLAIMS)
    index = open_idx(vault)
    index.reconcile()
    doc = search_sync(index, embedder, None, "sleep consolidates memories",
                      SearchOptions(k=3, rerank=False))
    (result,) = doc["results"]
    assert result["block_ids"] == ["sleep-claim"]
    assert "%% draft" in result["text"]  # the cited lines, as written
    assert index.bm25_search("physio", 5, private=False) != []  # BM25 reads what users see
    (chunk,) = chunk_note(parse_note(CLAIMS, "Engrams/Sleep.md"), embedder.tokenizer, 256)
    assert "physio" not in chunk.embed_text and "sleep-claim" not in chunk.embed_text
    hits = index.dense_search(embedder.embed([chunk.embed_text])[0], 1, private=False)
    assert hits and hits[0][1] > 0.99  # the stored vector is of that text


def _indexed_by_chunker(tmp_path: Path, open_idx: OpenIndex, version: int) -> None:
    """Index VAULT, then make its saved parameters say chunker `version` built it."""
    first = open_idx(tmp_path / "vault")
    first.reconcile()
    first.close()
    doc = json.loads(params_path(tmp_path / "data").read_text(encoding="utf-8"))
    assert doc["namespaces"]["default"]["chunker"] == CHUNKER_VERSION
    doc["namespaces"]["default"]["chunker"] = version
    params_path(tmp_path / "data").write_text(json.dumps(doc), encoding="utf-8")


def test_an_index_from_an_older_chunker_is_rechunked_on_open(
    tmp_path: Path, open_idx: OpenIndex
) -> None:
    vault = tmp_path / "vault"
    write(vault, "Engrams/Sleep.md", CLAIMS)
    _indexed_by_chunker(tmp_path, open_idx, CHUNKER_VERSION - 1)
    again = open_idx(vault).reconcile()
    assert again["chunks"] > 0 and again["embedded"] == 0  # re-chunked, vectors reused


def test_an_index_from_before_capitalised_tag_properties_is_replanned_private(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    """Chunker 4 read only a lower-case `tags:`; a note whose `Tags: [private]` it indexed as
    public must turn private when a newer sidecar opens that index, though the file is as it
    was (same bytes on disk are otherwise never re-read)."""
    vault = tmp_path / "vault"
    path = write(vault, "Notes/Passport.md", "---\nTags: [public_]\n---\nPassport zebra 4471.\n")
    _indexed_by_chunker(tmp_path, open_idx, 4)
    stat = path.stat()  # what chunker 4 saw, as far as mtime and size can tell
    path.write_text("---\nTags: [private]\n---\nPassport zebra 4471.\n", encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    index = open_idx(vault)
    index.reconcile()
    public = search_sync(index, embedder, None, "passport zebra",
                         SearchOptions(k=3, rerank=False))
    assert public["results"] == []
    private = search_sync(index, embedder, None, "passport zebra",
                          SearchOptions(k=3, rerank=False, private=True))
    assert [r["private"] for r in private["results"]] == [True]


def test_a_writer_that_does_not_reconcile_leaves_an_older_chunkers_index_searchable(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    """`ora ask --conversation` and `ora resolve` open the index as a writer to apply one or
    two notes, with no reconcile. On an index from an older chunker that open used to drop the
    BM25 store (where every chunk's text lives) until the next full reconcile: search then
    found only the notes applied since, and answers said nothing in the vault matched."""
    vault = tmp_path / "vault"
    write(vault, "Engrams/Sleep.md", CLAIMS)
    _indexed_by_chunker(tmp_path, open_idx, CHUNKER_VERSION - 1)
    write(vault, "Chats/Ora/c1.md", note("chat", "# c1\n\nA question about marmalade.\n"))
    writer = open_idx(vault)
    writer.apply_paths(["Chats/Ora/c1.md"])
    found = search_sync(writer, embedder, None, "sleep consolidates memories",
                        SearchOptions(k=3, rerank=False))
    assert [r["path"] for r in found["results"]][:1] == ["Engrams/Sleep.md"]
    writer.close()
    again = open_idx(vault).reconcile()  # the re-chunking still happens at the next reconcile
    assert again["chunks"] > 0 and again["embedded"] == 0
