"""The BM25 ranking engine of one sparse store: a tantivy index of its chunks, keyed by rowid.

FTS5's `bm25()` scores every chunk that contains any query term before `ORDER BY … LIMIT` keeps
the best (~45 CPU-ms a query at 100k chunks); tantivy keeps per-block score bounds and skips the
blocks that cannot reach the current top k (block-max WAND), ~1 CPU-ms at 100k. A chunk is one
field, its note's names, heading path and description before its text and its note's
incoming-link text after it (`anchors.py`), scored by BM25 (k1 1.2, b 0.75): on SciFact's
train queries this ranked better, alone and fused, than per-field BM25 with the names at half
weight (docs/benchmarks.md). That field is its note's language's
(`languages.py`): each language has its own stemmer and stopwords, and a query is analysed in
every language, so a note matches the query as its own language reads it; the notes of compound
languages also index the character n-grams of their long words, for a part to find the whole,
and the letters of Chinese, Japanese and Korean runs are indexed one by one beside their pairs,
for a word of one character ("茶") to be found.
In languages other than English a query is expanded by pseudo-relevance feedback: the best terms
of its first chunks are added at a lower weight (`feedback`), which on the help vaults in
Italian, Dutch and French found 4–5 more of 76 notes in the top 5 of the default search.
Only what ranking needs is indexed (term frequencies, no positions, no stored text): the chunk
table in `bm25.sqlite` stays the record, and the rowid maps a hit back to it.

One writer thread with a small fixed memory budget; segments are memory-mapped by readers. Every
search first reloads when the index's `meta.json` changed (every commit replaces it), so it sees
the last commit, this process's or another's.
"""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import threading
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from importlib.metadata import version
from pathlib import Path
from typing import Any

import tantivy

from sidecar.data_folder import private_folder, private_tree
from sidecar.errors import engine_storage_error
from sidecar.language import languages
from sidecar.language.languages import segment
from sidecar.schema import load_json

# What is indexed and how, recorded (with the engine's version) so a change rebuilds the index.
LAYOUT = ("body: title heading about text anchors(by path); composed (NFC, widths NFKC), "
          "splitting marks dropped, letters unified (scripts' marks and same, lowercase, Han "
          "Traditional as Simplified), unspaced bigrams (CJK, Thai, Lao, Khmer, Myanmar) "
          "simple remove_long(40) "
          "lowercase ascii_fold stemmer(en); body_LANG per languages.json: stopword(LANG) "
          "stemmer(LANG) ascii_fold, and again folded the words whose fold then stem differs; "
          "grams: n-grams of long words of compound languages; chars: "
          "letters of CJK runs one by one; notes: whole notes of the languages taking feedback")


def analysis(doc: dict[str, Any]) -> dict[str, Any]:
    """languages.json as BM25 analysis reads it: without its comments, so rewording one rebuilds
    nothing, nor `fold` (read by the phrase lift at query time, language/accents.py) or `suggest`
    (the embedder offered for a vault, language/suggest.py)."""
    return {k: _uncommented(v) for k, v in doc.items()
            if k not in ("description", "fold", "suggest")}


def _uncommented(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _uncommented(v) for k, v in value.items() if k != "$comment"}
    if isinstance(value, list):
        return [_uncommented(v) for v in value]
    return value


VERSION = "; ".join([version("tantivy"), LAYOUT,
                     json.dumps(analysis(load_json("languages.json")), sort_keys=True),
                     load_json("han_variants.json")["source"]["member_sha256"]])
# The writer's indexing memory (one thread): flushed to a segment when full (issue 17).
WRITER_HEAP = 16_000_000
_GRAMS = "grams"
_GRAMS_TOKENIZER = "ora_grams"
# The letters of Chinese, Japanese and Korean runs one by one (`languages.indexed`): a query's
# word of one character is no pair of the language fields.
_CHARS = "chars"
# Shorter feedback terms are mostly noise (elided articles and pronouns, stems of two letters).
_FEEDBACK_MIN_LENGTH = 3

def _tokenizer(code: str) -> str:
    return f"ora_{code}"


@dataclass(frozen=True)
class Terms:
    """A query's index terms: (field, term) pairs of the word fields, the character n-grams its
    long words match in compound languages' notes, and the (field, term) pairs feedback added
    (both at their lower weights of languages.json)."""

    words: tuple[tuple[str, str], ...] = ()
    grams: tuple[str, ...] = ()
    feedback: tuple[tuple[str, str], ...] = ()
    # Per pair of `words`, the query token it reads in its language (the same token read in
    # other languages shares the number): its rarity is counted over all their fields.
    tokens: tuple[int, ...] = ()
    # Its Chinese, Japanese and Korean words of one character, looked up in `chars`.
    chars: tuple[str, ...] = ()
    # Per pair of `words`, the term of its word folded before the stemmer where that differs
    # (`languages.unaccented`), sought beside it, the better of the two scoring: a note
    # written without the accents holds only that one.
    unaccented: tuple[str | None, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.words or self.grams or self.chars)


def analyze(english: Sequence[str], words: Sequence[str],
            codes: Collection[str] | None = None) -> Terms:
    """The index terms of query words in every language, or in `codes` (`english`: the words
    English keeps, its query stopwords dropped), without repeats. A note is scored by the terms
    of its own language only, since its text is in that language's field alone."""
    pairs: dict[tuple[str, str], int] = {}
    folded: dict[tuple[str, str], str | None] = {}
    token_ids: dict[tuple[str, int], int] = {}
    for code, lang in languages.spec().languages.items():
        if codes is not None and code not in codes:
            continue
        for word in english if code == "en" else words:
            if code != "en" and languages.query_stopword(code, word):
                continue
            written = segment(word)
            plain = languages.unaccented(code, written)
            for i, term in enumerate(languages.analyze(code, written)):
                token = token_ids.setdefault((word, i), len(token_ids))
                pairs.setdefault((lang.field, term), token)
                if plain is not None and plain[i] != term:
                    folded.setdefault((lang.field, term), plain[i])
    compound = codes is None or any(languages.compounds(code) for code in codes)
    grams = dict.fromkeys(g for w in words for g in languages.grams(w)) if compound else {}
    chars = dict.fromkeys(c for w in words for c in languages.lone_characters(w))
    return Terms(tuple(pairs), tuple(grams), tokens=tuple(pairs.values()), chars=tuple(chars),
                 unaccented=tuple(folded.get(pair) for pair in pairs) if folded else ())


def takes_feedback(terms: Terms) -> bool:
    """Whether `terms` reach a language whose queries are expanded by feedback."""
    fields = {field for field, _ in terms.words}
    return any(lang.feedback and lang.field in fields
               for lang in languages.spec().languages.values())


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("rowid", indexed=True, fast=True)
    builder.add_unsigned_field("archived", indexed=True)
    for code, lang in languages.spec().languages.items():
        builder.add_text_field(lang.field, tokenizer_name=_tokenizer(code), index_option="freq")
    builder.add_text_field(_GRAMS, tokenizer_name=_GRAMS_TOKENIZER, index_option="freq")
    # as the n-grams: words already cut, separated by spaces
    builder.add_text_field(_CHARS, tokenizer_name=_GRAMS_TOKENIZER, index_option="freq")
    return builder.build()


_SCHEMA = _schema()
Doc = tuple[int, bool, str, str]
"""(rowid, archived, body, language code)."""


class Bm25Engine:
    """The tantivy index in `folder` (with `create`, created if absent; else ValueError); its
    writer opens on the first write."""

    def __init__(self, folder: Path, *, create: bool = True) -> None:
        # Without `create`, a folder removed meanwhile is not made again, empty.
        private_folder(folder.parent, create=create)
        self.folder = private_folder(folder, create=create)
        self._index = (tantivy.Index(_SCHEMA, str(folder), reuse=True) if create
                       else tantivy.Index.open(str(folder)))
        if self._index.schema != _SCHEMA:  # as `reuse` refuses it
            raise ValueError("An index exists but the schema does not match.")
        for code, lang in languages.spec().languages.items():
            self._index.register_tokenizer(_tokenizer(code), languages.analyzer(lang))
        self._index.register_tokenizer(
            _GRAMS_TOKENIZER, tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build())
        # No watcher thread: `top` reloads when a commit replaced meta.json. A reload costs with
        # the number of fields (~0.7 ms with a field per language), a stat ~5 µs.
        self._index.config_reader(reload_policy="manual")
        self._seen: tuple[int, int, int] | None = None
        self._writer: tantivy.IndexWriter | None = None
        self._guard = threading.Lock()

    @staticmethod
    def exists(folder: Path) -> bool:
        return folder.is_dir() and tantivy.Index.exists(str(folder))

    def _write(self) -> tantivy.IndexWriter:
        with self._guard:
            if self._writer is None:
                self._writer = self._index.writer(heap_size=WRITER_HEAP, num_threads=1)
            return self._writer

    @contextlib.contextmanager
    def _storing(self) -> Iterator[None]:
        """tantivy's failure to write its files (a full or unwritable disk) as
        StorageUnavailable: its own error is a bare ValueError, a traceback in `ora index`."""
        try:
            yield
        except ValueError as exc:
            storage = engine_storage_error(exc, self.folder)
            if storage is None:
                raise
            raise storage from exc

    def delete(self, rowids: Sequence[int]) -> None:
        # By query: `delete_documents_by_term` makes an i64 term of a Python int, which never
        # matches this u64 field.
        if rowids:
            with self._storing():
                self._write().delete_documents_by_query(
                    tantivy.Query.term_set_query(_SCHEMA, "rowid", list(rowids)))

    def delete_all(self) -> None:
        with self._storing():
            self._write().delete_all_documents()

    def add(self, docs: Iterable[Doc]) -> None:
        with self._storing():
            self._add(docs)

    def _add(self, docs: Iterable[Doc]) -> None:
        writer = self._write()
        spec = languages.spec()
        for rowid, archived, body, code in docs:
            lang = spec.languages.get(code) or spec.languages[spec.default]
            doc = tantivy.Document()
            doc.add_unsigned("rowid", rowid)
            doc.add_unsigned("archived", int(archived))
            words, chars = languages.indexed(body)
            doc.add_text(lang.field, words)
            plain = languages.unaccented_words(lang.code, words)
            if plain:
                doc.add_text(lang.field, plain)
            if lang.compounds:
                doc.add_text(_GRAMS, " ".join(languages.grams(body)))
            if chars:
                doc.add_text(_CHARS, chars)
            writer.add_document(doc)

    def commit(self) -> None:
        """Persist what was added and deleted; this object's searches see it at once."""
        if self._writer is not None:
            with self._storing():
                self._writer.commit()
            self._reload(force=True)
            private_tree(self.folder)  # tantivy creates its files with the process's umask

    def rollback(self) -> None:
        """Forget what was added and deleted since the last commit."""
        if self._writer is not None:
            self._writer.rollback()

    def _reload(self, *, force: bool = False) -> None:
        try:
            st = (self.folder / "meta.json").stat()
            stamp: tuple[int, int, int] | None = (st.st_ino, st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        if force or stamp is None or stamp != self._seen:
            self._index.reload()
            self._seen = stamp

    def count(self) -> int:
        return int(self._index.searcher().num_docs)

    def deleted(self) -> tuple[int, int]:
        """(deleted, held): how many of the documents this engine holds are deleted, and how
        many it holds. tantivy still counts the deleted in its statistics (document
        frequencies, lengths) until it merges their segment."""
        searcher = self._index.searcher()
        held = sum(int(searcher.doc_freq("archived", flag)) for flag in (0, 1))
        return held - int(searcher.num_docs), held

    def top(
        self, terms: Terms, k: int, *, live_only: bool = False,
        among: Sequence[int] | None = None,
    ) -> list[tuple[int, float]]:
        """Top-k (rowid, BM25 score) for the OR of `terms` (index terms, see `analyze`).
        `live_only` leaves out archived chunks, `among` keeps only those rowids; both cost the
        skipping (every match is then scored), so the plain query is the fast path."""
        if not terms or k <= 0:
            return []
        self._reload()  # another process's commits, too
        searcher = self._index.searcher()
        query = _query(terms, searcher)
        if live_only or among is not None:
            parts = [(tantivy.Occur.Must, query)]
            if live_only:
                parts.append((tantivy.Occur.MustNot,
                              tantivy.Query.term_query(_SCHEMA, "archived", 1)))
            if among is not None:
                parts.append((tantivy.Occur.Must, tantivy.Query.const_score_query(
                    tantivy.Query.term_set_query(_SCHEMA, "rowid", list(among)), 0.0)))
            query = tantivy.Query.boolean_query(parts)
        hits = searcher.search(query, k, count=False).hits
        rowids = searcher.fast_field_values("rowid", [address for _, address in hits])
        return [(int(rowid), float(score))
                for (score, _), rowid in zip(hits, rowids, strict=True) if rowid is not None]

    def feedback(self, terms: Terms, texts: Sequence[tuple[str, str]]) -> Terms:
        """`terms` with the best terms of `texts` ((text, language code): the query's first
        chunks), each analysed in its own language when that language takes feedback: a term's
        weight is its share of a text's words times its IDF, summed over the texts (RM3's
        relevance model, the query's own terms left out)."""
        spec = languages.spec()
        if not texts or not takes_feedback(terms):
            return terms
        self._reload()
        searcher = self._index.searcher()
        docs = searcher.num_docs
        have = set(terms.words)
        weights: dict[tuple[str, str], float] = {}
        for text, code in texts:
            lang = spec.languages.get(code)
            if lang is None or not lang.feedback:
                continue
            words = languages.analyze(code, segment(text))
            for term, n in Counter(words).items():
                pair = (lang.field, term)
                if pair in have or len(term) < _FEEDBACK_MIN_LENGTH:
                    continue
                found = searcher.doc_freq(lang.field, term)
                if found:
                    weights[pair] = (weights.get(pair, 0.0)
                                     + n / len(words) * math.log(1 + docs / found))
        best = sorted(weights.items(), key=lambda item: item[1], reverse=True)[
            : spec.feedback_terms]
        return replace(terms, feedback=tuple(pair for pair, _ in best))

    def close(self) -> None:
        """Wait for background merges and release the writer's lock."""
        with self._guard:
            writer, self._writer = self._writer, None
        if writer is not None:
            writer.wait_merging_threads()
        private_tree(self.folder)  # merged segments, lock files


def _query(terms: Terms, searcher: tantivy.Searcher) -> tantivy.Query:
    """The OR of the terms' word queries and their one-character words' (`chars`), and of their
    n-grams and feedback terms at their weights."""
    spec = languages.spec()
    weights = _shared_rarity(terms, searcher)
    folded = terms.unaccented or (None,) * len(terms.words)
    parts = [(tantivy.Occur.Should, _word(field, term, plain) if weight == 1.0 else
              tantivy.Query.boost_query(_word(field, term, plain), weight))
             for (field, term), weight, plain in zip(terms.words, weights, folded, strict=True)]
    parts += [(tantivy.Occur.Should, _term(_CHARS, char)) for char in terms.chars]
    for weighted, weight in (([(_GRAMS, gram) for gram in terms.grams], spec.gram_weight),
                             (list(terms.feedback), spec.feedback_weight)):
        if weighted:
            parts.append((tantivy.Occur.Should, tantivy.Query.boost_query(
                tantivy.Query.boolean_query([(tantivy.Occur.Should, _term(field, term))
                                             for field, term in weighted]), weight)))
    return tantivy.Query.boolean_query(parts)


def _shared_rarity(terms: Terms, searcher: tantivy.Searcher) -> list[float]:
    """Per pair of `terms.words`, the weight that scores it by the rarity of its query token in
    every language's field together, not in its own alone, where more than four in five of the
    token's documents are in other fields. tantivy counts a term's documents in its field but
    all documents of the index, so a word common in the vault's main language looked rare in the
    field of the few notes of another (a Khmer vault's notes read as English for their many
    English words): those few notes took the top of every search. A word shared more evenly (an
    Italian and English vault's "file", "plugin") keeps its field's rarity: corrected too, the
    Italian questions of such a vault ranked worse. In a store of one language every weight is
    1."""
    if not terms.tokens or len({field for field, _ in terms.words}) < 2:
        return [1.0] * len(terms.words)
    docs = int(searcher.num_docs)
    found = [int(searcher.doc_freq(field, term)) for field, term in terms.words]
    shared: dict[int, int] = {}
    for token, n in zip(terms.tokens, found, strict=True):
        shared[token] = shared.get(token, 0) + n
    return [_idf(shared[token], docs) / _idf(n, docs) if 0 < 4 * n < shared[token] else 1.0
            for token, n in zip(terms.tokens, found, strict=True)]


def _idf(found: int, docs: int) -> float:
    """tantivy's BM25 IDF (Lucene's)."""
    return math.log(1 + (docs - found + 0.5) / (found + 0.5))


def _word(field: str, term: str, unaccented: str | None) -> tantivy.Query:
    """A query word's term, or the better scoring of it and its unaccented form (`Terms`): a
    note holding both forms of the word is not scored for it twice."""
    if unaccented is None:
        return _term(field, term)
    return tantivy.Query.disjunction_max_query([_term(field, term), _term(field, unaccented)])


def _term(field: str, term: str) -> tantivy.Query:
    return tantivy.Query.term_query(_SCHEMA, field, term, index_option="freq")


def remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
