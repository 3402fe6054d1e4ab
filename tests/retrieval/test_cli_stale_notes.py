"""`ora search` (no server, no watcher) leaves out notes changed since `ora index`, as `ora ask`
does: a note tagged private since is not shown outside private mode, and no stale lines are
cited."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main

from .conftest import IndexVault, NoteSpec

DIARY = "Notes/Diary.md"
GARDEN = "Notes/Garden.md"
HUB = "Engrams/Hub.md"
LINKED = "Engrams/Linked.md"

NOTES = [
    NoteSpec(DIARY, "engram", "# Diary\n\nAardvarks dig burrows at night near the old mill."),
    NoteSpec(GARDEN, "engram", "# Garden\n\nGardening notes about tomatoes and basil."),
    NoteSpec(HUB, "engram", "# Hub\n\nPangolins curl into a ball of keratin scales.",
             extra={"relationships": {"supports": ["[[Linked]]"]}}),
    NoteSpec(LINKED, "engram", "# Linked\n\nQuarterly tax returns are due in April."),
]


@pytest.fixture(autouse=True)
def _int8(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")  # the embedder the index was built with


def _search(vault: Path, query: str, capsys: pytest.CaptureFixture[str],
            *flags: str) -> tuple[list[dict[str, Any]], str]:
    assert main(["search", str(vault), query, "--json", "--no-rerank", *flags]) == 0
    out = capsys.readouterr()
    return json.loads(out.out)["results"], out.err


def _tag_private(vault: Path, rel: str) -> None:
    with (vault / rel).open("a", encoding="utf-8") as file:
        file.write("\nThis is private now. #private\n")


def test_cli_search_leaves_out_a_note_tagged_private_since_indexing(
    index_vault: IndexVault, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = index_vault(NOTES).config.vault
    assert DIARY in [r["path"] for r in _search(vault, "aardvarks burrows", capsys)[0]]
    _tag_private(vault, DIARY)
    results, err = _search(vault, "aardvarks burrows", capsys)
    assert DIARY not in [r["path"] for r in results]
    assert all("Aardvarks" not in r["text"] for r in results)
    assert "1 note left out" in err and "ora index" in err and DIARY not in err


def test_cli_search_cites_no_stale_lines_of_a_note_edited_since_indexing(
    index_vault: IndexVault, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = index_vault(NOTES).config.vault
    file = vault / GARDEN
    file.write_text("a\nb\nc\n" + file.read_text(encoding="utf-8"), encoding="utf-8")
    for mode in ((), ("--private",)):  # its lines moved: lines 1-3 now hold "a b c"
        results, err = _search(vault, "gardening tomatoes", capsys, *mode)
        assert GARDEN not in [r["path"] for r in results]
        assert "1 note left out" in err


def test_cli_search_expand_leaves_out_a_linked_note_tagged_private_since(
    index_vault: IndexVault, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = index_vault(NOTES).config.vault
    found = _search(vault, "pangolins keratin", capsys, "--expand", "--k", "1")[0]
    assert LINKED in [r["path"] for r in found if "expanded_from" in r]
    _tag_private(vault, LINKED)
    found = _search(vault, "pangolins keratin", capsys, "--expand", "--k", "1")[0]
    assert LINKED not in [r["path"] for r in found]


def test_cli_search_leaves_out_a_same_size_edit_whose_mtime_was_put_back(
    index_vault: IndexVault, capsys: pytest.CaptureFixture[str]
) -> None:
    """Review: the check trusted (mtime, size), so `touch -r` after a same-size edit that tags
    the note private kept it in non-private answers (the ledger's ctime and inode tell)."""
    vault = index_vault(NOTES).config.vault
    note = vault / GARDEN
    text = note.read_text(encoding="utf-8")
    before = note.stat()
    edited = text.replace("tomatoes and basil.", "#private and basil.")
    assert len(edited.encode()) == len(text.encode())
    note.write_text(edited, encoding="utf-8")
    os.utime(note, ns=(before.st_atime_ns, before.st_mtime_ns))
    results, err = _search(vault, "gardening notes basil", capsys)
    assert GARDEN not in [r["path"] for r in results]
    assert "1 note left out" in err


def test_cli_search_names_no_note_tagged_private_since_in_relationships(
    index_vault: IndexVault, capsys: pytest.CaptureFixture[str]
) -> None:
    """Review: Hub's `relationships` still named Linked, tagged #private since `ora index` (the
    relation graph follows the ledger's hashes, not the files)."""
    vault = index_vault(NOTES).config.vault
    results = _search(vault, "pangolins keratin", capsys)[0]
    assert {r["path"]: r["relationships"] for r in results}[HUB] == {"supports": [LINKED]}
    _tag_private(vault, LINKED)
    results, err = _search(vault, "pangolins keratin", capsys)
    assert {r["path"]: r["relationships"] for r in results}[HUB] == {}
    assert LINKED not in json.dumps(results) and LINKED not in err
    assert "1 note left out" in err


OLD = "Engrams/Kettle old.md"
NEW = "Engrams/Kettle new.md"
KETTLES = [
    NoteSpec(OLD, "engram", "# Kettle old\n\nDescale the kettle with vinegar every month."),
    NoteSpec(NEW, "engram", "# Kettle new\n\nDescale the kettle with citric acid instead.",
             extra={"relationships": {"supersedes": ["[[Kettle old]]"]}}),
]


def test_cli_search_names_no_successor_tagged_private_since_in_superseded_by(
    index_vault: IndexVault, capsys: pytest.CaptureFixture[str]
) -> None:
    """A note superseded by one tagged #private since indexing is neither said superseded nor
    named a successor: the successor may be private now."""
    vault = index_vault(KETTLES).config.vault
    old = {r["path"]: r for r in _search(vault, "descale kettle", capsys)[0]}[OLD]
    assert old["superseded_by"] == ["[[Engrams/Kettle new]]"]
    _tag_private(vault, NEW)
    results, err = _search(vault, "descale kettle", capsys)
    old = {r["path"]: r for r in results}[OLD]
    assert "superseded_by" not in old and "superseded" not in old["flags"]
    assert NEW not in json.dumps(results) and "Kettle new" not in json.dumps(results)
    assert "1 note left out" in err
