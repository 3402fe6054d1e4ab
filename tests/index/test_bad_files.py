"""Binary, huge, non-UTF-8 and invalid-YAML notes are reported; the rest of the vault indexes."""

from __future__ import annotations

from pathlib import Path

from .conftest import KETTLE, OpenIndex, note, write


def test_bad_files_are_reported_and_kept_out(tmp_path: Path, open_idx: OpenIndex) -> None:
    root = tmp_path / "v"
    write(root, "Engrams/Kettle.md", KETTLE)
    write(root, "Binary.md", b"\x89PNG\x00\x00binary")
    write(root, "Latin1.md", "caf\xe9".encode("latin-1"))
    write(root, "Broken.md", "---\ntype: [engram\n---\nBody\n")
    write(root, "Huge.md", note("engram", "word " * 5000))
    index = open_idx(root, max_file_bytes=4096)
    result = index.reconcile()
    assert result["files"] == 5
    bad = ["Binary.md", "Broken.md", "Huge.md", "Latin1.md"]
    assert [e["path"] for e in result["errors"]] == bad
    assert all(e["message"] for e in result["errors"])
    assert index.bm25_search("limescale", 5, private=False)

    write(root, "Broken.md", note("engram", "Fixed body about zeppelins."))
    result = index.reconcile()
    assert [e["path"] for e in result["errors"]] == ["Binary.md", "Huge.md", "Latin1.md"]
    assert index.bm25_search("zeppelins", 5, private=False)


def test_non_note_files_and_dot_folders_are_ignored(tmp_path: Path, open_idx: OpenIndex) -> None:
    root = tmp_path / "v"
    write(root, "Engrams/Kettle.md", KETTLE)
    write(root, ".obsidian/workspace.md", KETTLE)
    write(root, ".trash/Old.md", KETTLE)
    write(root, "Engrams/picture.png", b"\x89PNG")
    write(root, "Engrams/data.csv", "limescale")
    write(root, ".obsidian/notes.txt", "limescale")
    write(root, "Engrams/notes.txt", "limescale")  # a document (docs/documents.md)
    result = open_idx(root).reconcile()
    assert (result["files"], result["documents"], result["errors"]) == (2, 1, [])
