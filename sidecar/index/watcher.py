"""Keep the index in step with the vault while it is open: watch the files, apply the changes.

Events are grouped by watchfiles (`debounce_ms`: the longest a burst is collected; a quiet 50 ms
ends it sooner). Dot-folders (`.obsidian/`, `.ora/`, `.trash/`, `.git/`) and files other than
notes are ignored, except that an event on a folder (created, moved or deleted) is expanded to the
notes inside it, since moving a folder reports only the folder. A change to the vault's settings
(`ora.yaml`, Obsidian's `.obsidian/app.json` with its Excluded files) can retype or exclude any
note, so it calls `on_settings` (by default: a whole reconcile). Applying runs in a worker thread,
so the event loop (the HTTP server's) keeps answering meanwhile.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from watchfiles import Change, awatch

from sidecar.documents.formats import is_document, iter_document_paths
from sidecar.index.index import Index
from sidecar.vault.scan import is_ignored, iter_note_paths, symlink_in
from sidecar.vault.vault_settings import settings_files

OnChange = Callable[[dict[str, Any]], Awaitable[None] | None]
OnSettings = Callable[[], Awaitable[Any] | Any]


def _relative(vault: Path, path: str) -> str | None:
    try:
        rel = Path(path).resolve().relative_to(vault).as_posix()
    except ValueError:
        return None
    parts = PurePosixPath(rel).parts
    if not parts or any(p.startswith(".") for p in parts):
        return None
    return rel


def _settings_paths(vault: Path) -> frozenset[Path]:
    """The settings files, and their folders inside the vault (`.obsidian/`): a file written
    into a folder that was just created can land before a watch on that folder exists, so the
    folder's own event must count as a settings change too."""
    files = {vault / rel for rel in settings_files()}
    return frozenset(files | {f.parent for f in files if f.parent != vault})


def _accept(vault: Path) -> Callable[[Change, str], bool]:
    """watchfiles filter: anything outside dot-folders (folders matter; see module docstring),
    and the settings files."""
    settings = _settings_paths(vault)

    def accept(_change: Change, path: str) -> bool:
        return _relative(vault, path) is not None or Path(path).resolve() in settings

    return accept


def note_paths(index: Index, vault: Path, rels: Iterable[str]) -> list[str]:
    """The note paths an event batch touches: notes themselves, and notes in or formerly in a
    changed folder (found on disk, and in the ledger for a folder moved away)."""
    out: set[str] = set()
    for rel in rels:
        if not is_ignored(rel) or is_document(rel):
            out.add(rel)
            continue
        folder = vault / rel
        if folder.is_dir() and symlink_in(vault, rel) is None:
            out.update(f"{rel}/{sub}" for sub in iter_note_paths(folder))
            out.update(f"{rel}/{sub}" for sub in iter_document_paths(folder))
        out.update(index.ledger.paths_under(index.namespace, rel))
    return sorted(out)


async def watch(
    index: Index, stop_event: asyncio.Event, on_change: OnChange | None = None,
    on_settings: OnSettings | None = None, on_queue: Callable[[int], None] | None = None,
) -> None:
    """Apply vault changes to `index` until `stop_event` is set; a failed apply is raised.

    Events keep being read while a batch is applied: they are handed to `index.expedite` (so a
    private flip reaches the index while the running write waits for its embedding, not after it)
    and then applied as the next batch. `on_change` receives apply_paths' summary plus "paths"
    after every applied batch; `on_settings` is called when a settings file changed (None:
    reconcile here); `on_queue` the number of paths waiting or being applied, whenever it
    changes. On stop, a batch being applied is finished; waiting paths are left to the next
    start's reconcile.
    """
    vault = index.config.vault.resolve()
    settings = _settings_paths(vault)
    pending: set[str] = set()
    ready = asyncio.Event()
    applying = 0
    closing = False

    def tell() -> None:
        if on_queue is not None:
            on_queue(len(pending) + applying)

    async def read_events() -> None:
        async for changes in awatch(vault, watch_filter=_accept(vault),
                                    debounce=int(index.config.debounce_ms),
                                    stop_event=stop_event):
            if any(Path(path).resolve() in settings for _change, path in changes):
                result = (on_settings() if on_settings is not None
                          else await asyncio.to_thread(index.reconcile))
                if inspect.isawaitable(result):
                    await result
            rels = {rel for _change, path in changes if (rel := _relative(vault, path))}
            paths = note_paths(index, vault, rels)
            if paths:
                index.expedite(paths)
                pending.update(paths)
                ready.set()
                tell()

    async def apply_batches() -> None:
        nonlocal applying
        while not closing:
            await ready.wait()
            ready.clear()
            if closing or stop_event.is_set():
                return
            paths = sorted(pending)
            pending.clear()
            applying = len(paths)
            tell()
            try:
                summary = await asyncio.to_thread(index.apply_paths, paths)
            finally:
                applying = 0
                tell()
            summary["paths"] = paths
            if on_change is not None:
                result = on_change(summary)
                if inspect.isawaitable(result):
                    await result

    reader = asyncio.create_task(read_events(), name="ora-watcher-read")
    applier = asyncio.create_task(apply_batches(), name="ora-watcher-apply")
    try:
        await asyncio.wait({reader, applier}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        closing = True
        ready.set()  # an idle applier wakes and returns; a busy one finishes its batch first
        if not reader.done():
            reader.cancel()
        results = await asyncio.gather(reader, applier, return_exceptions=True)
    for result in results:
        if isinstance(result, Exception):
            raise result
