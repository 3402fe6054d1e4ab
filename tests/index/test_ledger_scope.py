"""The ledger resolves a search filter in SQL, and agrees with `NoteFilter.admits` on every note."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sidecar.index.ledger import FileRow, Ledger
from sidecar.index.params import params_path
from sidecar.index.scope import NoteFilter

from .conftest import OpenIndex

# Case and Unicode folding matter: "Straße" is "strasse" folded, "ÉTÉ" is "été".
TAGS = ["project", "Project/Ora", "#project/ora/ui", "projects", "project-x", "Straße", "ÉTÉ/Juin",
        "x", "x/y/z", "été"]
FOLDERS = ["Engrams", "Engrams/Sub", "Engrams 2", "Engrams0", "Engram", "Chats", "Notes/2024",
           "Notes/20245", "engrams", "Straße", "STRASSE/Sub", "Ärzte", "ärzte/Sub"]
TYPES = ["engram", "resource", "chat", "web", None]
DATES = ["2024-01-01T00:00:00", "2024-06-30T23:59:59", "2024-07-01T00:00:00", "2025-02-03T10:00:00"]


def _row(n: int, folder: str, type_name: str | None, tags: list[str], date: str, private: bool,
         chunks: int = 1) -> FileRow:
    return FileRow(
        path=f"{folder}/Note {n}.md", hash=f"h{n}", mtime_ns=0, size=1, model="m", type=type_name,
        tags=tuple(tags), title=f"Note {n}", private=private,
        chunk_ids=tuple(f"c{n}-{i}" for i in range(chunks)), declared_cluster=None, cluster=None,
        decays=False, decay_date=date, centroid=None, error=None)


def _admitted(rows: list[FileRow], note_filter: NoteFilter, private: bool) -> set[tuple[bool, str]]:
    return {(row.private, cid) for row in rows
            if (private or not row.private)
            and note_filter.admits(row.path, row.type, row.tags, row.decay_date)
            for cid in row.chunk_ids}


notes = st.lists(st.tuples(st.sampled_from(FOLDERS), st.sampled_from(TYPES),
                           st.lists(st.sampled_from(TAGS), max_size=3), st.sampled_from(DATES),
                           st.booleans(), st.integers(0, 2)), min_size=1, max_size=12)
filters = st.builds(
    NoteFilter.make,
    types=st.lists(st.sampled_from(["engram", "resource", "chat", "web"]), max_size=2),
    folders=st.lists(st.sampled_from(["Engrams", "ENGRAM", "notes/2024", "Chats/", "strasse",
                                      "STRAßE", "ÄRZTE"]), max_size=2),
    tags=st.lists(st.sampled_from(["project", "#Project/ora", "STRASSE", "été", "x/y", "ete"]),
                  max_size=2),
    since=st.sampled_from([None, "2024-06-30", "2024-07-01T00:00:00"]),
    until=st.sampled_from([None, "2024-07-01", "2025-01-01"]),
)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(specs=notes, note_filter=filters, private=st.booleans())
# The edges of the prefix ranges: a sibling tag or folder that merely starts with the same text.
@example(specs=[("Engrams0", "engram", ["project-x"], DATES[0], False, 1),
                ("Engram", "engram", ["projects"], DATES[0], False, 1),
                ("Engrams/Sub", "engram", ["Project/Ora"], DATES[0], True, 1)],
         note_filter=NoteFilter.make(folders=["Engrams"], tags=["project"]), private=True)
@example(specs=[("Engrams0", "engram", ["project-x"], DATES[0], False, 1),
                ("Engrams", "web", ["Straße"], DATES[2], False, 2)],
         note_filter=NoteFilter.make(tags=["project"]), private=False)
@example(specs=[("Engrams 2", "engram", ["Straße"], DATES[2], False, 1),
                ("Engrams", "web", ["Straße"], DATES[2], False, 2)],
         note_filter=NoteFilter.make(folders=["Engrams"], tags=["strasse"],
                                     since="2024-07-01T00:00:00"), private=False)
def test_scope_ids_admit_exactly_the_chunks_admits_would(
    tmp_path: Path, specs: list[tuple[str, str | None, list[str], str, bool, int]],
    note_filter: NoteFilter, private: bool,
) -> None:
    ledger = Ledger(tmp_path / f"ledger-{abs(hash((repr(specs), repr(note_filter))))}.sqlite")
    rows = [_row(n, *spec) for n, spec in enumerate(specs)]
    ledger.put("ns", rows)
    ledger.put("other", [_row(99, "Engrams", "engram", ["project"], DATES[0], False)])
    try:
        found = list(ledger.scope_ids("ns", note_filter, private=private))
        assert sorted(found) == sorted(_admitted(rows, note_filter, private))
    finally:
        ledger.close()


def test_a_folder_filter_ignores_case_as_obsidians_path_search_does(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.sqlite")
    rows = [_row(1, "Projects", "engram", [], DATES[0], False),
            _row(2, "Projects/Ora", "engram", [], DATES[0], False),
            _row(3, "Projects2", "engram", [], DATES[0], False),
            _row(4, "Ärzte", "engram", [], DATES[0], False),
            _row(5, "Straße", "engram", [], DATES[0], False)]
    ledger.put("ns", rows)
    for typed, expected in (("projects", {"c1-0", "c2-0"}), ("PROJECTS/ora", {"c2-0"}),
                            ("Projects", {"c1-0", "c2-0"}), ("ÄRZTE", {"c4-0"}),
                            ("straße", {"c5-0"}), ("STRASSE", set())):  # Obsidian lower-cases
        note_filter = NoteFilter.make(folders=[typed])
        found = {cid for _, cid in ledger.scope_ids("ns", note_filter, private=False)}
        assert found == expected, typed
        assert {cid for _, cid in _admitted(rows, note_filter, False)} == expected, typed
    ledger.close()


def test_tags_follow_a_note_when_it_is_rewritten_deleted_or_dropped(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.sqlite")
    tagged = NoteFilter.make(tags=["project"])
    ledger.put("ns", [_row(1, "A", "engram", ["project/ora"], DATES[0], False),
                      _row(2, "A", "engram", ["Project"], DATES[0], False)])
    both = [(False, "c1-0"), (False, "c2-0")]
    assert sorted(ledger.scope_ids("ns", tagged, private=False)) == both
    ledger.put("ns", [_row(1, "A", "engram", ["garden"], DATES[0], False)])  # retagged
    assert list(ledger.scope_ids("ns", tagged, private=False)) == [(False, "c2-0")]
    ledger.delete("ns", ["A/Note 2.md"])
    assert list(ledger.scope_ids("ns", tagged, private=False)) == []
    assert list(ledger.scope_ids("ns", NoteFilter.make(tags=["garden"]), private=False)) == [
        (False, "c1-0")]
    ledger.drop("ns")
    conn = sqlite3.connect(tmp_path / "ledger.sqlite")
    assert conn.execute("SELECT count(*) FROM note_tags").fetchone() == (0,)
    conn.close()
    ledger.close()


def test_a_ledger_written_before_the_tag_table_is_back_filled_on_opening(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    ledger = Ledger(path)
    ledger.put("ns", [_row(1, "A", "engram", ["#Project/Ora"], DATES[0], True),
                      _row(2, "A", "engram", ["garden"], DATES[0], False)])
    ledger.close()
    # What an older sidecar left: rows with tags, no tag table, user_version 0.
    conn = sqlite3.connect(path)
    conn.executescript("DROP TABLE note_tags; PRAGMA user_version = 0;")
    conn.close()

    reopened = Ledger(path)
    found = list(reopened.scope_ids("ns", NoteFilter.make(tags=["project/ora"]), private=True))
    assert found == [(True, "c1-0")]
    assert list(reopened.scope_ids("ns", NoteFilter.make(tags=["project"]), private=False)) == []
    reopened.close()


def test_tags_an_older_sidecar_wrote_rows_without_are_refilled_when_this_one_opens(
    tmp_path: Path, vault: Path, open_idx: OpenIndex,
) -> None:
    first = open_idx(vault)
    first.reconcile()
    first.close()
    data = tmp_path / "data"
    # An older sidecar (the FTS5 BM25 store, no tag table) retags a note: it writes the row and
    # its own BM25 layout in index.json, and leaves the tag table and user_version as they were.
    conn = sqlite3.connect(data / "ledger.sqlite")
    with conn:
        conn.execute("UPDATE files SET tags = '[\"Garden\"]' WHERE path = 'Engrams/Kettle.md'")
    conn.close()
    params = json.loads(params_path(data).read_text())
    params["namespaces"]["default"]["bm25_tokenize"] = "porter unicode61 remove_diacritics 2"
    params_path(data).write_text(json.dumps(params))

    reopened = open_idx(vault)
    kettle = reopened.ledger.rows("default", ["Engrams/Kettle.md"])["Engrams/Kettle.md"]
    garden = reopened.ledger.scope_ids("default", NoteFilter.make(tags=["garden"]), private=False)
    assert sorted(garden) == [(False, cid) for cid in sorted(kettle.chunk_ids)]
    assert kettle.chunk_ids
