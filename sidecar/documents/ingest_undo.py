"""`ora ingest --undo`: the latest ingest undone, as far as the notes allow.

Each note of the journal is put back only while it holds what ingest wrote: a new note goes to
the trash (one deleted since counts as undone), an updated one gets its earlier text back, a
trashed one comes back from the trash, and the document's manifest entry is as before. A note
edited since is kept as it is and named with the reason; the journal then records that its
undo was done as far as it could be (`undo_kept`), so the next `--undo` goes on to the ingest
before it instead of replaying this one (`latest_journal`'s filter, as extraction passes over
the journals it may not undo).

Outside private mode (`private` false: the HTTP route without `"private": true`) an ingest that
involves a private document or note is passed over as if it were not there, as extraction's
undo does: the latest other ingest is undone, or the answer is NotFound, word for word the one
when there is none at all; so a non-private undo never touches a private note nor tells that a
private ingest exists.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from sidecar.documents.ingest import KIND
from sidecar.documents.manifest import read_manifest, write_manifest
from sidecar.errors import Conflict, NotFound, OraError
from sidecar.vault.journal import drop_journal, journal_lock, latest_journal, update_journal
from sidecar.vault.note import parse_note
from sidecar.vault.scan import read_regular, vault_path
from sidecar.vault.temp_files import sweep_temp_files
from sidecar.vault.trash import move_to_trash, restore_bytes, restore_from_trash
from sidecar.vault.trash_place import trash_of
from sidecar.vault.vault_settings import (
    VaultSettings,
    is_private_path,
    load_vault_settings,
    note_private,
)

# What the user is told of a note an undo keeps because it changed since ingest wrote it.
_KEPT = {
    "create": "edited since ingest wrote it, so kept as it is; delete it by hand if you no "
              "longer want it",
    "update": "edited since ingest rewrote it, so kept as it is (its text before that ingest "
              "is in the journal, or for a private note in the hidden file beside it)",
    "trash": "a note is at its path again, so the one ingest moved to the trash stays there",
}
UNDO_KEPT = "undo_kept"  # a journal's record of an undo that kept notes: it is not undone again


def _undoable(doc: dict[str, Any]) -> bool:
    return UNDO_KEPT not in doc


def _involves_private(root: Path, doc: dict[str, Any], settings: VaultSettings) -> bool:
    """Whether an ingest involves private text: its document (or the path it moved from) is
    private now, it kept a private note's earlier text beside the note (`before_file`), or a
    note it wrote lies where `private` covers or is private now (its tag, its document). A
    note that cannot be read cannot be told public; settings that cannot say which folders are
    private make every path so (privacy fails closed)."""
    documents = [str(doc["document"]), *([str(doc["moved_from"])] if doc.get("moved_from")
                                         else [])]
    if any(is_private_path(settings, rel) for rel in documents):
        return True
    for entry in doc["files"]:
        rel = str(entry["path"])
        if "before_file" in entry or is_private_path(settings, rel):
            return True
        try:
            data = read_regular(vault_path(root, rel))
        except FileNotFoundError:
            continue  # gone: it holds nothing to hide
        except (OSError, ValueError, OraError):
            return True
        if note_private(parse_note(data.decode("utf-8", "replace"), rel), settings):
            return True
    return False


def undo_ingest(vault: str | Path, *, data: Path | None, private: bool = True) -> dict[str, Any]:
    """Undo the latest ingest not undone yet (outside private mode, the latest that involves
    no private document or note; the CLI, the owner's terminal, has no such mode, the HTTP
    route passes the request's): {"document", "undone": paths, "refused": [{"path",
    "reason"}] (the notes kept as they are, and why)}; NotFound when there is none.
    A note of a private folder goes to the trash inside it (`trash_of`; settings that cannot
    say which folders are private make every folder so: privacy fails closed)."""
    root = Path(vault)
    with journal_lock(root):
        settings = load_vault_settings(root, data)
        return _undo(root, settings, lambda doc: _undoable(doc) and (
            private or not _involves_private(root, doc, settings)))


def _undo_note(root: Path, entry: dict[str, Any], settings: VaultSettings) -> None:
    rel = entry["path"]
    if entry["action"] == "create":
        with contextlib.suppress(NotFound):  # deleted since: nothing left to undo
            move_to_trash(root, rel, entry["after_sha256"], trash_of(settings, rel))
    elif entry["action"] == "update":
        backup = entry.get("before_file")
        before = (vault_path(root, str(backup)).read_bytes() if backup
                  else str(entry["before"]).encode("utf-8"))
        restore_bytes(root, rel, before, entry["after_sha256"])
        if backup:
            with contextlib.suppress(OSError, OraError):
                vault_path(root, str(backup)).unlink()
    elif "trashed" in entry:
        restore_from_trash(root, entry["trashed"], rel, entry["before_sha256"])


def _sweep(root: Path, files: list[dict[str, Any]]) -> None:
    """Remove the temporary copies an apply killed mid-write left of the notes this undo took
    back (`sweep_temp_files`): under the ingest lock that writer is gone, and no other writes
    a note the undo has just removed or restored; a folder holding only them is removed with
    the rest."""
    names: dict[str, set[str]] = {}
    for entry in files:
        note = PurePosixPath(str(entry["path"]))
        names.setdefault(note.parent.as_posix(), set()).add(note.name)
    for folder, held in names.items():
        with contextlib.suppress(OraError):
            sweep_temp_files(vault_path(root, folder), held)


def _undo(root: Path, settings: VaultSettings,
          wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    journal, doc, digest = latest_journal(root, KIND, "ingest", wanted)
    undone: list[str] = []
    refused: list[dict[str, str]] = []
    pending = []
    for entry in doc["files"]:
        rel = entry["path"]
        try:
            _undo_note(root, entry, settings)
            undone.append(rel)
        except (OraError, OSError) as exc:
            reason = (_KEPT.get(str(entry["action"]), "") if isinstance(exc, Conflict)
                      else getattr(exc, "message", str(exc)))
            refused.append({"path": rel, "reason": reason or str(exc)})
            pending.append(entry)
    manifest = dict(read_manifest(root))
    if doc.get("manifest_before") is None:
        manifest.pop(str(doc["document"]), None)
    else:
        manifest[str(doc["document"])] = doc["manifest_before"]
    if doc.get("moved_from") and isinstance(doc.get("moved_before"), dict):
        manifest[str(doc["moved_from"])] = doc["moved_before"]
    write_manifest(root, manifest)
    # the folders the apply made, if empty (a journal from before made_folders: the notes' own)
    made = doc.get("made_folders")
    folders = made if isinstance(made, list) else sorted(
        {PurePosixPath(rel).parent.as_posix() for rel in undone})
    _sweep(root, [entry for entry in doc["files"] if entry["path"] in undone])
    for folder in folders:
        with contextlib.suppress(OSError, OraError):
            vault_path(root, str(folder)).rmdir()
    if pending:  # kept for the record; done as far as it goes, so never replayed
        doc["files"] = pending
        doc[UNDO_KEPT] = {"date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                          "refused": refused}
        update_journal(journal, doc, digest)
    else:
        drop_journal(journal)
    return {"document": doc["document"], "undone": undone, "refused": refused}
