"""Provenance weighting and time decay with the schema's constants."""

from __future__ import annotations

import pytest

from sidecar.retrieval.scoring import final_score, fused_similarity, recency_factor
from sidecar.schema import get_schema


@pytest.mark.parametrize("newer", [0, 1, 3, 50])
def test_recency_factor_follows_the_papers_formula(newer: int) -> None:
    schema = get_schema()
    expected = max(schema.decay_floor, 1.0 - newer * schema.decay_per_newer)
    assert recency_factor(newer, schema.decay_floor, schema.decay_per_newer) == expected


def test_recency_factor_never_drops_below_the_floor_nor_rises_above_one() -> None:
    assert recency_factor(10_000, 0.4, 0.1) == 0.4
    assert recency_factor(-3, 0.4, 0.1) == 1.0


def test_fused_similarity_is_the_share_of_the_ceiling_clamped_to_unit_range() -> None:
    assert fused_similarity(0.01, 0.04) == pytest.approx(0.25)
    assert fused_similarity(0.08, 0.04) == 1.0
    assert fused_similarity(0.01, 0.0) == 0.0


def test_final_score_is_the_product() -> None:
    assert final_score(0.5, 0.8, 0.9) == pytest.approx(0.36)
