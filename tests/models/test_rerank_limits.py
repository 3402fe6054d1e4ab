"""What keeps local re-ranking interactive: token-budget batches, truncation, the score cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sidecar.models.pairs import PairModel
from sidecar.models.reranker import LocalRerankLimits, OnnxCrossEncoder, rerank_limits
from sidecar.models.session import batches
from sidecar.schema import load_json

QUERY = "how does limescale form in a kettle"
PASSAGES = [("word " * n).strip() for n in (3, 40, 7, 120, 15, 60, 2, 90, 33, 5)]


def test_batches_stay_within_the_token_budget_and_cover_every_input(
    tiny_reranker_dir: Path,
) -> None:
    model = PairModel(tiny_reranker_dir)
    encodings = model.tokenizer.encode_batch([(QUERY, p) for p in PASSAGES])
    made = list(batches(encodings, model.inputs, token_budget=256))
    assert sorted(i for b in made for i in b.positions) == list(range(len(PASSAGES)))
    assert len(made) > 1
    for batch in made:
        rows, width = batch.feed["input_ids"].shape
        assert rows == 1 or rows * width <= 256


def test_token_budget_batching_gives_the_same_scores(tiny_reranker_dir: Path) -> None:
    by_count = OnnxCrossEncoder(tiny_reranker_dir, limits=LocalRerankLimits(30, 512, None, 0))
    by_budget = OnnxCrossEncoder(tiny_reranker_dir, limits=LocalRerankLimits(30, 512, 200, 0))
    np.testing.assert_allclose(by_budget.score(QUERY, PASSAGES), by_count.score(QUERY, PASSAGES),
                               atol=1e-5)


def test_pairs_are_truncated_to_max_tokens(tiny_reranker_dir: Path) -> None:
    model = PairModel(tiny_reranker_dir, max_tokens=24)
    lengths = [len(e.ids) for e in model.tokenizer.encode_batch([(QUERY, p) for p in PASSAGES])]
    assert max(lengths) == 24


def test_a_repeated_query_is_scored_from_the_cache_and_an_edited_passage_afresh(
    tiny_reranker_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    encoder = OnnxCrossEncoder(tiny_reranker_dir, limits=LocalRerankLimits(30, 256, 4096, 100))
    scored: list[int] = []
    real = encoder._model.logits

    def counting(pairs: list[tuple[str, str]]) -> np.ndarray:
        scored.append(len(pairs))
        return real(pairs)

    monkeypatch.setattr(encoder._model, "logits", counting)
    first = encoder.score(QUERY, PASSAGES + PASSAGES[:2])  # duplicates scored once
    assert scored == [len(PASSAGES)]
    assert encoder.score(QUERY, PASSAGES) == first[: len(PASSAGES)]
    assert scored == [len(PASSAGES)]
    edited = [*PASSAGES[:-1], PASSAGES[-1] + " edited"]
    encoder.score(QUERY, edited)
    assert scored == [len(PASSAGES), 1]
    encoder.score("another query", PASSAGES[:3])
    assert scored == [len(PASSAGES), 1, 3]


def test_the_cache_keeps_only_its_newest_entries(tiny_reranker_dir: Path) -> None:
    encoder = OnnxCrossEncoder(tiny_reranker_dir, limits=LocalRerankLimits(30, 256, 4096, 4))
    encoder.score(QUERY, PASSAGES)
    assert len(encoder._cache) == 4


def test_the_limits_come_from_the_schema() -> None:
    raw = load_json("ranking.json")["rerank"]
    limits = rerank_limits()
    assert (limits.pool, limits.max_tokens, limits.token_budget, limits.cache_entries) == (
        raw["pool"], raw["max_tokens"], raw["token_budget"], raw["cache_entries"])
