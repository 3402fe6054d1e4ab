"""The watcher against moves that overtake its batches, links that replace notes, and a data
folder deleted under it: after things settle the index is the vault's, whatever the timing."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import watch as watch_cli
from sidecar.errors import OraError
from sidecar.index import Index
from sidecar.index.ledger import FileRow
from sidecar.index.watcher import deletion_check, watch

from .conftest import OpenIndex, note, write

WAIT = 30  # a bound on waits that end in well under a second, never a timing


async def _until(changes: asyncio.Queue[dict[str, Any]], path: str) -> dict[str, Any]:
    """The first change summary (from now) that applied `path`."""
    while True:
        summary = await asyncio.wait_for(changes.get(), timeout=WAIT)
        if path in summary["paths"]:
            return summary


async def _started(vault: Path, changes: asyncio.Queue[dict[str, Any]]) -> None:
    """Once the watcher reads events: notes are written until one is applied (its OS watch is
    set up in its first steps)."""
    first = asyncio.ensure_future(changes.get())
    n = 0
    while not first.done():
        write(vault, f"Ready {n}.md", "# Ready\n\nThe watcher runs.\n")
        n += 1
        await asyncio.wait({first}, timeout=0.2)


@asynccontextmanager
async def _watching(index: Index) -> AsyncIterator[asyncio.Queue[dict[str, Any]]]:
    """A running watcher of `index`, known to be reading events; yields the queue of its change
    summaries."""
    stop = asyncio.Event()
    changes: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    task = asyncio.create_task(watch(index, stop, changes.put))
    try:
        await asyncio.wait_for(_started(index.config.vault, changes), WAIT)
        yield changes
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=WAIT)


def _notes(paths: Any) -> set[str]:
    """The test's notes among `paths` (not `_started`'s, some written before any watch)."""
    return {p for p in paths if not p.startswith("Ready ")}


def _on_disk(vault: Path) -> set[str]:
    return _notes(p.relative_to(vault).as_posix() for p in vault.rglob("*.md")
                  if not p.is_symlink())


def _found(index: Index, word: str, *, private: bool) -> set[str]:
    hits = index.bm25_search(word, 20, private=private)
    return {r.path for r in index.get_chunks([h[0] for h in hits], private=private).values()}


def _public_chroma_paths(index: Index) -> set[str]:
    store = index.chroma.collection(index.namespace, False, create=False)
    assert store is not None
    return {str(m["path"]) for m in store.get(include=["metadatas"])["metadatas"] or []}


async def test_a_subfolder_moved_private_during_its_parents_rename_leaves_no_public_copy(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`mv Projects Work`, then `mv Work/Alpha Health/Alpha` while the watcher writes the first
    move: the second event came before the first batch had written `Work/Alpha/…`, and the
    folder's notes were looked up in the ledger then (none yet), so the notes stayed indexed,
    public, at a path that no longer exists. The batch is held, by the ledger write that
    records `Work/Alpha/…`, until the second move's event has been read."""
    vault = tmp_path / "vault"
    write(vault, "ora.yaml", "private:\n  - Health/\n")
    for i in range(3):
        write(vault, f"Projects/Alpha/Marathon {i}.md",
              note("engram", f"# Marathon {i}\n\nQuokkarun training plan, week {i}."))
    write(vault, "Projects/Plan.md", note("engram", "# Plan\n\nThe yearly plan."))
    write(vault, "Health/Sleep.md", note("engram", "# Sleep\n\nEight hours."))
    index = open_idx(vault, debounce_ms=100)
    index.reconcile()
    assert _found(index, "quokkarun", private=False) == {
        f"Projects/Alpha/Marathon {i}.md" for i in range(3)}

    held, release = threading.Event(), threading.Event()
    put = index.ledger.put

    def holding_put(namespace: str, rows: Sequence[FileRow], *args: Any, **kw: Any) -> None:
        if not held.is_set() and any(r.path.startswith("Work/Alpha/") for r in rows):
            held.set()  # the first move's batch, about to record Work/Alpha/…
            release.wait(WAIT)
        put(namespace, rows, *args, **kw)

    monkeypatch.setattr(index.ledger, "put", holding_put)
    read = asyncio.Event()
    expedite = index.expedite

    def noting_expedite(paths: Any) -> None:
        paths = list(paths)
        if any(p.startswith("Health/Alpha/") for p in paths):
            read.set()  # the watcher has read the second move's event
        expedite(paths)

    monkeypatch.setattr(index, "expedite", noting_expedite)

    async with _watching(index) as changes:
        (vault / "Projects").rename(vault / "Work")
        assert await asyncio.to_thread(held.wait, WAIT)
        (vault / "Work/Alpha").rename(vault / "Health/Alpha")
        await asyncio.wait_for(read.wait(), WAIT)
        release.set()
        await _until(changes, "Health/Alpha/Marathon 0.md")

    assert _notes(index.ledger.paths(index.namespace)) == _on_disk(vault)
    assert _found(index, "quokkarun", private=False) == set()
    assert _found(index, "quokkarun", private=True) == {
        f"Health/Alpha/Marathon {i}.md" for i in range(3)}
    public = _public_chroma_paths(index)
    assert not any(p.startswith(("Work/Alpha/", "Health/", "Projects/")) for p in public)


async def test_a_note_replaced_by_a_symbolic_link_leaves_the_index(
    tmp_path: Path, open_idx: OpenIndex
) -> None:
    """`ln -sf outside.md Victim.md` (a link made beside it, renamed over it): the event named
    the link, resolved to its target outside the vault, and was dropped; the note kept its old
    text in the index. A reconcile removes it (linked notes are not indexed); so does the
    watcher now."""
    vault = tmp_path / "vault"
    write(vault, "Victim.md", "# Victim\n\nVictimword old text.\n")
    write(vault, "Other.md", "# Other\n\nOther text.\n")
    outside = write(tmp_path / "elsewhere", "t.md", "# Target\n\nNew content elsewhere.\n")
    index = open_idx(vault, debounce_ms=100)
    index.reconcile()
    assert _found(index, "victimword", private=True) == {"Victim.md"}

    async with _watching(index) as changes:
        # One step of the event loop: the watcher reads the rename once the link is in place.
        (vault / ".Victim.md.tmp").symlink_to(outside)
        os.replace(vault / ".Victim.md.tmp", vault / "Victim.md")
        write(vault, "After.md", "# After\n\nWritten after the link.\n")
        await _until(changes, "After.md")  # applied after (or with) the link's event

    assert _found(index, "victimword", private=True) == set()
    assert "Victim.md" not in index.ledger.paths(index.namespace)


async def test_a_folder_replaced_by_a_symbolic_link_leaves_the_index(
    tmp_path: Path, open_idx: OpenIndex
) -> None:
    """A folder moved out of the vault and linked back: both events named the link, resolved
    outside the vault, and were dropped; its notes stayed indexed as they were."""
    vault = tmp_path / "vault"
    for i in range(3):
        write(vault, f"Reading/R{i}.md", f"# R{i}\n\nReadingword {i} text.\n")
    write(vault, "Other.md", "# Other\n\nOther text.\n")
    index = open_idx(vault, debounce_ms=100)
    index.reconcile()
    assert len(_found(index, "readingword", private=True)) == 3

    moved = tmp_path / "elsewhere" / "Reading"
    moved.parent.mkdir()
    async with _watching(index) as changes:
        (vault / "Reading").rename(moved)  # one step of the event loop, as above
        (vault / "Reading").symlink_to(moved, target_is_directory=True)
        write(vault, "After.md", "# After\n\nWritten after the link.\n")
        await _until(changes, "After.md")
        write(moved, "R1.md", "# R1\n\nReadingword edited outside.\n")
        write(vault, "Later.md", "# Later\n\nWritten after the edit outside.\n")
        await _until(changes, "Later.md")

    assert _found(index, "readingword", private=True) == set()
    assert not any(p.startswith("Reading/") for p in index.ledger.paths(index.namespace))


def _remove_all(folder: Path) -> None:
    """`rm -rf folder`, again while the index's keyword engine still adds a file to it (as `rm`
    itself fails with "Directory not empty" then): a bounded number of tries."""
    for _ in range(50):
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            return
    raise AssertionError(f"{folder} could not be removed")


async def test_the_data_folder_deleted_under_the_watcher_stops_it_with_a_clear_error(
    tmp_path: Path, open_idx: OpenIndex
) -> None:
    """`rm -rf .ora` while watching: the next batch's write failed in the keyword engine
    ("Failed to open file … meta.json") and the watcher died with that traceback. Now it stops
    with `data_folder_deleted`, as `ora serve` does."""
    vault = tmp_path / "vault"
    write(vault, "Note.md", "# Note\n\nSome text.\n")
    index = open_idx(vault, data=tmp_path / "data", debounce_ms=100)
    index.reconcile()
    stop = asyncio.Event()
    changes: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    task = asyncio.create_task(watch(index, stop, changes.put))
    try:
        await asyncio.wait_for(_started(vault, changes), WAIT)
        _remove_all(tmp_path / "data")
        write(vault, "After.md", "# After\n\nWritten after the data folder went.\n")
        with pytest.raises(OraError) as raised:
            await asyncio.wait_for(task, timeout=WAIT)
    finally:
        stop.set()
    assert raised.value.code == "data_folder_deleted"
    assert raised.value.message == (
        f"the data folder {tmp_path / 'data'} was deleted while watching; start `ora watch` "
        "again to rebuild the index from the vault")


def test_ora_watch_exits_with_a_clear_error_when_its_data_folder_is_deleted(
    tmp_path: Path
) -> None:
    """The user's view of the case above: one line, no traceback, exit status 2."""
    vault = tmp_path / "vault"
    write(vault, "Note.md", "# Note\n\nSome text.\n")
    data = tmp_path / "data"
    ora = str(Path(sys.executable).parent / "ora")
    proc = subprocess.Popen(
        [ora, "watch", str(vault), "--data", str(data)], stderr=subprocess.PIPE, text=True,
        env={**os.environ, "ORA_DEBOUNCE_MS": "100"})
    assert proc.stderr is not None
    try:
        for line in proc.stderr:
            if "watching" in line:
                break
        _remove_all(data)
        write(vault, "After.md", "# After\n\nWritten after the data folder went.\n")
        status = proc.wait(timeout=60)
        told = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=30)
    assert status == 2
    assert (f"ora watch: the data folder {data} was deleted while watching; start `ora watch` "
            "again to rebuild the index from the vault") in told
    assert "Traceback" not in told


async def test_the_data_folder_deleted_during_ora_watch_s_catch_up_is_the_clear_error(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`rm -rf .ora` while `ora watch` runs its second start-up pass: the pass's failed write
    ("unable to open database file") was raised as it was, a traceback."""
    vault = tmp_path / "vault"
    write(vault, "Note.md", "# Note\n\nSome text.\n")
    index = open_idx(vault, data=tmp_path / "data")
    index.reconcile()
    deleted = deletion_check(index.config.data)

    def failing(*_: object) -> None:
        shutil.rmtree(tmp_path / "data", ignore_errors=True)
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(index, "reconcile", failing)
    with pytest.raises(OraError) as raised:
        await watch_cli._catch_up(index, asyncio.Event(), deleted)
    assert raised.value.code == "data_folder_deleted"
    # A failure with the folder in place is a bug to see, not a deleted folder.
    with pytest.raises(sqlite3.OperationalError):
        await watch_cli._catch_up(index, asyncio.Event(), lambda: False)


async def test_a_watcher_whose_batch_failed_counts_nothing_in_the_queue(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: a note saved while the failing batch ran stayed counted (1): the server's status
    # said a change waited, through the watcher's restart and after, until another event came.
    vault = tmp_path / "vault"
    write(vault, "Kept.md", "# Kept\n\nKept text.\n")
    index = open_idx(vault, debounce_ms=100)
    index.reconcile()
    read = threading.Event()
    expedite = index.expedite

    def seen(paths: Any) -> None:
        expedite(paths)
        if "Second.md" in paths:
            read.set()

    def fail(paths: Any, folders: Any = ()) -> dict[str, Any]:
        write(vault, "Second.md", "# Second\n\nSaved while the batch ran.\n")
        assert read.wait(WAIT)  # the watcher holds it, waiting for the next batch
        raise RuntimeError("the store failed")

    monkeypatch.setattr(index, "expedite", seen)
    monkeypatch.setattr(index, "apply_paths", fail)
    counts: list[int] = []
    task = asyncio.create_task(watch(index, asyncio.Event(), None, None, counts.append))
    n = 0
    while not task.done():  # until the watcher has read an event and its batch failed
        write(vault, f"New {n}.md", "# New\n\nA new note.\n")
        n += 1
        await asyncio.wait({task}, timeout=0.2)
    with pytest.raises(RuntimeError, match="the store failed"):
        await task
    assert 1 in counts and counts[-1] == 0
