"""Keep the index in step with the vault while it is open: watch the files, apply the changes.

Events are grouped by watchfiles (`debounce_ms`: the longest a burst is collected; a quiet 50 ms
ends it sooner). Dot-folders (`.obsidian/`, `.ora/`, `.trash/`, `.git/`) and files other than
notes are ignored, except that an event on a folder (created, moved or deleted) is expanded to the
notes inside it, since moving a folder reports only the folder. A change to the vault's settings
(`ora.yaml`, Obsidian's `.obsidian/app.json` with its Excluded files) can retype or exclude any
note, so it calls `on_settings` (by default: a whole reconcile). The ingest manifest
(`.ora-journal/ingested.json`) is followed too: a document whose entry changed (`ora ingest`
run by another process, or its undo) is applied again, so its notes replace it in search at
once, and so is one whose notes were deleted (all gone, it is searched by itself again); each
with the documents the index holds of the bytes the entry names (a document moved since its
ingest, undone, comes back at its new path). Applying
runs in a worker thread, so the event loop (the HTTP server's) keeps answering meanwhile.

Paths are taken as named in the vault, never through a final symbolic link: a note or folder
replaced by a link names the link, so it leaves the index as a reconcile leaves it (linked notes
and folders are not indexed), where resolving it named the link's target outside the vault and
dropped the event.

A folder moved away or deleted stands for the notes the ledger lists under it when the batch is
applied (`Index.apply_paths(folders=…)`, under the index's write lock), not when its event
arrives: a batch running then may not have written them yet (a folder renamed, then its subfolder
moved on 0.3 s later, left the subfolder's notes indexed at their passing path).

`watch` follows the data folder too (`follow_data`): deleted under it (`rm -rf .ora`), it stops
with `data_folder_deleted`, as `ora serve` does (`until_deleted`, shared with
`sidecar/server/instance.py`), instead of failing a batch's write with a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import stat
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from watchfiles import Change, awatch

from sidecar.documents.formats import is_document, iter_document_paths
from sidecar.documents.manifest import ManifestWatch, file_hash, moved_entry
from sidecar.errors import OraError
from sidecar.index.index import Index
from sidecar.vault.scan import is_ignored, iter_note_paths, symlink_in
from sidecar.vault.vault_settings import missing_settings_recheck, settings_files

OnChange = Callable[[dict[str, Any]], Awaitable[None] | None]
OnSettings = Callable[[], Awaitable[Any] | Any]
# How often (seconds) a running writer looks whether its data folder is still there.
DATA_POLL_SECONDS = 1.0


async def until_deleted(gone: Callable[[], bool], stop: asyncio.Event,
                        poll: float = DATA_POLL_SECONDS) -> bool:
    """True once `gone()` (asked every `poll` seconds), False if `stop` is set first: how a
    running writer (`ora serve`, `ora watch`) notices its data folder deleted under it."""
    while not stop.is_set():
        if gone():
            return True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), poll)
    return False


def data_folder_deleted(data: Path, doing: str, command: str) -> OraError:
    """The error a writer stops with once its data folder was deleted under it."""
    return OraError(f"the data folder {data} was deleted while {doing}; start `{command}` "
                    "again to rebuild the index from the vault", code="data_folder_deleted")


def deletion_check(data: Path) -> Callable[[], bool]:
    """A check that is True once `data` is deleted (or deleted and made again) after this
    call: the data folder a writer opened is gone."""
    opened = _folder_identity(data)
    return lambda: _folder_identity(data) != opened


def _folder_identity(folder: Path) -> tuple[int, int] | None:
    """(device, inode) of a folder, None if there is none: a folder deleted and made again
    (by anyone) is not the one a writer opened."""
    try:
        st = folder.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None


def _named(path: str) -> Path:
    """`path` with its folders resolved but not its last part: a link is named as itself."""
    given = Path(path)
    return given.parent.resolve() / given.name


def _relative(vault: Path, path: str) -> str | None:
    try:
        rel = _named(path).relative_to(vault).as_posix()
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
    the settings files and the ingest manifest."""
    settings = _settings_paths(vault) | ManifestWatch.watched(vault)

    def accept(_change: Change, path: str) -> bool:
        return _relative(vault, path) is not None or _named(path) in settings

    return accept


def _is_file(rel: str) -> bool:
    """A note or a document by its name (anything else may be a folder)."""
    return not is_ignored(rel) or is_document(rel)


def note_paths(index: Index, vault: Path, rels: Iterable[str]) -> list[str]:
    """The note paths an event batch touches: notes themselves, and notes in or formerly in a
    changed folder (found on disk, and in the ledger for a folder moved away: as far as it is
    written yet; `changed_folders` are read from it again when the batch is applied)."""
    out: set[str] = set()
    for rel in rels:
        if _is_file(rel):
            out.add(rel)
            continue
        folder = vault / rel
        if folder.is_dir() and symlink_in(vault, rel) is None:
            out.update(f"{rel}/{sub}" for sub in iter_note_paths(folder))
            out.update(f"{rel}/{sub}" for sub in iter_document_paths(folder))
        out.update(index.ledger.paths_under(index.namespace, rel))
    return sorted(out)


def changed_folders(vault: Path, rels: Iterable[str]) -> list[str]:
    """Those of an event batch's paths that may be folders whose notes the ledger lists: gone
    (moved away, deleted), a folder, or a link (one replacing a folder)."""
    out = []
    for rel in rels:
        if _is_file(rel):
            continue
        path = vault / rel
        if path.is_symlink() or path.is_dir() or not path.exists():
            out.append(rel)
    return sorted(out)


def _ingested_documents(index: Index, ingested: ManifestWatch, paths: list[str],
                        look: bool) -> set[str]:
    """The documents an event batch asks to plan again (`ManifestWatch.affected`), with those
    the index holds of the same bytes elsewhere (a document moved since its ingest), and the
    page notes of a document the batch finds moved (`moved_entry`): they are private where it
    lies now (`documents/places.py`), which their own files never show."""
    documents, digests = ingested.affected(paths, look)
    if digests:
        documents |= {p for p, digest in index.ledger.hashes(index.namespace).items()
                      if digest in digests and is_document(p)}
    root = index.config.vault
    for rel in filter(is_document, paths):
        try:
            moved = moved_entry(root, rel, file_hash(root / rel))
        except OSError:  # gone again, or not readable: its own plan says so
            continue
        if moved is not None:
            documents |= set(moved[1]["notes"])
    return documents


async def watch(
    index: Index, stop_event: asyncio.Event, on_change: OnChange | None = None,
    on_settings: OnSettings | None = None, on_queue: Callable[[int], None] | None = None,
    *, follow_data: bool = True,
) -> None:
    """Apply vault changes to `index` until `stop_event` is set; a failed apply is raised.

    Events keep being read while a batch is applied: they are handed to `index.expedite` (so a
    private flip reaches the index while the running write waits for its embedding, not after it)
    and then applied as the next batch. `on_change` receives apply_paths' summary ("paths": every
    path applied, a changed folder's notes included) after every batch that applied any path;
    `on_settings` is called when a settings file changed (None: reconcile here, and again when a
    missing ora.yaml's grace is over: `recheck_missing`); `on_queue` the
    number of paths waiting or being applied, whenever it changes. On stop, a batch being applied
    is finished; waiting paths are left to the next start's reconcile.

    With `follow_data` (`ora watch`), the data folder deleted under the watcher ends it with
    `data_folder_deleted` (within `DATA_POLL_SECONDS`, or at the first batch that fails for it);
    the server follows its data folder itself (`instance.watch_record`) and passes False.
    """
    vault = index.config.vault.resolve()
    data = index.config.data
    settings = _settings_paths(vault)
    ingested = ManifestWatch(vault)  # `ora ingest` elsewhere: its documents are re-planned
    pending: set[str] = set()
    folders: set[str] = set()  # read from the ledger again when their batch is applied
    ready = asyncio.Event()
    applying = 0
    closing = False
    deleted = deletion_check(data)

    def data_gone() -> bool:
        return follow_data and deleted()

    def tell() -> None:
        if on_queue is not None:
            on_queue(len(pending) + applying)

    async def read_events() -> None:
        async for changes in awatch(vault, watch_filter=_accept(vault),
                                    debounce=int(index.config.debounce_ms),
                                    stop_event=stop_event):
            if any(_named(path) in settings for _change, path in changes):
                result = (on_settings() if on_settings is not None
                          else await asyncio.to_thread(index.reconcile))
                if inspect.isawaitable(result):
                    await result
                settings_read.set()
            rels = {rel for _change, path in changes if (rel := _relative(vault, path))}
            paths = note_paths(index, vault, rels)
            paths = sorted({*paths, *await asyncio.to_thread(  # it reads the ledger, hashes
                _ingested_documents, index, ingested, paths,
                any(_named(path) in ingested.paths for _change, path in changes))})
            if paths:
                # notes tagged private leave non-private answers now, not as each is applied
                try:
                    await asyncio.to_thread(index.hold_flips, paths)
                except Exception as err:
                    if data_gone():  # its ledger went with it: the cause, not the failed read
                        raise data_folder_deleted(data, "watching", "ora watch") from err
                    raise
                index.expedite(paths)
                pending.update(paths)
            folders.update(changed_folders(vault, rels))
            if paths or folders:
                ready.set()
                tell()

    async def apply_batches() -> None:
        nonlocal applying
        while not closing:
            await ready.wait()
            ready.clear()
            if closing or stop_event.is_set():
                return
            paths, gone = sorted(pending), sorted(folders)
            pending.clear()
            folders.clear()
            applying = len(paths)
            tell()
            try:
                summary = await asyncio.to_thread(index.apply_paths, paths, gone)
            except Exception as err:
                if data_gone():  # its stores went with it: the cause, not the failed write
                    raise data_folder_deleted(data, "watching", "ora watch") from err
                raise
            finally:
                applying = 0
                tell()
            if on_change is not None and summary["paths"]:
                result = on_change(summary)
                if inspect.isawaitable(result):
                    await result

    async def follow() -> None:
        if await until_deleted(data_gone, stop_event):
            raise data_folder_deleted(data, "watching", "ora watch")

    async def recheck_missing() -> None:
        """A missing ora.yaml keeps the settings it last had until a read finds it missing long
        enough after the first (vault_settings.py `MISSING_GRACE_S`), and no file event comes
        then: the vault is reconciled at that time, as after a change (the server's lane does
        this for itself)."""
        while True:
            delay = missing_settings_recheck(index.config.vault, data)
            if delay is None:
                await settings_read.wait()
                settings_read.clear()
                continue
            # a little after: the read must find the grace over, not a moment before its end
            await asyncio.sleep(delay + 0.2)
            try:
                await asyncio.to_thread(index.reconcile)
            except Exception as err:
                if data_gone():
                    raise data_folder_deleted(data, "watching", "ora watch") from err
                raise

    settings_read = asyncio.Event()  # set after each settings change was applied
    reader = asyncio.create_task(read_events(), name="ora-watcher-read")
    applier = asyncio.create_task(apply_batches(), name="ora-watcher-apply")
    tasks = {reader, applier}
    if on_settings is None:
        tasks.add(asyncio.create_task(recheck_missing(), name="ora-watcher-settings"))
    if follow_data:
        tasks.add(asyncio.create_task(follow(), name="ora-watcher-data"))
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        closing = True
        ready.set()  # an idle applier wakes and returns; a busy one finishes its batch first
        for task in tasks - {applier}:
            if not task.done():
                task.cancel()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        # What waits now is the next start's to catch up (its reconcile): a watcher that failed
        # or stopped counts nothing in the queue any more.
        pending.clear()
        folders.clear()
        applying = 0
        tell()
    failures = [r for r in results if isinstance(r, Exception)]
    for failure in failures:  # the data folder deleted is the cause of any other failure
        if isinstance(failure, OraError) and failure.code == "data_folder_deleted":
            raise failure
    if failures:
        raise failures[0]
