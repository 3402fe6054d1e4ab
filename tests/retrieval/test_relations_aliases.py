"""A `relationships` link names a note as `vault/links.py` resolves it: by file name, then path,
then one of a note's `aliases`; an edit of a note's aliases is followed, and outside private mode
a private note's aliases name nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from sidecar.data_folder import private_folder
from sidecar.retrieval import relations
from sidecar.retrieval.relations import RELATIONS_FILE, search_related
from sidecar.retrieval.search import SearchOptions

from .conftest import IndexVault, NoteSpec, SearchVault, write_vault

OLD, NEW = "Kiwi old.md", "Kiwi new.md"
QUERY = "kiwi eggs"


def _notes(old_aliases: list[str]) -> list[NoteSpec]:
    return [
        NoteSpec(OLD, "engram", "# Kiwi old\n\nKiwi lay eggs, says the old note.",
                 extra={"aliases": old_aliases}),
        NoteSpec(NEW, "engram", "# Kiwi new\n\nKiwi eggs are twenty percent of body weight.",
                 extra={"relationships": {"supersedes": ["[[Apteryx]]"]}}),
    ]


async def _results(v: SearchVault, *, private: bool = False) -> dict[str, dict[str, Any]]:
    doc = await search_related(v.index, v.embedder, None, QUERY,
                               SearchOptions(k=5, rerank=False, private=private))
    return {r["path"]: r for r in doc["results"]}


def _assert_superseded_by_alias(results: dict[str, dict[str, Any]]) -> None:
    assert list(results) == [NEW, OLD]
    assert results[OLD]["flags"] == ["superseded"]
    assert results[OLD]["superseded_by"] == ["[[Kiwi new]]"]
    assert results[NEW]["relationships"] == {"supersedes": [OLD]}


async def test_a_supersedes_link_naming_a_note_by_its_alias_supersedes_that_note(
    index_vault: IndexVault,
) -> None:
    v = index_vault(_notes(["Apteryx"]))
    _assert_superseded_by_alias(await _results(v))


async def test_an_alias_edit_is_followed_by_the_relationships(index_vault: IndexVault) -> None:
    v = index_vault(_notes([]))
    results = await _results(v)
    assert "superseded_by" not in results[OLD] and results[NEW]["relationships"] == {}

    write_vault(v.config.vault, _notes(["Apteryx"]))  # only the old note's aliases change
    v.index.reconcile()
    _assert_superseded_by_alias(await _results(v))

    write_vault(v.config.vault, _notes(["Kiwi bird"]))
    v.index.reconcile()
    results = await _results(v)
    assert "superseded_by" not in results[OLD] and results[NEW]["relationships"] == {}


async def test_a_private_notes_alias_names_nothing_outside_private_mode(
    index_vault: IndexVault,
) -> None:
    # The private note's path sorts first: were its alias a name outside private mode, the
    # link would resolve to it and the public note would lose its relationship.
    secret = "A secret.md"
    v = index_vault([*_notes(["Apteryx"]), NoteSpec(
        secret, "engram", "# A secret\n\nKiwi eggs in my diary.", tags=["private"],
        extra={"aliases": ["Apteryx"]})])
    _assert_superseded_by_alias({p: r for p, r in (await _results(v)).items() if p != secret})
    private = await _results(v, private=True)
    assert private[NEW]["relationships"] == {"supersedes": [secret]}
    assert private[secret]["superseded_by"] == ["[[Kiwi new]]"]
    assert "superseded_by" not in private[OLD]


async def test_a_relations_file_written_before_aliases_were_kept_reads_the_notes_again(
    index_vault: IndexVault,
) -> None:
    v = index_vault(_notes(["Apteryx"]))
    folder = private_folder(v.config.data)
    with sqlite3.connect(folder / RELATIONS_FILE) as conn:  # the earlier layout, rows up to date
        conn.execute(
            "CREATE TABLE notes (namespace TEXT NOT NULL, path TEXT NOT NULL, hash TEXT NOT "
            "NULL, links TEXT NOT NULL, private INTEGER NOT NULL, archived INTEGER NOT NULL, "
            "PRIMARY KEY (namespace, path))")
        hashes = v.index.ledger.hashes("default")
        conn.executemany("INSERT INTO notes VALUES ('default', ?, ?, ?, 0, 0)", [
            (OLD, hashes[OLD], "{}"),
            (NEW, hashes[NEW], json.dumps({"supersedes": ["[[Apteryx]]"]}))])
    conn.close()
    _assert_superseded_by_alias(await _results(v))


def test_two_processes_adding_the_aliases_column_at_once_both_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: the column was checked, then added, with no lock between: the process that lost
    # the race raised "duplicate column name" and kept its connection open.
    path = tmp_path / "relations.sqlite"
    with sqlite3.connect(path, isolation_level=None) as conn:  # written before aliases were kept
        conn.execute("CREATE TABLE notes (namespace TEXT NOT NULL, path TEXT NOT NULL, hash TEXT"
                     " NOT NULL, links TEXT NOT NULL, private INTEGER NOT NULL, archived INTEGER"
                     " NOT NULL, PRIMARY KEY (namespace, path))")
    conn.close()
    checks = iter([False])  # this process's first look, before the other added the column

    def looked(conn: sqlite3.Connection) -> bool:
        stale = next(checks, None)
        if stale is not None:
            other = sqlite3.connect(path, isolation_level=None)  # the other process
            relations._setup(other)
            other.close()
            return stale
        return has_aliases(conn)

    has_aliases = relations._has_aliases
    monkeypatch.setattr(relations, "_has_aliases", looked)
    conn = sqlite3.connect(path, isolation_level=None)
    relations._setup(conn)
    assert "aliases" in {str(row[1]) for row in conn.execute("PRAGMA table_info(notes)")}
    conn.close()
