"""Tags are compared lower-cased, as Obsidian compares them (JavaScript's toLowerCase), not
case-folded: `--tag straße` finds #Straße and #STRASSE only as `--tag strasse` finds it, and a
ledger written when tags were stored case-folded is filled again on opening."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sidecar.index.ledger import FileRow, Ledger
from sidecar.index.scope import NoteFilter, fold_tag
from sidecar.vault.tags import note_tags


def _row(n: int, tags: list[str]) -> FileRow:
    return FileRow(
        path=f"n{n}.md", hash=f"h{n}", mtime_ns=0, size=1, model="m", type="engram",
        tags=tuple(tags), title=f"Note {n}", private=False, chunk_ids=(f"c{n}",),
        declared_cluster=None, cluster=None, decays=False, decay_date="2024-01-01T00:00:00",
        centroid=None, error=None, conversation=None)


ROWS = [_row(1, ["STRASSE"]), _row(2, ["Straße"]), _row(3, ["ﬁnance"]), _row(4, ["Été/Juin"])]


def _found(ledger: Ledger, tag: str) -> set[str]:
    return {cid for _, cid in ledger.scope_ids("ns", NoteFilter.make(tags=[tag]), private=False)}


def _admitted(tag: str) -> set[str]:
    wanted = NoteFilter.make(tags=[tag])
    return {row.chunk_ids[0] for row in ROWS
            if wanted.admits(row.path, row.type, row.tags, row.decay_date, row.cluster,
                             row.conversation)}


def test_a_tag_filter_tells_strasse_from_strasse_with_eszett(tmp_path: Path) -> None:
    # Before: case-folded, "straße" and "STRASSE" were both "strasse", "ﬁnance" "finance".
    ledger = Ledger(tmp_path / "ledger.sqlite")
    ledger.put("ns", ROWS)
    expected = {"straße": {"c2"}, "STRASSE": {"c1"}, "Strasse": {"c1"}, "finance": set(),
                "ﬁnance": {"c3"}, "été": {"c4"}, "ÉTÉ/juin": {"c4"}}
    for tag, chunks in expected.items():
        assert _found(ledger, tag) == chunks, tag
        assert _admitted(tag) == chunks, tag  # the filter without the ledger agrees
    ledger.close()


def test_a_ledger_of_case_folded_tags_is_filled_again_on_opening(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    ledger = Ledger(path)
    ledger.put("ns", ROWS)
    ledger.close()
    # What the sidecar before left: the tag table case-folded, user_version 4.
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE note_tags SET tag = 'strasse' WHERE tag = 'straße'")
        conn.execute("PRAGMA user_version = 4")
    conn.close()
    reopened = Ledger(path)
    assert _found(reopened, "straße") == {"c2"}
    assert _found(reopened, "strasse") == {"c1"}
    reopened.close()


def test_a_notes_tags_are_told_apart_as_obsidian_tells_them() -> None:
    assert note_tags({"tags": ["Straße"]}, "Text #STRASSE und #straße.") == ("Straße", "STRASSE")
    assert fold_tag("ÉTÉ") == fold_tag("#e\u0301te\u0301") == "été"
