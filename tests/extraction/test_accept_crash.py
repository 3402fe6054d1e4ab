"""A crash mid-accept (SIGKILL between an engram's file and anything after it) leaves a journal
that names every engram written, so undo removes them all; an engram journalled but never made
is passed over."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.cleaning import Queue
from sidecar.extraction import accept
from sidecar.extraction.accept import undo_extraction
from sidecar.models.embedder import Embedder
from sidecar.vault import new_notes
from sidecar.vault.journal import journal_folder

from .conftest import CRUST, CRUST_TURNS, planned_crust

NOTE, TURNS = CRUST, CRUST_TURNS


class Killed(BaseException):
    """The process dying: nothing after it runs (no `except` of the accept catches it)."""


@pytest.mark.parametrize("when", ["after the file", "before the file"])
async def test_an_accept_killed_around_an_engram_file_is_undone_entirely(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch, when: str,
) -> None:
    vault, config, plan = await planned_crust(tmp_path, embedder)
    assert len(plan.proposals) == 1
    before = (vault / NOTE).read_bytes()
    create = new_notes.create_note

    def killed(vault_: Path, rel: str, text: str) -> str:
        if when == "after the file":
            create(vault_, rel, text)
        raise Killed

    monkeypatch.setattr(new_notes, "create_note", killed)
    queue = Queue(config.data, vault)
    try:
        with pytest.raises(Killed):
            accept(vault, int(config.max_file_bytes), plan, plan.proposals, queue, data=None)
        monkeypatch.setattr(new_notes, "create_note", create)  # the restarted server's
        made = sorted(p.name for p in (vault / "Engrams").glob("*.md"))
        assert len(made) == (1 if when == "after the file" else 0)
        undone = undo_extraction(vault, queue, private=False, data=None)
    finally:
        queue.close()
    assert undone.removed == [f"Engrams/{name}" for name in made] and undone.refused == []
    assert list((vault / "Engrams").glob("*.md")) == []
    assert (vault / NOTE).read_bytes() == before and not list(journal_folder(vault).glob("*"))
