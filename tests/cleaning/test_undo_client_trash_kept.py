"""Undo of a "Wrong → delete" the client was left to trash (`client_trash`) when the client
never trashed the note: it reopens the pair and writes nothing, whatever the note holds now (the
plugin keeps a note edited before its trash step and says "Undo last resolution reopens the
pair"; an answer lost to a timeout never reached it). A trash Ora can see (the vault's `.trash/`)
still tells a new note made in its place, which the undo refuses."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from sidecar.cleaning.resolve import resolve
from sidecar.cleaning.scan import ScanReport
from sidecar.cleaning.store import Pair, Queue
from sidecar.cleaning.undo import undo_last
from sidecar.errors import Conflict
from sidecar.settings import Config

from .conftest import NOTES

Scan = Callable[[], ScanReport]
OLD = "Engrams/Vitamin C and colds.md"
EDIT = "\nedited in Obsidian a moment later\n"


def _deleted_by_client(run_scan: Scan, queue: Queue, config: Config) -> Pair:
    run_scan()
    (pair,) = queue.pairs("open", kind="engram")
    resolve(config, queue, pair.id, "wrong", note=OLD, delete=True, client_trash=True)
    return pair


def test_undo_reopens_the_pair_of_a_client_trash_whose_note_was_edited_and_kept(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    # Before: 409 "exists again since that resolution; nothing was undone", the pair left
    # "resolved: deleted" while the note lived on.
    pair = _deleted_by_client(run_scan, queue, config)
    with (vault / OLD).open("a", encoding="utf-8") as note:
        note.write(EDIT)  # before the plugin's trash step, which then keeps it
    undone = undo_last(config, queue)
    assert [p.id for p in undone.pairs] == [pair.id] and undone.pairs[0].status == "open"
    assert queue.get(pair.id) == pair
    assert (vault / OLD).read_text(encoding="utf-8") == NOTES[OLD] + EDIT  # the user's, as is
    assert undone.changed == []  # nothing written, so nothing said to be restored
    assert not (vault / ".trash").exists()


def test_undo_refuses_a_new_note_in_the_place_of_one_the_client_trashed_to_the_vault_trash(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    _deleted_by_client(run_scan, queue, config)
    (vault / ".trash").mkdir()  # Obsidian's "Deleted files: .trash folder", a name taken
    (vault / ".trash" / "Vitamin C and colds.md").write_text("another note\n", encoding="utf-8")
    shutil.move(vault / OLD, vault / ".trash" / "Vitamin C and colds 1.md")
    (vault / OLD).write_text("a new note in its place\n", encoding="utf-8")
    with pytest.raises(Conflict, match="exists again"):
        undo_last(config, queue)
    assert (vault / OLD).read_text(encoding="utf-8") == "a new note in its place\n"
    # moved away by the user, the trashed note comes back from the journal
    (vault / OLD).unlink()
    undo_last(config, queue)
    assert (vault / OLD).read_text(encoding="utf-8") == NOTES[OLD]
