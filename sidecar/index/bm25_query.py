"""A BM25 query of one store (`bm25.py`): its terms, their feedback expansion, and the store's
chunks it ranks first, by its engine and its table.

Any user text is a valid query: its word tokens, analysed as the index analyses text in every
language of the store's notes (`schema/languages.json`; English without the query stopwords of
`schema/ranking.json`), OR-ed (the classic bag-of-words BM25 query). Archived chunks are left
out after ranking (over-fetch; a slower exact query when they crowd the top), so a query still
returns up to k rows.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Collection, Sequence

from sidecar.errors import IndexDamaged
from sidecar.index.bm25_engine import Bm25Engine, Terms, analyze, takes_feedback
from sidecar.index.scope import overfetch
from sidecar.language import languages
from sidecar.schema import get_schema

# Longer queries add little and cost a posting list per term.
MAX_QUERY_TERMS = 64
# The languages of each store's notes (written by `bm25.py`): a query is analysed in those only
# (each costs its analysis and a term query per word).
LANGUAGES = "bm25_languages"


def query_terms(query: str, codes: Collection[str] | None = None) -> Terms:
    """The index terms of arbitrary text in every language, or in `codes`: its words but
    stopwords, analysed (empty if none)."""
    words = list(dict.fromkeys(languages.words(query)))[:MAX_QUERY_TERMS]
    stop = get_schema().bm25_stopwords
    # The English field folds accents, so "à" would match every English "a": a word that is a
    # stopword once folded is one. A query of nothing but stopwords ("to be or not to be")
    # still searches for them.
    english = [w for w in words if w not in stop and languages.ascii_folded(w) not in stop]
    return analyze(english or words, words, codes)


class Bm25Query:
    """One query's terms and each store's feedback expansion (`_with_feedback`), worked out once
    and shared by the searches of one query: the chunk search and the note-level search each
    expanded it before, reading the store's first chunks twice (`search.candidates`). Safe to
    share between threads (the second to ask waits for the first's expansion)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._guard = threading.Lock()
        self._terms: dict[tuple[str, ...], Terms] = {}
        self._expanded: dict[tuple[tuple[str, ...], str], Terms] = {}

    def terms(self, conn: sqlite3.Connection, stores: Sequence[str]) -> Terms:
        """The query's terms in the languages of `stores`' notes (`query_terms`)."""
        with self._guard:
            return self._base(conn, tuple(stores))

    def _base(self, conn: sqlite3.Connection, stores: tuple[str, ...]) -> Terms:
        if stores not in self._terms:
            self._terms[stores] = query_terms(self.text, _languages_of(conn, stores))
        return self._terms[stores]

    def takes_feedback(self) -> bool:
        """Whether the terms worked out so far reach a language whose queries take feedback:
        whether a store searched holds notes in a language other than English."""
        with self._guard:
            return any(takes_feedback(terms) for terms in self._terms.values())

    def expanded(self, conn: sqlite3.Connection, stores: Sequence[str], name: str,
                 engine: Bm25Engine) -> Terms:
        """The terms, with feedback from the first chunks of the store `name` (one of `stores`)."""
        key = (tuple(stores), name)
        with self._guard:
            if key not in self._expanded:
                self._expanded[key] = _with_feedback(conn, name, engine,
                                                     self._base(conn, key[0]))
            return self._expanded[key]


def damaged(name: str, reason: str) -> IndexDamaged:
    return IndexDamaged(f"the index's BM25 store (bm25/{name}) is damaged or missing ({reason}); "
                        "run `ora index` on the vault to rebuild it")


def _languages_of(conn: sqlite3.Connection, stores: Sequence[str]) -> set[str] | None:
    """The languages of the stores' notes; None (every language) before any were recorded."""
    try:
        codes = {str(code) for (code,) in conn.execute(
            f'SELECT lang FROM "{LANGUAGES}" WHERE store IN (SELECT value FROM json_each(?))',
            (json.dumps(list(stores)),))}
    except sqlite3.OperationalError:  # a database of the layout before languages
        return None
    return codes or None


def _chunks(conn: sqlite3.Connection, name: str,
            ranked: Sequence[tuple[int, float]]) -> dict[int, tuple[str, bool]]:
    """(chunk id, archived) by rowid, for the rowids of `ranked` still in the table."""
    return {rowid: (cid, bool(archived)) for rowid, cid, archived in conn.execute(
        f'SELECT rowid, id, archived FROM "{name}" WHERE rowid IN '
        "(SELECT value FROM json_each(?))", (json.dumps([r for r, _ in ranked]),))}


def _with_feedback(
    conn: sqlite3.Connection, name: str, engine: Bm25Engine, terms: Terms,
) -> Terms:
    """`terms` expanded by the text of the store's first live chunks for them (languages.json
    `feedback`; a store's own chunks only, so a private note never shapes a public search). Each
    chunk is read in its note's language as ora.yaml sets it, else in the one detected from its
    own text (an English chunk of a mixed vault lends an English query nothing)."""
    if not takes_feedback(terms):
        return terms
    docs = languages.spec().feedback_docs
    ranked = engine.top(terms, 2 * docs)
    rows = {rowid: (text, lang) for rowid, text, lang in conn.execute(
        f'SELECT rowid, text, lang FROM "{name}" WHERE archived = 0 AND rowid IN '
        "(SELECT value FROM json_each(?))", (json.dumps([r for r, _ in ranked]),))}
    first = [rows[r] for r, _ in ranked if r in rows][:docs]
    return engine.feedback(terms, [(text, languages.language_of([text], lang or None))
                                   for text, lang in first])


def hits(
    conn: sqlite3.Connection, name: str, shared: Bm25Query, stores: Sequence[str], k: int,
    include_archived: bool, ids: Sequence[str] | None, engine: Bm25Engine,
) -> list[tuple[str, float]]:
    """Top-k (chunk id, score) of one store by its `engine`, among the chunk ids `ids` when
    given."""
    try:
        expanded = shared.expanded(conn, stores, name, engine)
        if ids is None:
            return _top(conn, name, engine, expanded, k, include_archived)
        return _top_among(conn, name, engine, expanded, k, include_archived, ids)
    except (ValueError, OSError) as exc:  # damaged or removed since it was opened
        raise damaged(name, str(exc).splitlines()[0]) from exc


def _top(
    conn: sqlite3.Connection, name: str, engine: Bm25Engine, terms: Terms, k: int,
    include_archived: bool,
) -> list[tuple[str, float]]:
    """Top-k (chunk id, score) of one store.

    Leaving archived chunks out inside the engine costs its skipping (every match is scored),
    and archived chunks are rare: rank 2k, look those up, and pay for the exact query only when
    archived chunks crowd the top.
    """
    wanted = k if include_archived else 2 * k
    ranked = engine.top(terms, wanted)
    kept = _kept(conn, name, ranked, include_archived)
    if len(kept) >= k or len(ranked) < wanted:  # enough, or every match was seen
        return kept[:k]
    return _kept(conn, name, engine.top(terms, k, live_only=True), True)


def _kept(
    conn: sqlite3.Connection, name: str, ranked: Sequence[tuple[int, float]],
    include_archived: bool, admitted: set[str] | None = None,
) -> list[tuple[str, float]]:
    """`ranked` as (chunk id, score), for the rowids still in the table, archived chunks left
    out unless `include_archived`, and only the `admitted` ids when given."""
    rows = _chunks(conn, name, ranked)
    return [(rows[rowid][0], score) for rowid, score in ranked
            if rowid in rows and (include_archived or not rows[rowid][1])
            and (admitted is None or rows[rowid][0] in admitted)]


def _top_among(
    conn: sqlite3.Connection, name: str, engine: Bm25Engine, terms: Terms, k: int,
    include_archived: bool, ids: Sequence[str],
) -> list[tuple[str, float]]:
    """Top-k (chunk id, score) of one store among the chunk ids `ids` (looked up as one JSON
    array, so there is no limit on how many).

    When `ids` are a large share of the store, its unfiltered top (see `scope.overfetch`) is
    ranked first and the admitted hits kept: the exact search below costs as many ids as the
    filter admits, the unfiltered one skips what cannot reach the top."""
    fetch = overfetch(k, len(ids), engine.count())
    if fetch is not None:
        ranked = engine.top(terms, fetch)
        kept = _kept(conn, name, ranked, include_archived, set(ids))
        if len(kept) >= k or len(ranked) < fetch:  # enough, or every match was seen
            return kept[:k]
    archived = "" if include_archived else "AND archived = 0"
    among = dict(conn.execute(
        f'SELECT rowid, id FROM "{name}" WHERE id IN (SELECT value FROM json_each(?)) {archived}',
        (json.dumps(list(ids)),)).fetchall())
    if not among:
        return []
    return [(str(among[rowid]), score)
            for rowid, score in engine.top(terms, k, among=list(among))
            if rowid in among]
