"""Reading BEIR files and caching corpus vectors on disk."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from sidecar.errors import BadRequest
from sidecar.retrieval.beir import load_corpus, load_qrels, load_queries
from sidecar.retrieval.vector_cache import BLOCK, cached_embed


def test_beir_files_load_with_titles_joined_and_header_skipped(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        json.dumps({"_id": "d1", "title": "T", "text": "body"}) + "\n\n"
        + json.dumps({"_id": 2, "text": "untitled"}) + "\n"
    )
    (tmp_path / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "what"}) + "\n")
    (tmp_path / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\t2\t0\n")
    docs = load_corpus(corpus)
    assert [d.passage for d in docs] == ["T\nbody", "untitled"]
    assert load_queries(tmp_path / "queries.jsonl") == {"q1": "what"}
    assert load_qrels(tmp_path / "qrels.tsv") == {"q1": {"d1": 1, "2": 0}}


def test_malformed_jsonl_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "queries.jsonl"
    bad.write_text('{"_id": "1", "text": "ok"}\n{oops\n')
    with pytest.raises(BadRequest, match=r"queries.jsonl:2"):
        load_queries(bad)


def test_cached_vectors_are_reused_per_block_and_keyed_by_model(tmp_path: Path) -> None:
    calls: list[int] = []

    def embed(texts: Sequence[str]) -> np.ndarray:
        calls.append(len(texts))
        return np.array([[float(len(t)), 1.0] for t in texts], dtype=np.float32)

    texts = [f"passage {i}" for i in range(BLOCK + 3)]
    first = cached_embed(texts, embed, "model-a", tmp_path)
    assert calls == [BLOCK, 3]
    again = cached_embed(texts, embed, "model-a", tmp_path)
    assert calls == [BLOCK, 3]
    np.testing.assert_array_equal(first, again)
    changed = [*texts[:-1], "a different last passage"]
    cached_embed(changed, embed, "model-a", tmp_path)
    assert calls == [BLOCK, 3, 3]
    cached_embed(texts, embed, "model-b", tmp_path)
    assert calls == [BLOCK, 3, 3, BLOCK, 3]
