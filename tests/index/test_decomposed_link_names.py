"""Incoming-link text reaches a note whose file name is saved decomposed (NFD, as macOS saves
`ö` as `o` + U+0308) from links typed composed (NFC), and an index written before its keys were
composed is put right when it is opened."""

from __future__ import annotations

import sqlite3
import unicodedata
from pathlib import Path

import pytest

from sidecar.index import anchors
from sidecar.index.bm25 import Bm25Store
from sidecar.index.bm25_table import SparseRow

SAVED = unicodedata.normalize("NFD", "Hinweisblöcke.md")
LINKING = unicodedata.normalize(
    "NFC", "Mit Tastenkürzeln hebt man Informationen hervor: [[Hinweisblöcke]].")


def _row(cid: str, path: str, text: str) -> SparseRow:
    return SparseRow(cid, path, False, text, "", "")


def _store(tmp_path: Path) -> Bm25Store:
    bm25 = Bm25Store(tmp_path / "bm25.sqlite")
    bm25.create("ns")
    return bm25


def _write(bm25: Bm25Store) -> None:
    bm25.replace("ns", deletes={}, inserts={False: [_row("h", SAVED, "Farbige Kästen.")]})
    bm25.replace("ns", deletes={}, inserts={False: [_row("t", "Tastenkürzel.md", LINKING)]})


def _found(bm25: Bm25Store, query: str) -> list[str]:
    return sorted(cid for cid, _ in bm25.search("ns", query, 5, private=False,
                                                include_archived=False))


def test_a_note_saved_decomposed_is_found_by_the_words_of_links_typed_composed(
    tmp_path: Path,
) -> None:
    # Before: the note's keys were decomposed, the link's composed: "tastenkürzeln" found only
    # the linking note.
    assert anchors.keys(SAVED) == anchors.keys(unicodedata.normalize("NFC", SAVED))
    bm25 = _store(tmp_path)
    _write(bm25)
    assert _found(bm25, "tastenkürzeln") == ["h", "t"]
    bm25.close()


def test_an_index_written_with_decomposed_keys_is_put_right_when_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    def old_key(target: str) -> str:  # the key before it was composed
        target = target.strip().lstrip("/")
        return (target[:-3] if target.casefold().endswith(".md") else target).casefold()

    with monkeypatch.context() as patch:
        patch.setattr(anchors, "_key", old_key)
        bm25 = _store(tmp_path)
        _write(bm25)
        assert _found(bm25, "tastenkürzeln") == ["t"]
        bm25.close()
    with sqlite3.connect(tmp_path / "bm25.sqlite") as conn:  # as an older version left it
        conn.execute('DROP TABLE "bm25_keys_composed"')
    bm25 = _store(tmp_path)  # opened by this version: the keys composed, the note relinked
    assert _found(bm25, "tastenkürzeln") == ["h", "t"]
    with sqlite3.connect(tmp_path / "bm25.sqlite") as conn:
        keys = [key for (key,) in conn.execute(
            f'SELECT key FROM "{anchors.names_table("ns__vault")}"')]
    assert all(unicodedata.is_normalized("NFC", key) for key in keys)
    bm25.close()
