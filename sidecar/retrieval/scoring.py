"""A chunk's final score, `similarity × type_weight × recency_factor` ('The Vault', 'Retrieval').

Pure functions; the constants come from `schema/` through the caller.
"""

from __future__ import annotations


def recency_factor(newer_in_cluster: int, floor: float, per_newer: float) -> float:
    """`max(FLOOR, 1 − newer_count_in_cluster × DECAY_PER_NEWER)` ('The Vault', 'Time decay').

    Only decay-eligible types (chat, transcript, web) call this; others keep 1.0.
    """
    return max(floor, 1.0 - max(newer_in_cluster, 0) * per_newer)


def fused_similarity(fused: float, ceiling: float) -> float:
    """Similarity when nothing re-ranked: the fused score over the best the method can give.

    For RRF the ceiling is `Σ w / (k + 1)`, a chunk ranked first by every retriever, so 1.0
    means "top of both lists" and a chunk found by one retriever alone stays below 1.
    """
    if ceiling <= 0:
        return 0.0
    return min(1.0, max(0.0, fused / ceiling))


def final_score(similarity: float, type_weight: float, decay: float) -> float:
    """The paper's product `similarity × type_weight × recency_factor`."""
    return similarity * type_weight * decay
