"""A reader in another process never takes an engine being put in place of another for damage.

A store's engine is rebuilt from its table beside the one in use and then put in its place
(`Bm25Store._rebuild`: a compaction, or a writer that finds it out of step). The writer is
paused at every change it makes to the engine folders, and a reader in a second process
searches then: one that opens the store afresh (`ora search` while `ora serve` writes) and one
that keeps its engine open (the server's reader while `ora index` runs)."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sidecar import schema as schema_module
from sidecar.errors import IndexDamaged
from sidecar.index import bm25 as bm25_module
from sidecar.index import bm25_engine
from sidecar.index.bm25 import Bm25Store
from sidecar.index.bm25_engine import Bm25Engine

from .test_bm25_compaction import WORDS, _rows

ORIGINAL = schema_module.get_schema

# The reader process: for each line read, one search by a store opened afresh and one by the
# store it keeps open, each answering the ids found or the error raised.
_READER = """
import json, sys
from pathlib import Path
from sidecar.index.bm25 import Bm25Store
path = Path(sys.argv[1])
kept = Bm25Store(path)
def found(store):
    try:
        return sorted(c for c, _ in store.search("ns", "orchard lantern", 10, private=False,
                                                 include_archived=False))
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
for _ in sys.stdin:
    fresh = Bm25Store(path)
    print(json.dumps([found(fresh), found(kept)]), flush=True)
    fresh.close()
"""


class _Reader:
    """The reader process, asked to search at each point the writer pauses."""

    def __init__(self, path: Path) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-c", _READER, str(path)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2])
        self.answers: list[tuple[str, Any]] = []

    def search(self, when: str) -> None:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write("go\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        assert line, "the reader process ended"
        self.answers.append((when, json.loads(line)))

    def close(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait()


@pytest.fixture
def rebuilt_each_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write that deletes a document rebuilds its store (compaction)."""
    monkeypatch.setattr(schema_module, "get_schema", lambda: dataclasses.replace(
        ORIGINAL(), bm25_max_deleted=0.0))
    monkeypatch.setattr(bm25_module, "get_schema", schema_module.get_schema)


def _filled(path: Path) -> Bm25Store:
    """A writer of the store `ns` at `path`, holding `_rows(0)`."""
    writer = Bm25Store(path)
    writer.create("ns")
    writer.replace("ns", deletes={}, inserts={False: _rows(0)})
    return writer


@pytest.fixture
def reader(tmp_path: Path) -> Iterator[_Reader]:
    writer = _filled(tmp_path / "bm25.sqlite")
    writer.close()
    process = _Reader(tmp_path / "bm25.sqlite")
    process.search("before")  # its kept store has the engine open
    yield process
    process.close()


def _pausing(monkeypatch: pytest.MonkeyPatch, reader: _Reader) -> None:
    """The writer pauses for the reader to search before and after each rename or removal of
    a folder in the store's engine folder."""

    def paused(change: Callable[..., Any], what: str) -> Callable[..., Any]:
        def pausing(*args: Any, **kwargs: Any) -> Any:
            if not any("bm25" in Path(str(arg)).parts[-2:-1] for arg in args[:1]):
                return change(*args, **kwargs)
            reader.search(f"before {what} {Path(str(args[0])).name}")
            out = change(*args, **kwargs)
            reader.search(f"after {what} {Path(str(args[0])).name}")
            return out
        return pausing

    monkeypatch.setattr(Path, "rename", paused(Path.rename, "rename"))
    monkeypatch.setattr(Path, "replace", paused(Path.replace, "replace"))
    monkeypatch.setattr(bm25_module, "remove", paused(bm25_engine.remove, "remove"))


def _errors(reader: _Reader) -> list[tuple[str, Any]]:
    expected = ["n0", "n1", "n3"]
    return [(when, answer) for when, answer in reader.answers if answer != [expected, expected]]


def test_a_reader_in_another_process_never_sees_an_engine_swap_as_damage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader: _Reader, rebuilt_each_write: None,
) -> None:
    # Before: a reader that searched between the two renames of a swap (the engine moved aside,
    # the new one not yet in its place) got IndexDamaged ("it has no ranking engine", or
    # "Failed to open file for read: meta.json" for one whose engine was open).
    _pausing(monkeypatch, reader)
    writer = Bm25Store(tmp_path / "bm25.sqlite")
    writer.create("ns")
    for version in range(1, 4):  # each write deletes a document: a rebuild each
        writer.replace("ns", deletes={}, inserts={False: _rows(version)[:1]})
        reader.search(f"after write {version}")
    writer.close()
    assert len(reader.answers) > 8  # it searched at every change, not just after the writes
    assert _errors(reader) == []


def test_a_reader_sees_real_damage_as_damage(tmp_path: Path, reader: _Reader) -> None:
    store = Bm25Store(tmp_path / "bm25.sqlite")
    folder = store.engine_folder("ns", False)
    store.close()
    (folder / "meta.json").write_text("{not json")
    reader.search("garbled")
    shutil.rmtree(folder)
    reader.search("removed")
    (fresh_garbled, kept_garbled), (fresh_removed, kept_removed) = (
        answer for _, answer in reader.answers[1:])
    assert "IndexDamaged" in fresh_garbled and "ora index" in fresh_garbled
    assert "IndexDamaged" in kept_garbled
    assert "IndexDamaged" in fresh_removed and "no ranking engine" in fresh_removed
    assert "IndexDamaged" in kept_removed


def _held_open(folders: Callable[[], set[Path]],
               monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """As on Windows: a folder holding files a process has open (an engine of `folders()`) can
    be neither renamed nor removed. Returns the folders a removal left behind."""
    rename, rmtree = Path.rename, shutil.rmtree
    left: list[Path] = []

    def held(path: Path) -> bool:
        return any(path == folder or folder in path.parents for folder in folders())

    def refusing_rename(self: Path, target: Any) -> Path:
        if held(self):
            raise PermissionError(13, "The process cannot access the file", str(self))
        return rename(self, target)

    def refusing_rmtree(path: Any, ignore_errors: bool = False, **kwargs: Any) -> None:
        if held(Path(path)):
            left.append(Path(path))
            (Path(path) / "meta.json").unlink(missing_ok=True)  # not held open: removed
            if not ignore_errors:
                raise PermissionError(13, "The process cannot access the file", str(path))
            return
        rmtree(path, ignore_errors=ignore_errors, **kwargs)

    monkeypatch.setattr(Path, "rename", refusing_rename)
    monkeypatch.setattr(shutil, "rmtree", refusing_rmtree)
    return left


def test_where_folders_in_use_cannot_be_renamed_or_removed_a_store_is_still_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rebuilt_each_write: None,
) -> None:
    # Windows refuses to rename or remove a folder whose files another process has open: the
    # new engine goes to a folder of its own, and the one before is removed once let go.
    path = tmp_path / "bm25.sqlite"
    writer = _filled(path)
    kept = Bm25Store(path)  # another process's reader: its engines' folders are held open

    def found(store: Bm25Store) -> list[str]:
        return sorted(c for c, _ in store.search("ns", "orchard lantern", 10, private=False,
                                                 include_archived=False))

    assert found(kept) == ["n0", "n1", "n3"]
    left = _held_open(kept.held_folders, monkeypatch)
    for version in range(1, 4):
        writer.replace("ns", deletes={}, inserts={False: _rows(version)[:1]})
        fresh = Bm25Store(path)
        assert found(kept) == found(fresh) == ["n0", "n1", "n3"]
        fresh.close()
    assert left  # the reader held an engine the writer put another in place of
    engine = Bm25Engine(writer.engine_folder("ns", False))
    assert engine.deleted() == (0, len(WORDS))  # compacted: rebuilt from the table
    engine.close()
    kept.close()  # let go: the next writer to open removes what was left
    writer.close()
    writer = Bm25Store(path)
    writer.create("ns")
    assert {p for p in (tmp_path / "bm25").iterdir()} == {
        writer.engine_folder("ns", private, notes=notes)
        for private in (False, True) for notes in (False, True)}
    writer.close()


def test_an_index_of_the_layout_before_generations_opens_and_moves_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rebuilt_each_write: None,
) -> None:
    # The layout before: each engine in `bm25/<store>` (and `bm25/<store>.notes`), no table
    # naming a generation.
    path = tmp_path / "bm25.sqlite"
    writer = _filled(path)
    for private in (False, True):
        for notes in (False, True):
            folder = writer.engine_folder("ns", private, notes=notes)
            os.rename(folder, folder.with_suffix(""))
    writer.close()
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE bm25_engines")
    conn.close()
    legacy = tmp_path / "bm25" / "ns__vault"
    segments = {p.name for p in legacy.iterdir()}
    reader = Bm25Store(path)
    assert [c for c, _ in reader.search("ns", "orchard", 5, private=False,
                                        include_archived=False)] == ["n3"]
    writer = Bm25Store(path)
    writer.create("ns")  # in step: not rebuilt
    assert writer.engine_folder("ns", False) == legacy
    assert {p.name for p in legacy.iterdir()} >= segments
    writer.replace("ns", deletes={}, inserts={False: _rows(1)[:1]})  # a rebuild: a generation
    assert writer.engine_folder("ns", False) != legacy and not legacy.exists()
    assert [c for c, _ in reader.search("ns", "orchard", 5, private=False,
                                        include_archived=False)] == ["n3"]
    reader.close()
    writer.close()


def test_a_store_written_by_a_sidecar_before_generations_since_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A downgraded sidecar writes its engine to `bm25/<store>`: the generation the table names
    # no longer holds the table's chunks, whatever their number.
    path = tmp_path / "bm25.sqlite"
    writer = _filled(path)
    before = writer.engine_folder("ns", False)
    writer.close()
    shutil.copytree(before, before.with_suffix(""))  # as the sidecar before wrote it
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE ns__vault SET text = 'kiwi' WHERE id = 'n3'")
    conn.close()
    writer = Bm25Store(path)
    writer.create("ns")
    assert writer.engine_folder("ns", False) not in (before, before.with_suffix(""))
    assert [c for c, _ in writer.search("ns", "kiwi", 5, private=False,
                                        include_archived=False)] == ["n3"]
    writer.close()


def test_a_reader_opening_an_engine_never_creates_one(tmp_path: Path) -> None:
    path = tmp_path / "bm25.sqlite"
    writer = _filled(path)
    folder = writer.engine_folder("ns", False)
    writer.close()
    shutil.rmtree(folder)
    reader = Bm25Store(path)
    with pytest.raises(IndexDamaged, match="ora index"):
        reader.search("ns", "orchard", 5, private=False, include_archived=False)
    reader.close()
    assert not folder.exists()


def test_a_reader_follows_a_store_dropped_and_made_again(
    tmp_path: Path, rebuilt_each_write: None,
) -> None:
    # `ora index --rebuild` drops the stores and creates them again: a reader that had the
    # engines before open reads the new ones, never the old ones' removed folder.
    path = tmp_path / "bm25.sqlite"
    writer = _filled(path)
    writer.replace("ns", deletes={}, inserts={False: _rows(1)[:1]})  # a second generation
    reader = Bm25Store(path)
    assert [c for c, _ in reader.search("ns", "orchard", 5, private=False,
                                        include_archived=False)] == ["n3"]
    writer.drop("ns")
    writer.create("ns")
    writer.replace("ns", deletes={}, inserts={False: _rows(0)})
    assert [c for c, _ in reader.search("ns", "orchard", 5, private=False,
                                        include_archived=False)] == ["n3"]
    reader.close()
    writer.close()
