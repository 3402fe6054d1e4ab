"""nDCG@k (linear gain, as trec_eval) and recall@k, checked against hand computations."""

from __future__ import annotations

import math

import pytest

from sidecar.retrieval.metrics import evaluate_run, ndcg_at, recall_at


def test_ndcg_uses_linear_gain_and_log2_discount() -> None:
    judged = {"a": 2, "b": 1}
    dcg = 0 / math.log2(2) + 1 / math.log2(3) + 2 / math.log2(4)
    idcg = 2 / math.log2(2) + 1 / math.log2(3)
    assert ndcg_at(["x", "b", "a"], judged, 10) == pytest.approx(dcg / idcg)


def test_ndcg_is_one_for_the_ideal_order_and_cut_at_k() -> None:
    assert ndcg_at(["a", "b"], {"a": 2, "b": 1}, 10) == pytest.approx(1.0)
    assert ndcg_at(["x", "a"], {"a": 1}, 1) == 0.0


def test_recall_counts_relevant_found_in_top_k() -> None:
    judged = {"a": 1, "b": 1, "c": 0}
    assert recall_at(["a", "c", "b"], judged, 2) == 0.5
    assert recall_at(["a", "c", "b"], judged, 3) == 1.0


def test_evaluate_run_averages_over_judged_queries_and_missing_runs_score_zero() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 0}}
    scores = evaluate_run({"q1": ["a"]}, qrels, ndcg_k=10, recall_k=100)
    assert scores == {"ndcg@10": pytest.approx(0.5), "recall@100": pytest.approx(0.5)}
