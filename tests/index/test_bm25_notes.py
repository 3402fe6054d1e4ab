"""Note-level BM25: a note whose chunks share a question's words between them scores as a whole,
kept in step with its chunks, in the languages whose queries take feedback, never from a private
note outside private mode."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sidecar.errors import IndexDamaged
from sidecar.index.bm25 import Bm25Store
from sidecar.index.bm25_table import SparseRow

# Dutch: the question's two words are in two chunks of one note, each alone in another note.
SPREAD = [("a1", "Elke versie van de notitie wordt bewaard, en je kunt ze in de lijst zien."),
          ("a2", "Je kunt een bestand terughalen uit de lijst als je het kwijt bent.")]
VERSION = ("b1", "Versie na versie: de versie van de app staat in het menu.")
BACK = ("c1", "Terughalen? Wat je weggooit, kun je terughalen uit de prullenbak van de computer.")
QUERY = "een oude versie terughalen"


def _rows(path: str, chunks: list[tuple[str, str]]) -> list[SparseRow]:
    return [SparseRow(cid, path, False, text, "", "") for cid, text in chunks]


def _store(tmp_path: Path, *, private: bool = False) -> Bm25Store:
    bm25 = Bm25Store(tmp_path / "bm25.sqlite")
    bm25.create("ns")
    others = [*_rows("B.md", [VERSION]), *_rows("C.md", [BACK])]
    spread = _rows("A.md", SPREAD)
    bm25.replace("ns", deletes={}, inserts={False: others, True: spread} if private
                 else {False: [*others, *spread]})
    return bm25


def _scores(bm25: Bm25Store, query: str = QUERY, *, private: bool = False) -> dict[str, float]:
    return bm25.note_scores("ns", query, 10, private=private, include_archived=False)


def test_a_note_with_the_words_spread_over_its_chunks_scores_best_as_a_whole(
    tmp_path: Path,
) -> None:
    bm25 = _store(tmp_path)
    first = bm25.search("ns", QUERY, 1, private=False, include_archived=False)
    assert first[0][0] == "c1"  # no chunk of A holds both words
    scores = _scores(bm25)
    assert scores["A.md"] == 1.0 and max(scores["B.md"], scores["C.md"]) < 1.0
    bm25.close()


def test_an_english_query_gets_no_note_level_scores(tmp_path: Path) -> None:
    bm25 = Bm25Store(tmp_path / "bm25.sqlite")
    bm25.create("ns")
    bm25.replace("ns", deletes={}, inserts={False: _rows("E.md", [
        ("e1", "Every version of the note is kept, and you can see them in the list."),
        ("e2", "You can restore a file from the list when you have lost it.")])})
    assert _scores(bm25, "restore an old version") == {}
    bm25.close()


def test_a_private_note_scores_only_in_private_mode(tmp_path: Path) -> None:
    bm25 = _store(tmp_path, private=True)
    assert "A.md" not in _scores(bm25)
    assert "A.md" in _scores(bm25, private=True)
    bm25.close()


def test_the_note_documents_follow_their_notes(tmp_path: Path) -> None:
    bm25 = _store(tmp_path)
    bm25.replace("ns", deletes={False: ["a2"]}, inserts={False: _rows("A.md", SPREAD[:1])})
    assert _scores(bm25)["A.md"] < 1.0  # "terughalen" left the note
    assert _scores(bm25, "terughalen").keys() == {"C.md"}
    bm25.replace("ns", deletes={False: ["a1"]}, inserts={})
    assert "A.md" not in _scores(bm25)
    bm25.replace("ns", deletes={}, inserts={False: _rows("A.md", SPREAD)})
    assert _scores(bm25, "terughalen").keys() == {"A.md", "C.md"}
    bm25.close()


def test_a_missing_note_engine_is_rebuilt_by_the_next_writer(tmp_path: Path) -> None:
    bm25 = _store(tmp_path)
    folder = bm25.engine_folder("ns", False, notes=True)
    bm25.close()
    shutil.rmtree(folder)
    assert _scores(Bm25Store(tmp_path / "bm25.sqlite")) == {}  # a reader: no lift, no error
    bm25 = Bm25Store(tmp_path / "bm25.sqlite")
    bm25.create("ns")
    assert _scores(bm25)["A.md"] == 1.0
    bm25.close()


def test_a_damaged_note_engine_is_reported_then_rebuilt_by_the_next_writer(
    tmp_path: Path,
) -> None:
    bm25 = _store(tmp_path)
    folder = bm25.engine_folder("ns", False, notes=True)
    bm25.close()
    (folder / "meta.json").write_text("{")
    with pytest.raises(IndexDamaged, match="ora index"):
        _scores(Bm25Store(tmp_path / "bm25.sqlite"))
    bm25 = Bm25Store(tmp_path / "bm25.sqlite")
    bm25.create("ns")
    assert _scores(bm25)["A.md"] == 1.0
    bm25.close()
