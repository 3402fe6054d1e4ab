"""The ledger resolves a search filter in SQL, and agrees with `NoteFilter.admits` on every note."""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sidecar.chunking.chunker import CHUNKER_VERSION
from sidecar.index.ledger import FileRow, Ledger
from sidecar.index.scope import NoteFilter
from sidecar.index_params import params_path

from .conftest import OpenIndex, note, write

# Case and Unicode matter: "Straße" and "STRASSE" stay two tags (lowered as Obsidian does).
TAGS = ["project", "Project/Ora", "#project/ora/ui", "projects", "project-x", "Straße", "ÉTÉ/Juin",
        "x", "x/y/z", "été"]
FOLDERS = ["Engrams", "Engrams/Sub", "Engrams 2", "Engrams0", "Engram", "Chats", "Notes/2024",
           "Notes/20245", "engrams", "Straße", "STRASSE/Sub", "Ärzte", "ärzte/Sub"]
TYPES = ["engram", "resource", "chat", "web", None]
DATES = ["2024-01-01T00:00:00", "2024-06-30T23:59:59", "2024-07-01T00:00:00", "2025-02-03T10:00:00"]
CLUSTERS = [None, "Sleep", "sleep research", "auto:straße", "Work"]
CONVERSATIONS = [None, "c1", "C1", "cli:2026-12-01"]


def _row(n: int, folder: str, type_name: str | None, tags: list[str], date: str, private: bool,
         chunks: int = 1, cluster: str | None = None, conversation: str | None = None) -> FileRow:
    return FileRow(
        path=f"{folder}/Note {n}.md", hash=f"h{n}", mtime_ns=0, size=1, model="m", type=type_name,
        tags=tuple(tags), title=f"Note {n}", private=private,
        chunk_ids=tuple(f"c{n}-{i}" for i in range(chunks)), declared_cluster=None,
        cluster=cluster, decays=False, decay_date=date, centroid=None, error=None,
        conversation=conversation)


def _admitted(rows: list[FileRow], note_filter: NoteFilter, private: bool) -> set[tuple[bool, str]]:
    return {(row.private, cid) for row in rows
            if (private or not row.private)
            and note_filter.admits(row.path, row.type, row.tags, row.decay_date, row.cluster,
                                   row.conversation)
            for cid in row.chunk_ids}


notes = st.lists(st.tuples(st.sampled_from(FOLDERS), st.sampled_from(TYPES),
                           st.lists(st.sampled_from(TAGS), max_size=3), st.sampled_from(DATES),
                           st.booleans(), st.integers(0, 2), st.sampled_from(CLUSTERS),
                           st.sampled_from(CONVERSATIONS)), min_size=1, max_size=12)
filters = st.builds(
    NoteFilter.make,
    types=st.lists(st.sampled_from(["engram", "resource", "chat", "web"]), max_size=2),
    folders=st.lists(st.sampled_from(["Engrams", "ENGRAM", "notes/2024", "Chats/", "strasse",
                                      "STRAßE", "ÄRZTE"]), max_size=2),
    tags=st.lists(st.sampled_from(["project", "#Project/ora", "STRASSE", "été", "x/y", "ete"]),
                  max_size=2),
    since=st.sampled_from([None, "2024-06-30", "2024-07-01T00:00:00"]),
    until=st.sampled_from([None, "2024-07-01", "2025-01-01"]),
    clusters=st.lists(st.sampled_from(["sleep", "SLEEP RESEARCH", "auto:STRASSE", "work "]),
                      max_size=2),
    conversations=st.lists(st.sampled_from(["c1", "cli:2026-12-01", "c9"]), max_size=2),
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
    tmp_path: Path,
    specs: list[tuple[str, str | None, list[str], str, bool, int, str | None, str | None]],
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
            _row(5, "Straße", "engram", [], DATES[0], False),
            # saved decomposed, as macOS saves names: found by the name as typed (composed)
            _row(6, unicodedata.normalize("NFD", "Café notes"), "engram", [], DATES[0], False)]
    ledger.put("ns", rows)
    for typed, expected in (("projects", {"c1-0", "c2-0"}), ("PROJECTS/ora", {"c2-0"}),
                            ("Projects", {"c1-0", "c2-0"}), ("ÄRZTE", {"c4-0"}),
                            ("straße", {"c5-0"}), ("STRASSE", set()),  # Obsidian lower-cases
                            ("Café notes", {"c6-0"}),
                            (unicodedata.normalize("NFD", "CAFÉ NOTES"), {"c6-0"})):
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


def test_cluster_and_conversation_filters(tmp_path: Path) -> None:
    """A cluster matches case-insensitively (as typed from a result's `why.cluster`), several
    clusters or conversations match any; a conversation id matches exactly."""
    ledger = Ledger(tmp_path / "ledger.sqlite")
    rows = [_row(1, "Chats", "chat", [], DATES[0], False, cluster="Sleep", conversation="c1"),
            _row(2, "Chats", "chat", [], DATES[0], False, cluster="auto:straße",
                 conversation="C1"),
            _row(3, "Chats", "chat", [], DATES[0], True, cluster="Sleep", conversation="c3"),
            _row(4, "Web", "web", [], DATES[0], False)]
    ledger.put("ns", rows)
    cases = [({"clusters": ["sleep"]}, False, {"c1-0"}),
             ({"clusters": ["SLEEP"]}, True, {"c1-0", "c3-0"}),
             ({"clusters": ["AUTO:STRASSE", "sleep"]}, False, {"c1-0", "c2-0"}),
             ({"conversations": ["c1"]}, False, {"c1-0"}),
             ({"conversations": ["c1", "C1"]}, False, {"c1-0", "c2-0"}),
             ({"clusters": ["sleep"], "conversations": ["C1"]}, False, set())]
    for parts, private, expected in cases:
        note_filter = NoteFilter.make(**parts)
        found = {cid for _, cid in ledger.scope_ids("ns", note_filter, private=private)}
        assert found == expected, parts
        assert {cid for _, cid in _admitted(rows, note_filter, private)} == expected, parts
    ledger.close()


def test_a_ledger_from_before_conversations_gains_the_column(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    ledger = Ledger(path)
    ledger.put("ns", [_row(1, "A", "chat", [], DATES[0], False, conversation="c1")])
    ledger.close()
    # What the previous version left: no `conversation` column, user_version 1.
    conn = sqlite3.connect(path)
    conn.executescript("ALTER TABLE files DROP COLUMN conversation; PRAGMA user_version = 1;")
    conn.close()
    reopened = Ledger(path)
    assert reopened.rows("ns")["A/Note 1.md"].conversation is None  # filled by the re-plan
    reopened.put("ns", [_row(1, "A", "chat", [], DATES[0], False, conversation="c1")])
    found = list(reopened.scope_ids("ns", NoteFilter.make(conversations=["c1"]), private=False))
    assert found == [(False, "c1-0")]
    reopened.close()


def test_an_index_from_before_conversations_learns_them_on_open(
    tmp_path: Path, open_idx: OpenIndex
) -> None:
    """Chunker 20 kept no conversation id: opening its index re-plans every file (vectors
    reused), so a conversation filter finds the chat notes it had indexed."""
    vault = tmp_path / "vault"
    write(vault, "Chats/Ora/c1.md", note("chat", "# c1\n\nA question about marmalade.\n",
                                          conversation="cli:c1"))
    first = open_idx(vault)
    first.reconcile()
    first.close()
    data = tmp_path / "data"
    conn = sqlite3.connect(data / "ledger.sqlite")
    with conn:  # as chunker 20 left it
        conn.execute("UPDATE files SET conversation = NULL")
    conn.close()
    doc = json.loads(params_path(data).read_text(encoding="utf-8"))
    doc["namespaces"]["default"]["chunker"] = 20
    params_path(data).write_text(json.dumps(doc), encoding="utf-8")
    assert CHUNKER_VERSION > 20
    index = open_idx(vault)
    assert index.reconcile()["embedded"] == 0  # re-chunked, vectors reused
    found = list(index.ledger.scope_ids("default", NoteFilter.make(conversations=["cli:c1"]),
                                        private=False))
    assert len(found) == 1


def test_a_tag_filter_matches_whichever_unicode_form_the_tag_was_typed_in(tmp_path: Path) -> None:
    # Before: `café` typed decomposed (pasted from a macOS file name) matched no `#café` typed
    # composed, and the reverse, though the folder filter composes both sides.
    composed, decomposed = "café", unicodedata.normalize("NFD", "café")
    ledger = Ledger(tmp_path / "ledger.sqlite")
    rows = [_row(1, "A", "engram", [composed], DATES[0], False),
            _row(2, "A", "engram", [f"{decomposed}/paris"], DATES[0], False)]
    ledger.put("ns", rows)
    for typed in (composed, decomposed, "CAFÉ", unicodedata.normalize("NFD", "CAFÉ")):
        note_filter = NoteFilter.make(tags=[typed])
        found = {cid for _, cid in ledger.scope_ids("ns", note_filter, private=False)}
        assert found == {"c1-0", "c2-0"}, ascii(typed)
        assert {cid for _, cid in _admitted(rows, note_filter, False)} == found, ascii(typed)
    ledger.close()


def test_a_ledger_whose_tags_were_folded_without_composing_is_refilled_on_opening(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ledger.sqlite"
    ledger = Ledger(path)
    ledger.put("ns", [_row(1, "A", "engram", [unicodedata.normalize("NFD", "café")], DATES[0],
                           False)])
    ledger.close()
    # What the previous version left: the tag stored decomposed, user_version 2.
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE note_tags SET tag = ?", (unicodedata.normalize("NFD", "café"),))
        conn.execute("PRAGMA user_version = 2")
    conn.close()
    reopened = Ledger(path)
    assert list(reopened.scope_ids("ns", NoteFilter.make(tags=["café"]), private=False)) == [
        (False, "c1-0")]
    reopened.close()
