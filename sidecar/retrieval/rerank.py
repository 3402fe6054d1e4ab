"""Second stage: turn the candidate pool into similarities, re-ranked when a re-ranker is at hand.

With a re-ranker, similarity is its relevance probability. Without one (none configured, turned
off for the query, or every re-ranker in the fallback chain failed) similarity is the fused score
over its ceiling (`scoring.fused_similarity`), and the outcome says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sidecar.models.reranker import Reranker, rerank_explained
from sidecar.retrieval.scoring import fused_similarity

NONE = "none"


@dataclass(frozen=True)
class PoolScores:
    """Per pool entry, its similarity and re-rank score (None when not re-ranked); `name` is the
    re-ranker that scored or "none", `reason` why none, or which re-ranker failed first."""

    name: str
    reason: str
    similarities: list[float]
    rerank_scores: list[float | None]


def _unranked(fused: Sequence[float], ceiling: float, reason: str) -> PoolScores:
    return PoolScores(
        name=NONE,
        reason=reason or "no re-ranker configured",
        similarities=[fused_similarity(score, ceiling) for score in fused],
        rerank_scores=[None] * len(fused),
    )


async def rerank_pool(
    reranker: Reranker | None,
    query: str,
    passages: Sequence[str],
    fused: Sequence[float],
    ceiling: float,
    *,
    reason: str = "",
    private: bool = False,
) -> PoolScores:
    """Similarities for the pool, in pool order. `reason` explains a None re-ranker; `private`
    (a private-mode query, or a private passage in the pool) keeps the pool from re-rankers not
    trusted with private text."""
    if reranker is None:
        return _unranked(fused, ceiling, reason)
    if not passages:
        return PoolScores(reranker.name, "", [], [])
    outcome = await rerank_explained(reranker, query, list(passages), private=private)
    if outcome.scores is None or outcome.used is None:
        return _unranked(fused, ceiling, outcome.note)
    scores = list(outcome.scores)
    return PoolScores(outcome.used, outcome.note, list(scores), list(scores))
