"""Disk is given back: `ora index --rebuild` (and a new model, which drops the stores too) leaves
no segment folder of the dropped collections under chroma/ (Chroma 1.5 deletes a collection's
rows but not its HNSW files), and indexing.json is written 0600 like every file of the data
folder."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from sidecar.index.indexing import IndexingProgress

from .conftest import OpenIndex, note, write


def _segment_folders(chroma: Path) -> set[str]:
    return {p.name for p in chroma.iterdir() if p.is_dir()}


def _named_segments(chroma: Path) -> set[str]:
    with sqlite3.connect(f"{(chroma / 'chroma.sqlite3').as_uri()}?mode=ro", uri=True) as db:
        return {str(row[0]) for row in db.execute("SELECT id FROM segments")}


def test_rebuild_removes_the_dropped_collections_segment_folders(
    tmp_path: Path, open_idx: OpenIndex
) -> None:
    vault = tmp_path / "vault"
    for i in range(30):
        write(vault, f"n{i}.md", note("engram", f"# Note {i}\n\nThe harbour log {i}."))
    index = open_idx(vault)
    index.reconcile()
    chroma = tmp_path / "data" / "chroma"
    first = _segment_folders(chroma)
    assert first  # the public store's graph
    index.rebuild()
    index.close()
    assert not first & _segment_folders(chroma)
    assert _segment_folders(chroma) <= _named_segments(chroma)


def test_indexing_progress_file_is_private_whatever_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        progress = IndexingProgress(tmp_path)
        progress.update(1, 10)
    finally:
        os.umask(previous)
    assert stat.S_IMODE(progress.path.stat().st_mode) == 0o600
