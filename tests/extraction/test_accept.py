"""Keeping proposals is all or nothing for the chat note's record: a chat note that changed
since the plan keeps nothing, and an undo after a kept extraction puts every byte back."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.cleaning import Queue
from sidecar.errors import Conflict
from sidecar.extraction import IndexEngrams, accept, load_source, plan_extraction
from sidecar.extraction.accept import undo_extraction
from sidecar.index import open_index
from sidecar.models.embedder import Embedder
from sidecar.vault.journal import journal_folder
from tests.notes import write_notes

from .conftest import chat_text, settings

NOTE = "Chats/Ora/crust.md"
TURNS = [("assistant", "Steam in the first minutes of baking gives bread a glossy crust.")]


async def test_a_chat_note_changed_since_the_plan_keeps_nothing(
    tmp_path: Path, embedder: Embedder,
) -> None:
    vault = write_notes(tmp_path / "vault", {NOTE: chat_text("crust", TURNS)})
    config = settings(vault)
    with open_index(config, embedder=embedder) as index:
        index.reconcile()
        plan = await plan_extraction(config, load_source(config, note=NOTE),
                                     IndexEngrams(index, embedder, private=False))
    assert len(plan.proposals) == 1
    path = vault / NOTE
    path.write_text(path.read_text(encoding="utf-8") + "\nMy own line.\n", encoding="utf-8")
    edited = path.read_bytes()
    queue = Queue(config.data, vault)
    try:
        with pytest.raises(Conflict):
            accept(vault, int(config.max_file_bytes), plan, plan.proposals, queue)
        assert not (vault / "Engrams").exists() and not journal_folder(vault).exists()
        assert path.read_bytes() == edited

        # Planned again, it is kept; the undo restores the note as it was before the accept.
        with open_index(config, embedder=embedder) as index:
            plan = await plan_extraction(config, load_source(config, note=NOTE),
                                         IndexEngrams(index, embedder, private=False))
        done = accept(vault, int(config.max_file_bytes), plan, plan.proposals, queue)
        assert done.changed == [*done.written, NOTE] and len(done.written) == 1
        undone = undo_extraction(vault, queue)
    finally:
        queue.close()
    assert undone.removed == done.written and undone.restored == [NOTE]
    assert path.read_bytes() == edited and not journal_folder(vault).exists()
    assert (vault / ".trash" / Path(done.written[0]).name).is_file()
