"""BM25 ranked by tantivy over the SQLite chunk tables: any text is a valid query, and stores
stay apart."""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidecar.errors import IndexDamaged
from sidecar.index import bm25_engine
from sidecar.index.bm25 import Bm25Store
from sidecar.index.bm25_query import query_terms
from sidecar.index.bm25_table import SparseRow


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
    assert [term for field, term in query_terms(query).words if field == "body"] == expected


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


def _ids(hits: list[tuple[str, float]]) -> list[str]:
    return [cid for cid, _ in hits]


def _found(bm25: Bm25Store, query: str) -> list[str]:
    return _ids(bm25.search("ns", query, 5, private=True, include_archived=True))


# A writer that makes its first write, then is killed (SIGKILL) right after the tables' commit of
# its second, before the engine's commit.
_CRASH = """
import os, signal, sys
from pathlib import Path
from sidecar.index import bm25_engine
from sidecar.index.bm25 import Bm25Store
from sidecar.index.bm25_table import SparseRow
store = Bm25Store(Path(sys.argv[1]))
store.create("ns")
store.replace("ns", {}, {False: [SparseRow("a", "a.md", False, "%s", "A", "")]})
bm25_engine.Bm25Engine.commit = lambda self: os.kill(os.getpid(), signal.SIGKILL)
store.replace("ns", %s)
"""


def _crash(path: Path, first_text: str, second_write: str) -> None:
    done = subprocess.run([sys.executable, "-c", _CRASH % (first_text, second_write), str(path)],
                          check=False)
    assert done.returncode == -signal.SIGKILL


def test_a_crash_between_the_table_and_engine_commits_is_repaired_when_a_writer_opens(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bm25.sqlite"
    # It rewrote a chunk (as many chunks as before: a count cannot tell).
    _crash(path, "old kiwi", '{}, {False: [SparseRow("a", "a.md", False, "new mango", "A", "")]}')
    reader = Bm25Store(path)  # the table holds the second write, the engine the first's rowid
    assert (_found(reader, "kiwi"), _found(reader, "mango")) == ([], [])
    reader.close()
    writer = Bm25Store(path)
    writer.create("ns")
    assert (_found(writer, "kiwi"), _found(writer, "mango")) == ([], ["a"])
    writer.close()


def test_a_reader_of_a_store_left_pending_never_maps_a_removed_chunks_text_to_another(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bm25.sqlite"
    # The killed write made note a private and added b.
    _crash(path, "secret kiwi", '{False: ["a"]}, {'
           'False: [SparseRow("b", "b.md", False, "fig", "B", "")], '
           'True: [SparseRow("a", "a.md", False, "secret kiwi", "A", "")]}')
    reader = Bm25Store(path)  # its public engine still ranks a's text, its table holds b
    assert reader.search("ns", "kiwi", 5, private=False, include_archived=True) == []
    reader.close()


def test_an_engine_commit_that_failed_is_made_good_by_the_stores_next_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    bm25 = Bm25Store(tmp_path / "bm25.sqlite")
    bm25.create("ns")
    bm25.replace("ns", {}, {False: [SparseRow("a", "a.md", False, "old kiwi", "A", "")]})
    commit = bm25_engine.Bm25Engine.commit

    def full_disk(engine: bm25_engine.Bm25Engine) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(bm25_engine.Bm25Engine, "commit", full_disk)
    with pytest.raises(OSError, match="No space"):  # the table took it, the engine did not
        bm25.replace("ns", {}, {False: [SparseRow("a", "a.md", False, "new mango", "A", "")]})
    monkeypatch.setattr(bm25_engine.Bm25Engine, "commit", commit)
    bm25.replace("ns", {}, {False: [_row(2, "fig jam")]})  # the same process writes on
    assert (_found(bm25, "kiwi"), _found(bm25, "mango"), _found(bm25, "fig")) == (
        [], ["a"], ["id2"])
    bm25.close()


def _filled(path: Path) -> Bm25Store:
    bm25 = Bm25Store(path)
    bm25.create("ns")
    bm25.replace("ns", deletes={}, inserts={False: [_row(1, "kiwi tart"), _row(2, "fig jam")]})
    return bm25


def test_an_engine_of_another_version_is_rebuilt_from_the_table(tmp_path: Path) -> None:
    path = tmp_path / "bm25.sqlite"
    filled = _filled(path)
    before = filled.engine_folder("ns", False)
    filled.close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE bm25_state SET engine = 'tantivy 0.1; another analyzer'")
    bm25 = Bm25Store(path)
    bm25.create("ns")
    assert bm25.engine_folder("ns", False) != before and not before.exists()
    assert _found(bm25, "kiwi") == ["id1"]
    bm25.close()


def _garble_meta(folder: Path) -> None:
    """Garble the meta.json of the engine in use in the BM25 engines' `folder`."""
    store = Bm25Store(folder.with_suffix(".sqlite"))
    engine = store.engine_folder("ns", False)
    store.close()
    (engine / "meta.json").write_text("{not json")


@pytest.mark.parametrize(("harm", "message"), [
    (_garble_meta, "ora index"),
    (shutil.rmtree, "no ranking engine"),
])
def test_a_damaged_or_missing_engine_is_reported_to_a_reader_and_rebuilt_by_a_writer(
    tmp_path: Path, harm: Callable[[Path], None], message: str,
) -> None:
    path = tmp_path / "bm25.sqlite"
    _filled(path).close()
    harm(tmp_path / "bm25")
    reader = Bm25Store(path)
    with pytest.raises(IndexDamaged, match=message):
        _found(reader, "kiwi")
    reader.close()
    writer = Bm25Store(path)
    writer.create("ns")
    assert (_found(writer, "kiwi"), _found(writer, "fig")) == (["id1"], ["id2"])
    writer.close()


@pytest.mark.parametrize("harm", [_garble_meta, shutil.rmtree])
def test_an_engine_damaged_under_an_open_reader_is_reported_and_reopened_once_rebuilt(
    tmp_path: Path, harm: Callable[[Path], None],
) -> None:
    path = tmp_path / "bm25.sqlite"
    _filled(path).close()
    reader = Bm25Store(path)
    assert _found(reader, "kiwi") == ["id1"]  # its engine is open
    harm(tmp_path / "bm25")
    with pytest.raises(IndexDamaged, match="ora index"):
        _found(reader, "kiwi")
    writer = Bm25Store(path)
    writer.create("ns")
    assert _found(reader, "kiwi") == ["id1"]
    writer.close()
    reader.close()


# The first layout: FTS5 over the chunk table, kept in step by triggers.
_FTS5_INDEX = """
CREATE VIRTUAL TABLE "ns__vault_fts" USING fts5(
    text, title, heading, about, content='ns__vault', content_rowid='rowid',
    tokenize='porter unicode61 remove_diacritics 2');
CREATE TRIGGER "ns__vault_ai" AFTER INSERT ON "ns__vault" BEGIN
    INSERT INTO "ns__vault_fts"(rowid, text, title, heading, about)
    VALUES (new.rowid, new.text, new.title, new.heading, new.about);
END;
"""
_FTS5_STORE = """
CREATE TABLE "ns__vault" (
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, path TEXT NOT NULL,
    archived INTEGER NOT NULL, text TEXT NOT NULL, title TEXT NOT NULL, heading TEXT NOT NULL,
    about TEXT NOT NULL DEFAULT '');
""" + _FTS5_INDEX + """
INSERT INTO "ns__vault" (id, path, archived, text, title, heading)
VALUES ('id1', 'n1.md', 0, 'kiwi tart', 'Note 1', ''),
       ('id2', 'n2.md', 1, 'kiwi jam', 'Note 2', '');
"""


def test_a_store_of_the_fts5_layout_keeps_its_chunks_and_is_ranked_by_the_engine(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bm25.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(_FTS5_STORE)
    bm25 = Bm25Store(path)
    bm25.create("ns")
    assert _ids(bm25.search("ns", "kiwi", 5, private=False, include_archived=False)) == ["id1"]
    assert sorted(_found(bm25, "kiwi")) == ["id1", "id2"]
    bm25.replace("ns", deletes={False: ["id1"]}, inserts={})  # no trigger writes to FTS5 now
    tables = {name for (name,) in sqlite3.connect(path).execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")}
    assert not {t for t in tables if "fts" in t or t.endswith("_ai")}
    assert _found(bm25, "kiwi") == ["id2"]
    bm25.close()


# What a sidecar of the FTS5 layout does to a store it opens and writes (a downgrade): its FTS5
# table and triggers are back, and a chunk is rewritten under a new rowid (as many as before).
_OLDER_SIDECAR_WRITES = _FTS5_INDEX + """
DELETE FROM "ns__vault" WHERE id = 'id1';
INSERT INTO "ns__vault" (id, path, archived, text, title, heading)
VALUES ('id1', 'n1.md', 0, 'mango tart', 'Note 1', '');
"""


def test_a_store_written_by_an_older_sidecar_since_its_engine_was_built_is_rebuilt(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bm25.sqlite"
    _filled(path).close()
    with sqlite3.connect(path) as conn:
        conn.executescript(_OLDER_SIDECAR_WRITES)
    bm25 = Bm25Store(path)
    bm25.create("ns")
    assert (_found(bm25, "kiwi"), _found(bm25, "mango"), _found(bm25, "fig")) == (
        [], ["id1"], ["id2"])
    bm25.close()


def test_a_reader_sees_a_writers_commit_at_its_next_search(tmp_path: Path) -> None:
    writer = _filled(tmp_path / "bm25.sqlite")
    reader = Bm25Store(tmp_path / "bm25.sqlite")
    assert _found(reader, "plum") == []
    writer.replace("ns", deletes={}, inserts={False: [_row(3, "plum cake")]})
    assert _found(reader, "plum") == ["id3"]
    reader.close()
    writer.close()


def test_a_filter_restricts_the_ranking_to_its_chunks(store: Bm25Store) -> None:
    among = {False: ["id2", "id4"], True: ["id9"]}
    hits = store.search("default", "repetition diary torch", 5, private=True,
                        include_archived=False, only=among)
    assert _ids(hits) == ["id9", "id2"] or _ids(hits) == ["id2", "id9"]
    archived = store.search("default", "repetition", 5, private=False, include_archived=True,
                            only={False: ["id4"]})
    assert _ids(archived) == ["id4"]
    assert store.search("default", "repetition", 5, private=False, include_archived=False,
                        only={False: ["id4"]}) == []


@pytest.fixture(scope="module")
def orchard(tmp_path_factory: pytest.TempPathFactory) -> Bm25Store:
    """60 chunks: the first 40 mention "apple" (the lower the number, the more often and the
    shorter the chunk, so every score differs), the last 20 do not; every fifth is archived."""
    bm25 = Bm25Store(tmp_path_factory.mktemp("orchard") / "bm25.sqlite")
    bm25.create("ns")
    rows = [_row(i, " ".join(["apple"] * (8 - i // 5) + ["pear"] * (i + 1)) if i < 40
                 else "pear " * (i + 1), archived=i % 5 == 4) for i in range(60)]
    bm25.replace("ns", deletes={}, inserts={False: rows})
    return bm25


def _exactly_among(
    bm25: Bm25Store, monkeypatch: pytest.MonkeyPatch, k: int, only: list[str], archived: bool
) -> list[tuple[str, float]]:
    """The ranking among `only` the exact way (tantivy restricted to their rowids)."""
    with monkeypatch.context() as patched:
        patched.setattr("sidecar.index.bm25_query.overfetch", lambda *_: None)
        return bm25.search("ns", "apple", k, private=False, include_archived=archived,
                           only={False: only})


@settings(max_examples=60, deadline=None)
@given(admitted=st.sets(st.integers(0, 59), min_size=25), k=st.integers(1, 12),
       archived=st.booleans())
def test_a_wide_filter_ranks_as_the_exact_search_among_its_chunks(
    orchard: Bm25Store, admitted: set[int], k: int, archived: bool,
) -> None:
    only = [f"id{i}" for i in sorted(admitted)]
    with pytest.MonkeyPatch.context() as monkeypatch:
        asked: list[object] = []
        real_top = bm25_engine.Bm25Engine.top

        def top(self: bm25_engine.Bm25Engine, *args: object, **kwargs: object) -> object:
            asked.append(kwargs.get("among"))
            return real_top(self, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(bm25_engine.Bm25Engine, "top", top)
        found = orchard.search("ns", "apple", k, private=False, include_archived=archived,
                               only={False: only})
        exact = _exactly_among(orchard, monkeypatch, k, only, archived)
    assert _ids(found) == _ids(exact)
    assert [round(s, 4) for _, s in found] == [round(s, 4) for _, s in exact]
    assert asked[0] is None  # the unfiltered ranking was asked first


def test_a_wide_filter_whose_chunks_the_unfiltered_top_misses_searches_among_them(
    orchard: Bm25Store, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The filter admits the 20 weakest "apple" chunks and the 20 without it: none of them is in
    # the unfiltered top 2 × 3 × 60 / 40 = 9, so the store searches among them.
    only = [f"id{i}" for i in range(20, 60)]
    found = orchard.search("ns", "apple", 3, private=False, include_archived=False,
                           only={False: only})
    assert _ids(found) == ["id20", "id21", "id22"]
    assert found == _exactly_among(orchard, monkeypatch, 3, only, False)


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("東京都と京都府を旅行した記録。", "京都"),  # a word inside a run of kanji and kana
        ("机器学习中的注意力机制", "注意力"),  # Chinese: no spaces at all
        ("サーバーの再起動手順", "再起動"),
        ("서울에서 친구를 만났다", "서울"),  # Korean: a particle attached to the word
        ("AI研究の最新動向", "研究"),  # Latin letters and kanji in one run
    ],
)
def test_words_inside_cjk_text_are_found(tmp_path: Path, text: str, query: str) -> None:
    bm25 = Bm25Store(tmp_path / "bm25.sqlite")
    bm25.create("default")
    bm25.replace("default", deletes={}, inserts={False: [
        _row(1, text), _row(2, "An English note about something else entirely."),
        _row(3, "無関係な文書です。" if "京都" not in text else "大阪の食べ物について。")]})
    hits = bm25.search("default", query, 5, private=False, include_archived=False)
    assert [cid for cid, _ in hits] == ["id1"]
    bm25.close()


def test_a_markdown_links_target_is_searched_by_its_words_not_its_url_encoding(
    tmp_path: Path,
) -> None:
    # `[see this](Graph%20view.md)` was indexed as the tokens "graph", "20view" and "md".
    bm25 = Bm25Store(tmp_path / "bm25.sqlite")
    bm25.create("ns")
    bm25.replace("ns", deletes={}, inserts={False: [
        SparseRow("m", "Intro.md", False, "Ideas: [see this](Tools/Graph%20view.md#Zoom%20in).",
                  "", "")]})
    assert [cid for cid, _ in bm25.search("ns", "view", 5, private=False,
                                          include_archived=False)] == ["m"]
    bm25.close()
