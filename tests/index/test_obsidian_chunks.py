"""Obsidian-flavoured chunks in the index: block ids reach the results, comments stay out of
what is embedded, and a new chunker version re-chunks an old index without re-embedding
unchanged text."""

from __future__ import annotations

import json
from pathlib import Path

from sidecar.chunking.chunker import CHUNKER_VERSION, chunk_note
from sidecar.index.params import params_path
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


def test_an_index_from_an_older_chunker_is_rechunked_on_open(
    tmp_path: Path, open_idx: OpenIndex
) -> None:
    vault = tmp_path / "vault"
    write(vault, "Engrams/Sleep.md", CLAIMS)
    first = open_idx(vault)
    first.reconcile()
    first.close()
    doc = json.loads(params_path(tmp_path / "data").read_text(encoding="utf-8"))
    assert doc["namespaces"]["default"]["chunker"] == CHUNKER_VERSION
    doc["namespaces"]["default"]["chunker"] = CHUNKER_VERSION - 1
    params_path(tmp_path / "data").write_text(json.dumps(doc), encoding="utf-8")
    again = open_idx(vault).reconcile()
    assert again["chunks"] > 0 and again["embedded"] == 0  # re-chunked, vectors reused
