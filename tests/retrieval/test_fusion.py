"""Fusion maths: weighted RRF and the normalised convex combination."""

from __future__ import annotations

import pytest

from sidecar.errors import BadRequest
from sidecar.retrieval.fusion import (
    FUSION_METHODS,
    FusionSettings,
    convex_max,
    convex_minmax,
    fusion_settings,
    get_fusion,
    max_scaled,
    ranks,
    rrf,
    rrf_ceiling,
    top,
)
from sidecar.schema import load_json

DENSE = [("a", 0.9), ("b", 0.8), ("c", 0.1)]
BM25 = [("b", 12.0), ("d", 7.0)]


def test_rrf_sums_weighted_reciprocal_ranks() -> None:
    fused = rrf({"dense": DENSE, "bm25": BM25}, {"dense": 1.0, "bm25": 2.0}, 10)
    assert fused["a"] == pytest.approx(1 / 11)
    assert fused["b"] == pytest.approx(1 / 12 + 2 / 11)
    assert fused["d"] == pytest.approx(2 / 12)
    assert fused["c"] == pytest.approx(1 / 13)


def test_rrf_ignores_retriever_scores_only_ranks_count() -> None:
    rescaled = [(doc, score * 1000) for doc, score in DENSE]
    assert rrf({"dense": DENSE}, {}, 60) == rrf({"dense": rescaled}, {}, 60)


def test_rrf_ceiling_is_first_place_in_every_list() -> None:
    weights = {"dense": 0.5, "bm25": 1.5}
    fused = rrf({"dense": [("x", 1.0)], "bm25": [("x", 1.0)]}, weights, 5)
    assert rrf_ceiling(["dense", "bm25"], weights, 5) == pytest.approx(fused["x"])


def test_convex_minmax_combines_min_max_normalised_scores_by_weight_share() -> None:
    fused = convex_minmax({"dense": DENSE, "bm25": BM25}, {"dense": 3.0, "bm25": 1.0}, 0, 2)
    assert fused["a"] == pytest.approx(0.75 * 1.0)
    assert fused["b"] == pytest.approx(0.75 * (0.7 / 0.8) + 0.25 * 1.0)
    assert fused["c"] == pytest.approx(0.0)
    assert fused["d"] == pytest.approx(0.0)
    assert max(fused.values()) <= 1.0


def test_convex_max_divides_by_the_top_and_fills_absent_from_a_cut_list_with_its_lowest() -> None:
    fused = convex_max({"dense": DENSE, "bm25": BM25}, {"dense": 1.0, "bm25": 1.0}, 0, 2)
    assert fused["b"] == pytest.approx(0.5 * (0.8 / 0.9) + 0.5 * 1.0)
    # BM25 was cut at depth 2, so "a" (missing there) ranked below 7/12, and gets 7/12.
    assert fused["a"] == pytest.approx(0.5 * 1.0 + 0.5 * (7 / 12))
    assert fused["d"] == pytest.approx(0.5 * (0.1 / 0.9) + 0.5 * (7 / 12))
    assert max_scaled([("x", -0.2), ("y", 0.4)]) == {"x": 0.0, "y": 1.0}


def test_absent_from_a_complete_list_means_no_match_and_scores_zero_there() -> None:
    # Asked for 3, BM25 found 2: nothing else matched the query's words.
    fused = convex_max({"dense": DENSE, "bm25": BM25}, {"dense": 1.0, "bm25": 1.0}, 0, 3)
    assert fused["a"] == pytest.approx(0.5 * 1.0)


def test_unknown_fusion_method_names_the_choices() -> None:
    with pytest.raises(BadRequest) as info:
        get_fusion("borda")
    for name in FUSION_METHODS:
        assert name in info.value.message


def test_settings_fuse_with_their_method() -> None:
    lists = {"dense": DENSE, "bm25": BM25}
    settings = FusionSettings(method="convex_max", k=1, weights={"dense": 1.0, "bm25": 1.0})
    assert settings.fuse(lists, 3) == convex_max(lists, settings.weights, 1, 3)
    assert settings.ceiling(["dense", "bm25"]) == 1.0


def test_ranks_are_one_based_and_top_breaks_ties_by_id() -> None:
    assert ranks(DENSE) == {"a": 1, "b": 2, "c": 3}
    assert top({"z": 1.0, "y": 1.0, "x": 2.0}, 2) == [("x", 2.0), ("y", 1.0)]


def test_equal_scores_share_a_rank_and_fuse_equally() -> None:
    tied = [("a", 0.9), ("b", 0.5), ("c", 0.5), ("d", 0.1)]
    assert ranks(tied) == {"a": 1, "b": 2, "c": 2, "d": 4}
    fused = rrf({"dense": tied}, {}, 60)
    assert fused["b"] == fused["c"] == pytest.approx(1 / 62)
    assert top({"z": 1.0, "y": 1.0, "x": 2.0}, 2) == [("x", 2.0), ("y", 1.0)]


@pytest.mark.parametrize("method", sorted(FUSION_METHODS))
def test_a_chunk_not_yet_embedded_fuses_as_if_dense_agreed_with_bm25(method: str) -> None:
    """Issue 29, counted: two retrievers that agree on every ranking, the dense one blind to a
    random half of the chunks (not embedded yet). Fused fairly, the blind half keeps its
    places: no inversion against the full fusion, and its share of the top 10 stays its share
    of the corpus. Fused as before, it sinks below every embedded chunk."""
    import random

    settings = FusionSettings(method=method, k=60.0, weights={"dense": 1.0, "bm25": 1.0})
    rng = random.Random(29)
    unfair_inversions = fair_inversions = 0
    blind_in_top = blind_in_corpus = 0
    for _ in range(200):
        docs = [f"d{i}" for i in range(40)]
        rng.shuffle(docs)  # the agreed ranking, best first
        blind = {d for d in docs if rng.random() < 0.5}
        bm25 = [(d, 40.0 - n) for n, d in enumerate(docs)]
        dense_all = [(d, 1.0 - n / 40) for n, d in enumerate(docs)]
        dense = [(d, s) for d, s in dense_all if d not in blind]
        truth = [d for d, _ in top(settings.fuse({"dense": dense_all, "bm25": bm25}, 100), 40)]
        lists = {"dense": dense, "bm25": bm25}
        unfair = [d for d, _ in top(settings.fuse(lists, 100), 40)]
        fair = [d for d, _ in top(settings.fuse(lists, 100, {"dense": blind}), 40)]
        unfair_inversions += sum(a != b for a, b in zip(unfair, truth, strict=True))
        fair_inversions += sum(a != b for a, b in zip(fair, truth, strict=True))
        blind_in_top += sum(d in blind for d in fair[:10])
        blind_in_corpus += len(blind)
    assert fair_inversions == 0
    assert unfair_inversions > 200 * 10  # the old fusion reorders most of every list
    assert blind_in_top / (200 * 10) == pytest.approx(blind_in_corpus / (200 * 40), abs=0.05)


def test_an_unembedded_chunk_takes_the_dense_place_bm25_gives_it() -> None:
    settings = FusionSettings()  # RRF, k = 60
    lists = {"dense": DENSE, "bm25": BM25}
    # "d" has no dense score because it is not embedded: BM25 ranks it right after "b", so it
    # is placed level with "b" in the dense list (rank 2), ahead of "c" (now 4th).
    fair = settings.fuse(lists, 3, {"dense": {"d"}})
    assert fair["d"] == pytest.approx(1 / 62 + 1 / 62)
    assert fair["c"] == pytest.approx(1 / 64)
    assert [doc for doc, _ in top(fair, 4)] == ["b", "d", "a", "c"]
    assert [doc for doc, _ in top(settings.fuse(lists, 3), 4)] == ["b", "a", "d", "c"]
    # A chunk the dense list holds is never moved, even if named.
    assert settings.fuse(lists, 3, {"dense": {"a"}}) == settings.fuse(lists, 3)
def test_fusion_is_calibrated_per_embedder_and_minilm_keeps_its_tuned_setting() -> None:
    ranking = load_json("ranking.json")["fusion"]
    minilm = fusion_settings("all-MiniLM-L6-v2:q8:75798cf9ba04")
    assert (minilm.method, minilm.weights) == (ranking["method"], ranking["weights"])
    assert fusion_settings() == minilm
    e5 = load_json("models.json")["models"]["multilingual-e5-small"]["embedder"]["fusion"]
    for model_id in ("multilingual-e5-small:onnx:0123456789ab",
                     "remote:jeffh/intfloat-multilingual-e5-small:f16@127.0.0.1:11434:384"):
        chosen = fusion_settings(model_id)
        assert (chosen.method, chosen.k, chosen.weights) == (e5["method"], e5["k"], e5["weights"])
