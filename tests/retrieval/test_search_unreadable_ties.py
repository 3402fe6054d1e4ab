"""Chunks the embedder cannot read share one vector; they must not crowd out the keyword match.

USE-m3 (the embedder `auto` gives a vault mostly not in English) reads a run of characters
outside its vocabulary (CJK Extension B, Khmer, emoji) as one unknown token, so every such chunk
gets one vector and one dense score. Ranked by competition ranks each of them was first in the
dense list, and with more of them than the candidate pool holds they filled it: the one note
holding the query's word (BM25's first) was dropped, all results from an unreadable note.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from sidecar.index import Index, open_index
from sidecar.models.embedder import Embedder, open_embedder
from sidecar.retrieval.fusion import rrf, shared_ranks
from sidecar.retrieval.search import SearchOptions, search
from sidecar.settings import make_config

KOREAN = "다음주회의는수요일오후세시에시작합니다"


@pytest.fixture(scope="module")
def use_m3(multilingual_models: Path) -> Embedder:
    return open_embedder("use-multilingual-v3", multilingual_models)


def _unreadable(n: int) -> str:
    """A note of CJK Extension B characters (no USE-m3 piece), long enough for many chunks."""
    return "# 𠀀\n\n" + "".join(chr(0x20000 + n * 600 + i % 500) for i in range(6000)) + "\n"


@pytest.fixture
def crowded(tmp_path: Path, use_m3: Embedder) -> Iterator[Index]:
    """More unreadable chunks than the candidate pool holds, and two readable notes."""
    vault = tmp_path / "vault"
    vault.mkdir()
    for n in range(6):
        (vault / f"astral {n}.md").write_text(_unreadable(n), encoding="utf-8")
    notes = {"机器学习.md": "# 机器学习\n\n今天用Python写了一个小例子。\n",
             "회의.md": "# 회의\n\n다음 주 회의에서 예산 검토를 진행합니다.\n"}
    for name, text in notes.items():
        (vault / name).write_text(text, encoding="utf-8")
    index = open_index(make_config(vault), writer=True, embedder=use_m3)
    index.reconcile()
    yield index
    index.close()


@pytest.mark.parametrize(("query", "note"), [
    ("Python", "机器学习.md"), ("Ｐｙｔｈｏｎ", "机器学习.md"), ("검토", "회의.md")])
async def test_unreadable_chunks_tied_do_not_crowd_out_the_keyword_match(
    crowded: Index, use_m3: Embedder, query: str, note: str
) -> None:
    document = await search(crowded, use_m3, None, query, SearchOptions(k=10, rerank=False))
    results = document["results"]
    unreadable = [r for r in results if r["path"].startswith("astral")]
    # the premise: more unreadable chunks than the pool, all of one dense score
    assert len({r["why"]["dense_rank"] for r in unreadable}) == 1
    assert crowded.ledger.stats(crowded.namespace)["chunks"] > 100
    assert results[0]["path"] == note
    assert results[0]["why"]["bm25_rank"] == 1


def test_distinct_texts_tied_share_the_mean_of_their_places() -> None:
    tied = [("a", 0.9), ("b", 0.5), ("c", 0.5), ("d", 0.5), ("e", 0.1)]
    assert shared_ranks(tied, {}) == {"a": 1, "b": 3, "c": 3, "d": 3, "e": 5}
    # copies of one text take one place: the rank that text alone would have
    assert shared_ranks(tied, {"b": "x", "c": "x", "d": "x"}) == {
        "a": 1, "b": 2, "c": 2, "d": 2, "e": 5}
    assert shared_ranks(tied, {"b": "x", "c": "x", "d": "y"}) == {
        "a": 1, "b": 2.5, "c": 2.5, "d": 2.5, "e": 5}
    # told nothing of their texts, tied chunks are taken as copies (competition ranks)
    assert shared_ranks(tied) == {"a": 1, "b": 2, "c": 2, "d": 2, "e": 5}
    fused = rrf({"dense": tied}, {}, 60, copies={})
    assert fused["b"] == fused["c"] == fused["d"] == pytest.approx(1 / 63)


def test_hangul_saved_decomposed_embeds_as_the_syllables_it_is(use_m3: Embedder) -> None:
    """USE-m3's normaliser composes no jamo: a note saved NFD (macOS) was one unknown token."""
    composed, decomposed, other = use_m3.embed(
        [KOREAN, unicodedata.normalize("NFD", KOREAN), "ភាសាខ្មែរ"])
    assert float(np.dot(composed, decomposed)) == pytest.approx(1.0, abs=1e-5)
    assert float(np.dot(decomposed, other)) < 0.9
    query = use_m3.embed_queries([unicodedata.normalize("NFD", "회의")])[0]
    assert float(np.dot(query, use_m3.embed_queries(["회의"])[0])) == pytest.approx(1.0, abs=1e-5)
