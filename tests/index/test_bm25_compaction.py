"""A store whose notes were rewritten ranks as a store freshly filled with the same notes:
tantivy counts deleted documents in its statistics until it merges their segment, so an engine
holding more of them than ranking.json allows is rebuilt from its table after the write."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import pytest

from sidecar import schema as schema_module
from sidecar.index import bm25 as bm25_module
from sidecar.index.bm25 import Bm25Store
from sidecar.index.bm25_engine import Bm25Engine
from sidecar.index.bm25_table import SparseRow
from sidecar.schema import get_schema

ORIGINAL = schema_module.get_schema
WORDS = ["harbour", "lantern", "meadow", "orchard", "quarry", "saddle", "thimble", "violet"]


def _rows(version: int) -> list[SparseRow]:
    """One note per word; the first note's text changes with `version`, its words staying."""
    rows = [SparseRow(f"n{i}", f"{word}.md", False, f"The {word} note, about the {word}.", "", "")
            for i, word in enumerate(WORDS)]
    rows[0] = SparseRow("n0", "harbour.md", False,
                        f"Harbour lantern meadow, written {version} times over.", "", "")
    return rows


def _scores(bm25: Bm25Store, query: str) -> dict[str, float]:
    return {cid: round(score, 6)
            for cid, score in bm25.search("ns", query, 10, private=False, include_archived=False)}


def _store(folder: Path) -> Bm25Store:
    folder.mkdir()
    bm25 = Bm25Store(folder / "bm25.sqlite")
    bm25.create("ns")
    return bm25


def _rewritten(folder: Path, saves: int) -> Bm25Store:
    """A store of the notes whose first note an editor saved `saves` times more."""
    bm25 = _store(folder)
    bm25.replace("ns", deletes={}, inserts={False: _rows(0)})
    for version in range(1, saves + 1):
        bm25.replace("ns", deletes={}, inserts={False: _rows(version)[:1]})
    return bm25


def test_a_store_whose_notes_were_rewritten_ranks_as_a_fresh_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: the rewritten store ranked by the statistics of 12 deleted versions of a note.
    monkeypatch.setattr(schema_module, "get_schema", lambda: dataclasses.replace(
        ORIGINAL(), bm25_max_deleted=0.0))
    monkeypatch.setattr(bm25_module, "get_schema", schema_module.get_schema)
    rewritten = _rewritten(tmp_path / "rewritten", 12)
    fresh = _store(tmp_path / "fresh")
    fresh.replace("ns", deletes={}, inserts={False: _rows(12)})
    for query in ("lantern meadow", "harbour", "orchard quarry violet"):
        assert _scores(rewritten, query) == _scores(fresh, query)
    rewritten.close()
    fresh.close()


def test_a_write_leaving_too_many_deleted_documents_rebuilds_the_store(tmp_path: Path) -> None:
    bm25 = _store(tmp_path / "store")
    bm25.replace("ns", deletes={}, inserts={False: _rows(0)})
    bm25.replace("ns", deletes={}, inserts={False: _rows(1)[:3]})  # 3 deleted of 11 held
    folder = bm25.engine_folder("ns", False)
    bm25.close()
    engine = Bm25Engine(folder)
    deleted, held = engine.deleted()
    assert deleted / held <= get_schema().bm25_max_deleted
    assert engine.count() == len(WORDS)
    engine.close()


def test_an_engine_tells_the_share_of_its_documents_that_are_deleted(tmp_path: Path) -> None:
    engine = Bm25Engine(tmp_path / "engine")
    engine.add([(i, False, f"text {i}", "en") for i in range(1, 11)])
    engine.commit()
    assert engine.deleted() == (0, 10)
    engine.delete([1, 2, 3])
    engine.commit()
    assert engine.deleted() == (3, 10)
    engine.close()


def test_a_search_while_the_store_is_rebuilt_reads_the_engine_before(tmp_path: Path) -> None:
    # Before: the engine was removed, then filled again, under a running search: a search
    # meanwhile failed as if the index were damaged, or found nothing.
    bm25 = _store(tmp_path / "store")
    bm25.replace("ns", deletes={}, inserts={False: _rows(0)})
    found: list[bool] = []
    errors: list[Exception] = []
    done = threading.Event()

    def search() -> None:
        while not done.is_set():
            try:
                found.append("n3" in _scores(bm25, "orchard"))
            except Exception as exc:  # any failure is the finding
                errors.append(exc)

    reader = threading.Thread(target=search)
    reader.start()
    try:
        for version in range(1, 25):  # each write leaves 3 of 11 deleted: a rebuild each
            bm25.replace("ns", deletes={}, inserts={False: _rows(version)[:3]})
    finally:
        done.set()
        reader.join()
    assert errors == []
    assert found and all(found)
    bm25.close()
