"""Note-level BM25: each note's chunks as one document, whose score lifts the note's chunks.

A question's words are often spread over a note: one in its title, one in a section, one in
another, so that no chunk holds them all and the note ranks low. Each store therefore keeps,
beside its chunk engine, an engine of whole notes (`engine`): a note's names and description,
then every chunk's heading path and text, keyed by the rowid of its first chunk. A search's
candidates are then lifted by their note's score there, a share `notes.weight`
(`schema/languages.json`) of the fused scale (`sidecar/retrieval/search.py`), in the languages
whose queries take feedback only (English keeps the ranking SciFact was tuned on). Scored alone
or mixed into the chunk scores before fusion, whole notes ranked worse (docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from sidecar.index.bm25_engine import Doc
from sidecar.language import languages
from sidecar.vault.links import searchable

_SUFFIX = ".notes"


def engine(store: str) -> str:
    """The folder of the note engine of `store`, beside the store's own."""
    return f"{store}{_SUFFIX}"


def lifts(code: str) -> bool:
    """Whether a note in the language `code` is given a note document: in the languages whose
    queries take feedback (the only ones whose search reads them)."""
    lang = languages.spec().languages.get(code)
    return lang is not None and lang.feedback


def document(rows: Sequence[tuple[int, int, str, str, str, str, str, str]], lang: str) -> Doc:
    """The note document of a note's table rows (rowid, archived, text, title, heading, about,
    path, lang), in the language `lang` (Markdown links to notes URL-decoded, as in `_body`)."""
    first = min(rows, key=lambda r: r[0])
    parts = [first[3], first[5], *(part for r in rows for part in (r[4], searchable(r[2])))]
    return first[0], bool(first[1]), "\n".join(part for part in parts if part), lang


def normalised(scores: Sequence[tuple[str, float]]) -> dict[str, float]:
    """(note path, score) pairs as shares of the best score, each note's best."""
    best = max((score for _, score in scores), default=0.0)
    out: dict[str, float] = {}
    for path, score in scores:
        if best > 0:
            out[path] = max(out.get(path, 0.0), score / best)
    return out
