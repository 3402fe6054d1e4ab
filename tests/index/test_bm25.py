"""BM25 ranked by tantivy over the SQLite chunk tables: any text is a valid query, and stores
stay apart."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidecar.index.bm25 import Bm25Store, SparseRow, query_terms


def _row(i: int, text: str, *, archived: bool = False) -> SparseRow:
    return SparseRow(f"id{i}", f"n{i}.md", archived, text, f"Note {i}", "")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Bm25Store:
    bm25 = Bm25Store(tmp_path_factory.mktemp("bm25") / "bm25.sqlite")
    bm25.create("default")
    public = [
        _row(1, "Spaced repetition beats cramming."),
        _row(2, "Crème brûlée needs a torch; café au lait does not."),
        _row(3, 'He said "NOT" AND OR NEAR(x y) * ^ - are FTS5 operators.'),
        _row(4, "Repetition, repetition, repetition.", archived=True),
    ]
    bm25.replace("default", deletes={}, inserts={False: public, True: [_row(9, "secret diary")]})
    return bm25


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ('"quoted" phrase', ["quot", "phrase"]),
        ("a AND b OR NOT c", ["b", "not", "c"]),
        ("to be or not to be", ["not"]),
        ("to be or to be", ["to", "be", "or"]),
        ("NEAR(x y)* ^col:z -w", ["near", "x", "y", "col", "z", "w"]),
        ("Café CAFÉ cafe", ["cafe"]),
        ("snake_case", ["snake", "case"]),
        ("?!…", []),
    ],
)
def test_query_terms_are_analysed_words_but_stopwords(query: str, expected: list[str]) -> None:
    assert query_terms(query) == expected


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("repetition", "id1"),
        ("creme brulee", "id2"),  # diacritics folded
        ('NOT AND "OR" NEAR', "id3"),  # operators are plain words
        ("torches", "id2"),  # porter stemming
    ],
)
def test_search_finds_words_whatever_the_syntax(store: Bm25Store, query: str, first: str) -> None:
    hits = store.search("default", query, 5, private=False, include_archived=False)
    assert hits[0][0] == first


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_text_is_a_valid_query(store: Bm25Store, query: str) -> None:
    hits = store.search("default", query, 5, private=True, include_archived=True)
    assert all(isinstance(cid, str) and isinstance(score, float) for cid, score in hits)


def test_archived_rows_are_filtered_in_sql(store: Bm25Store) -> None:
    plain = store.search("default", "repetition", 5, private=False, include_archived=False)
    both = store.search("default", "repetition", 5, private=False, include_archived=True)
    assert [h[0] for h in plain] == ["id1"]
    assert {h[0] for h in both} == {"id1", "id4"}


def test_private_rows_only_in_private_mode(store: Bm25Store) -> None:
    assert store.search("default", "secret diary", 5, private=False, include_archived=False) == []
    hits = store.search("default", "secret diary", 5, private=True, include_archived=False)
    assert [h[0] for h in hits] == ["id9"]


def test_unknown_namespace_is_empty(store: Bm25Store) -> None:
    assert store.search("nobody", "repetition", 5, private=True, include_archived=True) == []
    assert store.ids("nobody", False) == set()


def test_replace_overwrites_rather_than_duplicates(tmp_path: Path) -> None:
    bm25 = Bm25Store(tmp_path / "b.sqlite")
    bm25.create("ns")
    for text in ("first version", "second version"):
        bm25.replace("ns", deletes={}, inserts={False: [_row(1, text)]})
    assert bm25.count("ns", False) == 1
    assert bm25.search("ns", "first", 5, private=False, include_archived=False) == []
    bm25.replace("ns", deletes={False: ["id1"]}, inserts={})
    assert bm25.count("ns", False) == 0
    bm25.close()


def test_archived_rows_crowding_the_top_still_leave_k_results(tmp_path: Path) -> None:
    bm25 = Bm25Store(tmp_path / "bm25.sqlite")
    bm25.create("default")
    rows = [_row(i, "kiwi " * 5, archived=True) for i in range(10)]
    rows += [_row(20 + i, "kiwi and a long sentence about other fruit") for i in range(3)]
    bm25.replace("default", deletes={}, inserts={False: rows, True: []})
    hits = bm25.search("default", "kiwi", 2, private=False, include_archived=False)
    assert [cid for cid, _ in hits] == ["id20", "id21"]
    crowded = bm25.search("default", "kiwi", 2, private=False, include_archived=True)
    assert all(int(cid[2:]) < 10 for cid, _ in crowded)
