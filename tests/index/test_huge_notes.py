"""One huge note no longer holds the write path for minutes (issue 10 item 13): the index keeps
the note's first chunks within schema/limits.json and every other note indexes as usual."""

from __future__ import annotations

from pathlib import Path

from sidecar.chunking.limits import note_limits

from .conftest import KETTLE, OpenIndex, note, write


def test_a_note_of_20k_headings_is_indexed_up_to_the_caps(
    tmp_path: Path, open_idx: OpenIndex
) -> None:
    """Before: 20,000 chunks and 119 s, with every other change queued behind it."""
    body = "".join(f"## Heading {i}\n\nline {i} of the long note\n\n" for i in range(20_000))
    root = tmp_path / "v"
    write(root, "Engrams/Huge.md", note("engram", f"# Huge\n\n{body}"))
    write(root, "Engrams/Kettle.md", KETTLE)
    index = open_idx(root)
    result = index.reconcile()
    rows = index.ledger.rows(index.namespace)
    assert len(rows["Engrams/Huge.md"].chunk_ids) == note_limits().max_chunks
    assert rows["Engrams/Kettle.md"].chunk_ids and result["errors"] == []
    assert result["chunks"] == note_limits().max_chunks + len(rows["Engrams/Kettle.md"].chunk_ids)
