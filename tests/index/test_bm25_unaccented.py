"""A word typed without its accents finds the note that writes it with them, and the other way
round, in a language whose stemmer the accent kept from a suffix (es "azafrán" stems to
"azafran", "azafran" to "azafr")."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.index import bm25_engine
from sidecar.index.bm25 import Bm25Store
from sidecar.index.bm25_table import SparseRow
from sidecar.language import languages

PAELLA = ("La paella lleva arroz, azafrán, pollo y conejo. El capitán del barco también comió "
          "en la sartén.")
OTHER = "Hoy fuimos al mercado y compramos verduras frescas para la cena de la familia."
CAFE = ("Gestern waren wir im Café Sperl und haben über das Exposé für das neue Buch "
        "gesprochen.")
PLAIN_CAFE = ("Gestern waren wir im Cafe Sperl und haben über das Expose für das neue Buch "
              "gesprochen.")


def _store(tmp_path: Path, texts: list[tuple[str, str]]) -> Bm25Store:
    bm25 = Bm25Store(tmp_path / "bm25.sqlite")
    bm25.create("ns")
    rows = [SparseRow(f"id{i}", f"n{i}.md", False, text, "", "", language=code)
            for i, (text, code) in enumerate(texts)]
    bm25.replace("ns", deletes={}, inserts={False: rows, True: []})
    return bm25


def _ids(bm25: Bm25Store, query: str) -> list[str]:
    return [cid for cid, _ in bm25.search("ns", query, 5, private=False,
                                          include_archived=False)]


@pytest.mark.parametrize("query", ["azafran", "capitan", "sarten", "Azafrán", "sartén"])
def test_a_spanish_word_typed_without_its_accent_finds_the_note_that_writes_it(
    tmp_path: Path, query: str
) -> None:
    # Before: "azafran" was read as "azafr", the note's "azafrán" as "azafran": no match.
    bm25 = _store(tmp_path, [(PAELLA, "es"), (OTHER, "es")])
    assert _ids(bm25, query) == ["id0"]
    bm25.close()


@pytest.mark.parametrize("query", ["Cafe", "Expose", "Café", "Exposé"])
def test_a_german_word_is_found_typed_with_or_without_its_accent(
    tmp_path: Path, query: str
) -> None:
    bm25 = _store(tmp_path, [(CAFE, "de"), (OTHER, "es")])
    assert _ids(bm25, query) == ["id0"]
    bm25.close()


@pytest.mark.parametrize("query", ["Café", "Exposé", "azafrán"])
def test_a_word_typed_with_its_accent_finds_the_note_that_writes_it_without(
    tmp_path: Path, query: str
) -> None:
    bm25 = _store(tmp_path, [(PLAIN_CAFE, "de"), ("Arroz con azafran y pollo.", "es")])
    assert _ids(bm25, query) == (["id1"] if query == "azafrán" else ["id0"])
    bm25.close()


def test_the_note_writing_the_word_as_typed_ranks_first_and_the_other_spelling_next(
    tmp_path: Path,
) -> None:
    bm25 = _store(tmp_path, [("Arroz con azafrán.", "es"), ("Arroz con azafran.", "es"),
                             (OTHER, "es")])
    assert _ids(bm25, "azafrán") == ["id0", "id1"]
    assert sorted(_ids(bm25, "azafran")) == ["id0", "id1"]
    bm25.close()


def test_english_analysis_is_unchanged() -> None:
    # English folds before stemming already: it gets no second form, on either side.
    assert languages.unaccented("en", "café") is None
    assert languages.unaccented_words("en", "café résumé naïve") == ""
    terms = bm25_engine.analyze(["café"], ["café"], ["en"])
    assert terms.unaccented == ()


def test_a_stopword_and_an_ascii_word_get_no_second_form() -> None:
    assert languages.unaccented("it", "perché") is None  # Italian stopword
    assert languages.unaccented("es", "azafran") is None
    assert languages.unaccented("es", "azafrán") == ["azafr"]
    assert languages.unaccented_words("es", "azafrán azafrán arroz") == "azafran azafran"


def test_the_unaccented_forms_are_part_of_the_recorded_analysis() -> None:
    # A store written before these forms were indexed is rebuilt (BM25 only: the version is
    # the BM25 engines', bm25_engine.VERSION).
    assert "again folded" in bm25_engine.LAYOUT
    assert bm25_engine.LAYOUT in bm25_engine.VERSION
