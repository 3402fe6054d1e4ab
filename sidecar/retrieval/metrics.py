"""Retrieval-quality metrics computed the way pytrec_eval (trec_eval) and BEIR compute them.

`qrels` map query id → {doc id: graded relevance}; a run maps query id → doc ids, best first.
Scores are averaged over the queries that have judgements, a query with no results scoring 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

Qrels = Mapping[str, Mapping[str, int]]
Run = Mapping[str, Sequence[str]]


def ndcg_at(ranked: Sequence[str], judged: Mapping[str, int], k: int) -> float:
    """nDCG@k with linear gain, `Σ rel_i / log2(i + 1)` over the top k, divided by the ideal.

    Järvelin & Kekäläinen, "Cumulated gain-based evaluation of IR techniques", TOIS 2002, in the
    trec_eval `ndcg_cut` form (gain = relevance, not 2^rel − 1) that BEIR reports.
    """
    dcg = sum(judged.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:k]))
    ideal = sorted((rel for rel in judged.values() if rel > 0), reverse=True)[:k]
    idcg = sum(rel / math.log2(i + 2) for i, rel in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at(ranked: Sequence[str], judged: Mapping[str, int], k: int) -> float:
    """Share of the relevant documents (relevance > 0) found in the top k (trec_eval `recall`)."""
    relevant = {doc for doc, rel in judged.items() if rel > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def evaluate_run(
    run: Run, qrels: Qrels, *, ndcg_k: int = 10, recall_k: int = 100
) -> dict[str, float]:
    """Mean `ndcg@{ndcg_k}` and `recall@{recall_k}` over the judged queries."""
    judged = [qid for qid, rels in qrels.items() if any(rel > 0 for rel in rels.values())]
    if not judged:
        return {f"ndcg@{ndcg_k}": 0.0, f"recall@{recall_k}": 0.0}
    ndcg = sum(ndcg_at(run.get(qid, ()), qrels[qid], ndcg_k) for qid in judged)
    recall = sum(recall_at(run.get(qid, ()), qrels[qid], recall_k) for qid in judged)
    return {f"ndcg@{ndcg_k}": ndcg / len(judged), f"recall@{recall_k}": recall / len(judged)}
