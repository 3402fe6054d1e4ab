"""The watcher applies edits, deletions and folder moves as they happen."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from sidecar.index import Index
from sidecar.index.watcher import watch
from sidecar.vault import vault_settings

from ..documents.make_pdfs import one_page_pdf
from .conftest import KETTLE, OpenIndex, note, write


async def _until(changes: asyncio.Queue[dict[str, Any]], path: str) -> dict[str, Any]:
    while True:
        summary = await asyncio.wait_for(changes.get(), timeout=20)
        if path in summary["paths"]:
            return summary


@asynccontextmanager
async def _watching(index: Index) -> AsyncIterator[asyncio.Queue[dict[str, Any]]]:
    """A running watcher of `index`; yields the queue of its change summaries."""
    stop = asyncio.Event()
    changes: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    task = asyncio.create_task(watch(index, stop, changes.put))
    await asyncio.sleep(0.3)  # let the watcher start
    try:
        yield changes
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=10)


def _paths(index: Index, query: str, private: bool = True) -> set[str]:
    hits = index.bm25_search(query, 10, private=private)
    return {r.path for r in index.get_chunks([h[0] for h in hits], private=private).values()}


async def test_watch_follows_edits_deletes_and_folder_moves(
    vault: Path, open_idx: OpenIndex
) -> None:
    index = open_idx(vault, debounce_ms=100)
    index.reconcile()
    async with _watching(index) as changes:
        write(vault, "Engrams/Kettle.md", KETTLE.replace("Vinegar", "Zanzibar vinegar"))
        summary = await _until(changes, "Engrams/Kettle.md")
        assert summary["embedded"] == 1
        assert _paths(index, "zanzibar") == {"Engrams/Kettle.md"}

        write(vault, ".obsidian/ignored.md", note("engram", "Hidden zeppelin."))
        write(vault, "Engrams/New.md", note("engram", "A note about zeppelins."))
        await _until(changes, "Engrams/New.md")
        assert _paths(index, "zeppelin") == {"Engrams/New.md"}

        (vault / "Engrams").rename(vault / "Moved")
        summary = await _until(changes, "Moved/New.md")
        while _paths(index, "zeppelin") != {"Moved/New.md"}:
            await asyncio.wait_for(changes.get(), timeout=20)
        assert _paths(index, "zanzibar") == {"Moved/Kettle.md"}

        (vault / "Moved/New.md").unlink()
        await _until(changes, "Moved/New.md")
        assert _paths(index, "zeppelin") == set()


async def test_a_settings_change_excludes_and_retypes_notes_while_watching(
    vault: Path, open_idx: OpenIndex
) -> None:
    index = open_idx(vault, debounce_ms=100)
    index.reconcile()
    assert _paths(index, "vinegar") == {"Engrams/Kettle.md"}
    stop = asyncio.Event()
    task = asyncio.create_task(watch(index, stop))  # default: a settings change reconciles
    await asyncio.sleep(0.3)  # let the watcher start

    async def until(check: Any) -> None:
        for _ in range(200):
            if check():
                return
            await asyncio.sleep(0.1)
        raise AssertionError("the watcher did not follow the settings change")

    try:
        write(vault, "ora.yaml", "exclude: [Engrams/Kettle.md]\n")
        await until(lambda: _paths(index, "vinegar") == set())
        write(vault, "ora.yaml", "{}\n")  # an emptied file is taken for one being saved
        await until(lambda: _paths(index, "vinegar") == {"Engrams/Kettle.md"})
        write(vault, ".obsidian/app.json", '{"userIgnoreFilters": ["Engrams/"]}')
        await until(lambda: _paths(index, "vinegar") == set())
        write(vault, ".obsidian/app.json", "{}")
        await until(lambda: _paths(index, "vinegar") == {"Engrams/Kettle.md"})
        write(vault, ".obsidian/templates.json", '{"folder": "Engrams"}')
        await until(lambda: _paths(index, "vinegar") == set())
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=10)


async def test_a_deleted_ora_yaml_applies_when_its_grace_is_over_without_another_event(
    vault: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A missing ora.yaml keeps its last settings for a grace (a save by delete and rewrite);
    no file event comes when it ends, and `ora watch` kept the folder private until the next
    settings event or a restart."""
    monkeypatch.setattr(vault_settings, "MISSING_GRACE_S", 1.0)
    write(vault, "ora.yaml", "private: [Engrams/]\n")
    index = open_idx(vault, debounce_ms=100)
    index.reconcile()
    assert _paths(index, "vinegar", private=False) == set()
    stop = asyncio.Event()
    task = asyncio.create_task(watch(index, stop))
    await asyncio.sleep(0.3)  # let the watcher start
    try:
        (vault / "ora.yaml").unlink()
        for _ in range(300):
            if _paths(index, "vinegar", private=False) == {"Engrams/Kettle.md"}:
                break
            await asyncio.sleep(0.1)
        assert _paths(index, "vinegar", private=False) == {"Engrams/Kettle.md"}
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=10)


async def test_breaking_a_notes_frontmatter_makes_it_private_and_fixing_it_public_again(
    vault: Path, open_idx: OpenIndex
) -> None:
    index = open_idx(vault, debounce_ms=100)
    index.reconcile()
    assert _paths(index, "limescale", private=False) == {"Engrams/Kettle.md"}
    async with _watching(index) as changes:
        write(vault, "Engrams/Kettle.md", KETTLE.replace("tags: []", "tags: [home"))
        summary = await _until(changes, "Engrams/Kettle.md")
        assert summary["embedded"] == 0  # its body's vectors move to the private store
        assert _paths(index, "limescale", private=False) == set()
        assert _paths(index, "limescale") == {"Engrams/Kettle.md"}  # private mode still finds it

        write(vault, "Engrams/Kettle.md", KETTLE.replace("tags: []", "tags: [home]"))
        summary = await _until(changes, "Engrams/Kettle.md")
        assert summary["embedded"] == 1  # public again: in a public call (private_vector_reuse)
        assert _paths(index, "limescale", private=False) == {"Engrams/Kettle.md"}


async def test_watch_picks_up_documents_and_documents_in_moved_folders(
    vault: Path, open_idx: OpenIndex
) -> None:
    index = open_idx(vault, debounce_ms=100)
    index.reconcile()
    async with _watching(index) as changes:
        write(vault, "Papers/Otters.pdf", one_page_pdf("Otters juggle pebbles when bored."))
        await _until(changes, "Papers/Otters.pdf")
        assert _paths(index, "otters pebbles") == {"Papers/Otters.pdf"}
        (vault / "Papers").rename(vault / "Library")
        await _until(changes, "Library/Otters.pdf")
        while _paths(index, "otters pebbles") != {"Library/Otters.pdf"}:
            await asyncio.wait_for(changes.get(), timeout=20)
