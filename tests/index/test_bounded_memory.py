"""A cold index holds a batch's chunks at a time, never the vault's (issue 17): the syncer's
high-water mark of planned-but-unwritten chunks stays under one batch plus one note."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.index import sync

from .conftest import OpenIndex, note, write

SECTIONS = 4  # the most chunks of one note below


def _vault(root: Path, notes: int) -> None:
    for i in range(notes):
        parts = "".join(f"\n\n## Part {j}\n\nPoint {j} of note {i} about tides and moons."
                        for j in range(i % SECTIONS))
        text = note("engram", f"# Note {i}\n\nA tide note.{parts}")
        write(root, f"Engrams/Note {i:03d}.md", text)


def test_a_cold_index_holds_at_most_a_batch_and_one_note_of_chunks(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sync, "BATCH_CHUNKS", 10)
    monkeypatch.setattr(sync, "LEDGER_WINDOW", 7)  # several windows of ledger rows, too
    root = tmp_path / "v"
    _vault(root, 40)
    index = open_idx(root)
    result = index.reconcile()
    bound = sync.BATCH_CHUNKS - 1 + SECTIONS
    assert result["chunks"] > 4 * bound and result["errors"] == []
    syncer = index._need_writer()
    assert 0 < syncer.held_peak <= bound
    # A restart plans nothing; deleting files across several windows removes all of theirs.
    assert index.reconcile()["embedded"] == 0
    for i in range(0, 40, 2):
        (root / f"Engrams/Note {i:03d}.md").unlink()
    after = index.reconcile()
    assert after["files"] == 20 and after["removed"] > 0
    assert after["chunks"] == sum(len(r.chunk_ids) for r in index.ledger.rows("default").values())
    assert syncer.held_peak <= bound
