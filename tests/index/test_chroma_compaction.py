"""Moving notes back and forth keeps the vector store near its live size: Chroma's HNSW graph
keeps a deleted vector's slot for good and a moved note's chunks are deleted and re-added, so a
store whose deleted share passes schema/limits.json `chroma` is copied into a fresh generation at
the end of the write; search finds the same before, during and after, and a copy stopped by a
crash loses nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from chromadb.api.models.Collection import Collection

from sidecar.index import Index, chroma_generations, open_index
from sidecar.models.embedder import Embedder
from sidecar.settings import make_config

from .conftest import OpenIndex, note, write

NOTES = 150
QUERY = "kettle limescale vinegar"


@pytest.fixture(autouse=True)
def _small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compact once deleted vectors pass half the store, however few (the vault is small)."""
    monkeypatch.setattr(chroma_generations, "compaction_limits", lambda: (0.5, 1))


@pytest.fixture
def moving_vault(tmp_path: Path) -> Path:
    """NOTES one-chunk notes under Folder/ (each with an H1: a move re-embeds nothing)."""
    root = tmp_path / "vault"
    for i in range(NOTES):
        write(root, f"Folder/n{i}.md", note("engram", f"# Note {i}\n\nThe harbour log {i}."))
    write(root, "Other/Kettle.md", note("engram", "# Kettle\n\nVinegar dissolves limescale."))
    return root


def _move(index_vault: Path, index: Index, old: str, new: str) -> None:
    """Rename a folder, applied as the watcher applies it (the folder's notes, old and new)."""
    os.rename(index_vault / old, index_vault / new)
    moved = [f"{new}/{p.name}" for p in (index_vault / new).iterdir()]
    index.apply_paths(moved, folders=[old])


def _graph_slots(data: Path) -> int:
    """Slots of every HNSW graph on disk, deleted ones included: hnswlib's `length.bin` holds a
    4-byte entry per slot."""
    return sum((d / "length.bin").stat().st_size // 4 for d in (data / "chroma").iterdir()
               if (d / "length.bin").exists())


def _public(index: Index) -> Collection:
    col = index.chroma.collection("default", False, create=False)
    assert col is not None
    return col


def test_moving_a_folder_back_and_forth_keeps_the_vector_graph_near_its_live_size(
    moving_vault: Path, tmp_path: Path, open_idx: OpenIndex
) -> None:
    index = open_idx(moving_vault)
    index.reconcile()
    names = ("Folder", "Folder2")
    for k in range(8):  # 2 × 8 × NOTES writes: Chroma flushes its graph every 1000
        _move(moving_vault, index, names[k % 2], names[(k + 1) % 2])
    live = index.chroma.count("default", False)
    assert live == NOTES + 1 == index.stats()["chunks"]
    index.close()
    assert _graph_slots(tmp_path / "data") <= 3 * live


def test_search_finds_the_same_notes_after_compaction(
    moving_vault: Path, tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    index = open_idx(moving_vault)
    index.reconcile()
    vector = embedder.embed([QUERY])[0]
    before = [cid for cid, _ in index.dense_search(vector, 5, private=False)]
    first = _public(index).name
    _move(moving_vault, index, "Folder", "Folder2")
    _move(moving_vault, index, "Folder2", "Folder")  # same paths, same chunk ids again
    assert _public(index).name != first  # compacted into a new generation
    assert [cid for cid, _ in index.dense_search(vector, 5, private=False)] == before
    index.close()
    with open_index(make_config(moving_vault, tmp_path / "data"), writer=False) as reader:
        assert [cid for cid, _ in reader.dense_search(vector, 5, private=False)] == before
        assert reader.chroma.count("default", False) == NOTES + 1


def test_a_reader_opened_before_a_compaction_keeps_finding_notes(
    moving_vault: Path, tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    index = open_idx(moving_vault)
    index.reconcile()
    vector = embedder.embed([QUERY])[0]
    with open_index(make_config(moving_vault, tmp_path / "data"), writer=False) as reader:
        before = reader.dense_search(vector, 3, private=False)  # holds the first generation
        _move(moving_vault, index, "Folder", "Folder2")
        _move(moving_vault, index, "Folder2", "Folder")
        assert [c for c, _ in reader.dense_search(vector, 3, private=False)] == [
            c for c, _ in before]


def test_a_copy_stopped_by_a_crash_is_deleted_and_the_store_kept(
    moving_vault: Path, tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    data = tmp_path / "data"
    index = open_idx(moving_vault)
    index.reconcile()
    old = _public(index)
    got = old.get(include=["embeddings"], limit=10)
    partial = index.chroma.client.create_collection(  # a copy killed after its first batch
        "default__vault.g1", embedding_function=None, metadata={"ora_building": True})
    partial.add(ids=got["ids"], embeddings=got["embeddings"])
    index.close()
    vector = embedder.embed([QUERY])[0]
    with open_index(make_config(moving_vault, data), writer=False) as reader:
        assert reader.chroma.count("default", False) == NOTES + 1  # never the partial copy
        assert reader.dense_search(vector, 1, private=False)
    index = open_idx(moving_vault)
    names = {c.name for c in index.chroma.client.list_collections()}
    assert names == {"default__vault", "default__private"}
    assert index.chroma.count("default", False) == NOTES + 1


def test_a_copy_committed_before_a_crash_replaces_the_old_store(
    moving_vault: Path, tmp_path: Path, open_idx: OpenIndex
) -> None:
    index = open_idx(moving_vault)
    index.reconcile()
    old = _public(index)
    got = old.get(include=["embeddings", "documents", "metadatas"])
    copy = index.chroma.client.create_collection(  # committed; killed before the old went
        "default__vault.g1", embedding_function=None, metadata={"ora_deleted": 0})
    copy.add(ids=got["ids"], embeddings=got["embeddings"], documents=got["documents"],
             metadatas=got["metadatas"])
    index.close()
    index = open_idx(moving_vault)
    names = {c.name for c in index.chroma.client.list_collections()}
    assert names == {"default__vault.g1", "default__private"}
    assert index.reconcile()["embedded"] == 0
    assert index.chroma.count("default", False) == NOTES + 1
