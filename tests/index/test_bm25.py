"""BM25 over SQLite FTS5: any text is a valid query, and stores stay apart."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidecar.index.bm25 import Bm25Store, SparseRow, match_expression
from sidecar.schema import get_schema


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
        ('"quoted" phrase', '"quoted" OR "phrase"'),
        ("a AND b OR NOT c", '"b" OR "not" OR "c"'),
        ("to be or not to be", '"not"'),
        ("to be or to be", '"to" OR "be" OR "or"'),
        ("NEAR(x y)* ^col:z -w", '"near" OR "x" OR "y" OR "col" OR "z" OR "w"'),
        ("Café CAFÉ", '"café"'),
        ("?!…", ""),
    ],
)
def test_match_expression_quotes_every_word_but_stopwords(query: str, expected: str) -> None:
    assert match_expression(query) == expected


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


def test_a_store_ranked_in_parts_scores_as_one_ranked_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every part's bm25() reads the whole store's statistics, so the merged parts are the
    # whole ranking: same chunks, same scores, the archived ones still left out.
    words = ["kiwi", "fig", "plum", "pear", "lime", "date"]
    rows = [_row(i, " ".join(words[j % 6] for j in range(i % 7, i % 7 + 1 + i % 5)),
                 archived=i % 11 == 0) for i in range(200)]
    whole = Bm25Store(tmp_path / "bm25.sqlite")
    whole.create("default")
    whole.replace("default", deletes={}, inserts={False: rows, True: []})
    parted = Bm25Store(tmp_path / "bm25.sqlite")
    whole.parts, parted.parts = 1, 3  # as if on one core, and on three
    small = dataclasses.replace(get_schema(), bm25_part_chunks=40)
    monkeypatch.setattr("sidecar.index.bm25.get_schema", lambda: small)
    for query in ("kiwi", "fig plum", "pear lime date kiwi"):
        for k, archived in ((5, False), (30, True), (100, False)):
            expected = whole.search("default", query, k, private=False, include_archived=archived)
            found = parted.search("default", query, k, private=False, include_archived=archived)
            assert [cid for cid, _ in found] == [cid for cid, _ in expected]
            assert [s for _, s in found] == pytest.approx([s for _, s in expected], rel=1e-12)
            assert len(found) == min(k, len(expected)) and found
    whole.close()
    parted.close()
