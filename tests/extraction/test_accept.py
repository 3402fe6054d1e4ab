"""Keeping proposals is all or nothing for the chat note's record: a chat note that changed
since the plan keeps nothing, and an undo after a kept extraction puts every byte back; outside
private mode an undo passes over an extraction that involves a private note."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sidecar.cleaning import Queue
from sidecar.errors import Conflict, NotFound
from sidecar.extraction import IndexEngrams, accept, load_source, plan_extraction
from sidecar.extraction.accept import undo_extraction
from sidecar.index import open_index
from sidecar.models.embedder import Embedder
from sidecar.settings import Config
from sidecar.vault import temp_files
from sidecar.vault.journal import journal_folder
from tests.notes import write_notes

from .conftest import CRUST, CRUST_TURNS, chat_text, planned_crust, settings

NOTE, TURNS = CRUST, CRUST_TURNS


async def test_a_chat_note_changed_since_the_plan_keeps_nothing(
    tmp_path: Path, embedder: Embedder,
) -> None:
    vault, config, plan = await planned_crust(tmp_path, embedder)
    assert len(plan.proposals) == 1
    path = vault / NOTE
    path.write_text(path.read_text(encoding="utf-8") + "\nMy own line.\n", encoding="utf-8")
    edited = path.read_bytes()
    queue = Queue(config.data, vault)
    try:
        with pytest.raises(Conflict):
            accept(vault, int(config.max_file_bytes), plan, plan.proposals, queue, data=None)
        assert not (vault / "Engrams").exists() and not journal_folder(vault).exists()
        assert path.read_bytes() == edited

        # Planned again, it is kept; the undo restores the note as it was before the accept.
        with open_index(config, embedder=embedder) as index:
            plan = await plan_extraction(config, load_source(config, note=NOTE),
                                         IndexEngrams(index, embedder, private=False))
        done = accept(vault, int(config.max_file_bytes), plan, plan.proposals, queue, data=None)
        assert done.changed == [*done.written, NOTE] and len(done.written) == 1
        undone = undo_extraction(vault, queue, private=False, data=None)
    finally:
        queue.close()
    assert undone.removed == done.written and undone.restored == [NOTE]
    assert path.read_bytes() == edited and not journal_folder(vault).exists()
    assert (vault / ".trash" / Path(done.written[0]).name).is_file()


async def _keep(config: Config, embedder: Embedder, queue: Queue, note: str,
                private: bool) -> list[str]:
    """Extract the chat note at `note` and keep every proposal; the engrams written."""
    with open_index(config, embedder=embedder) as index:
        index.reconcile()
        plan = await plan_extraction(config, load_source(config, note=note, private=private),
                                     IndexEngrams(index, embedder, private=private))
    return accept(config.vault, int(config.max_file_bytes), plan, plan.proposals, queue,
                  data=None).written


async def test_a_non_private_undo_passes_over_a_private_extraction(
    tmp_path: Path, embedder: Embedder,
) -> None:
    # Before: a non-private undo trashed the engrams of the latest extraction, a private one,
    # and rewrote the private chat note, answering its journal and `private_hidden: 3`.
    secret = "Chats/Ora/diary.md"
    vault = write_notes(tmp_path / "vault", {
        NOTE: chat_text("crust", TURNS),
        secret: chat_text("diary", [("user", "My zqx starter lives in the fridge door.")],
                          private=True)})
    empty = write_notes(tmp_path / "empty", {NOTE: chat_text("crust", TURNS)})
    config = settings(vault)
    queue = Queue(config.data, vault)
    try:
        public = await _keep(config, embedder, queue, NOTE, private=False)
        hidden = await _keep(config, embedder, queue, secret, private=True)
        kept = {rel: (vault / rel).read_bytes() for rel in [secret, *hidden]}
        # As if the private extraction were not there: the public one before it is undone.
        undone = undo_extraction(vault, queue, private=False, data=None)
        assert undone.removed == public and undone.restored == [NOTE]
        answer = undone.as_json(private=False)
        assert answer["private_hidden"] == 0 and "000002" not in json.dumps(answer)
        assert {rel: (vault / rel).read_bytes() for rel in kept} == kept
        # Then nothing is left to undo outside private mode, word for word as in a vault
        # that never had an extraction.
        with pytest.raises(NotFound) as passed_over:
            undo_extraction(vault, queue, private=False, data=None)
        with pytest.raises(NotFound) as nothing:
            undo_extraction(empty, queue, private=False, data=None)
        assert passed_over.value.message == nothing.value.message
        # In private mode it is undone.
        undone = undo_extraction(vault, queue, private=True, data=None)
        assert undone.removed == hidden and undone.restored == [secret]
    finally:
        queue.close()
    assert not journal_folder(vault).exists()


async def test_a_non_private_undo_passes_over_an_extraction_whose_note_turned_private(
    tmp_path: Path, embedder: Embedder,
) -> None:
    vault = write_notes(tmp_path / "vault", {NOTE: chat_text("crust", TURNS)})
    config = settings(vault)
    queue = Queue(config.data, vault)
    try:
        (written,) = await _keep(config, embedder, queue, NOTE, private=False)
        (vault / "ora.yaml").write_text("private:\n  - Engrams/\n", encoding="utf-8")
        with pytest.raises(NotFound):
            undo_extraction(vault, queue, private=False, data=None)
        assert (vault / written).is_file()
        assert undo_extraction(vault, queue, private=True, data=None).removed == [written]
    finally:
        queue.close()


async def test_an_undone_engram_of_a_private_folder_goes_to_the_trash_inside_it(
    tmp_path: Path, embedder: Embedder,
) -> None:
    # Before: to the vault's .trash/, out of the folder a user keeps out of sync and git.
    vault = write_notes(tmp_path / "vault", {
        NOTE: chat_text("crust", TURNS),
        "ora.yaml": "private: [Engrams/]\n"})
    config = settings(vault)
    queue = Queue(config.data, vault)
    try:
        written = await _keep(config, embedder, queue, NOTE, private=False)
        assert [Path(p).parent.as_posix() for p in written] == ["Engrams"]
        undone = undo_extraction(vault, queue, private=True, data=None)
    finally:
        queue.close()
    assert undone.removed == written
    assert (vault / "Engrams/.trash" / Path(written[0]).name).is_file()
    assert not (vault / ".trash").exists()


async def test_an_accept_removes_what_an_accept_killed_mid_write_left(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: an engram's or the journal's temporary copy stayed for good.
    monkeypatch.setattr(temp_files, "TEMP_STALE_S", -1.0)  # a file's ctime cannot be set back
    vault = write_notes(tmp_path / "vault", {NOTE: chat_text("crust", TURNS),
                                             "Engrams/Mine.md": "# Mine\n\nMy own note.\n"})
    left = [vault / "Engrams/.Steam.md.0123abcd.ora-tmp",
            journal_folder(vault) / ".extract-000001.json.89abcdef.ora-tmp"]
    kept = [vault / "Engrams/.Mine.md.0123abcd.ora-tmp.bak", vault / "Engrams/Mine.md"]
    for path in [*left, kept[0]]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("half written", encoding="utf-8")
    config = settings(vault)
    queue = Queue(config.data, vault)
    try:
        await _keep(config, embedder, queue, NOTE, private=False)
    finally:
        queue.close()
    assert [p for p in left if p.exists()] == [] and all(p.exists() for p in kept)
