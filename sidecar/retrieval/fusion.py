"""Rank fusion: merge the dense and BM25 result lists into one fused score per chunk.

Each method takes ranked lists (best first) keyed by retriever name, a weight per retriever, the
RRF constant `k` and the `depth` every list was asked for (a shorter list is complete: nothing else
matched), and returns `{chunk_id: fused}`. `FusionSettings.fuse` is fair to a retriever that could
not score some chunks at all (dense, for notes not yet embedded: `unscored`): see
`impute_unscored`. Methods live in `FUSION_METHODS` so a
caller picks one by name and an unknown name gets the list of choices. `ceiling` gives the largest
fused score a method can produce, used to turn a fused score into a 0..1 similarity.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from functools import cache
from typing import Protocol

from sidecar.errors import BadRequest
from sidecar.models.catalogue import calibration
from sidecar.schema import get_schema, load_json

Ranked = Sequence[tuple[str, float]]
"""One retriever's answer: (chunk id, retriever score), best first."""


def rrf(
    lists: Mapping[str, Ranked], weights: Mapping[str, float], k: float, depth: int = 0,
    copies: Mapping[str, str] | None = None,
) -> dict[str, float]:
    """Weighted reciprocal rank fusion, `fused(d) = Σ_r w_r / (k + rank_r(d))`, ranks 1-based.

    Cormack, Clarke & Büttcher, "Reciprocal Rank Fusion outperforms Condorcet and individual
    Rank Learning Methods", SIGIR 2009 (k = 60 there); the per-retriever weight is ADR-0005
    decision 1. Equal retriever scores fuse equally: they share a rank (`shared_ranks`, told
    by `copies` which of them are copies of one text). A list a document is absent from
    contributes nothing; `depth` is unused.
    """
    del depth
    fused: dict[str, float] = {}
    for name, ranked in lists.items():
        weight = weights.get(name, 1.0)
        for doc, rank in shared_ranks(ranked, copies).items():
            fused[doc] = fused.get(doc, 0.0) + weight / (k + rank)
    return fused


def rrf_ceiling(names: Sequence[str], weights: Mapping[str, float], k: float) -> float:
    """The fused score of a chunk ranked first by every retriever: `Σ_r w_r / (k + 1)`."""
    return sum(weights.get(name, 1.0) for name in names) / (k + 1)


def min_max(ranked: Ranked) -> dict[str, float]:
    """Scores of one list rescaled to 0..1 by its own min and max (1.0 for all when flat)."""
    if not ranked:
        return {}
    scores = [score for _doc, score in ranked]
    low, high = min(scores), max(scores)
    span = high - low
    return {doc: (score - low) / span if span > 0 else 1.0 for doc, score in ranked}


def max_scaled(ranked: Ranked) -> dict[str, float]:
    """Scores of one list divided by its maximum, negatives at 0 (1.0 for all when max ≤ 0).

    The "theoretical min-max" of Bruch et al. (below) with the lower bound 0 for both BM25 and
    cosine: unlike min-max, the weakest retrieved document keeps the share of the best it earned.
    """
    if not ranked:
        return {}
    high = max(score for _doc, score in ranked)
    return {doc: max(score, 0.0) / high if high > 0 else 1.0 for doc, score in ranked}


def _convex(
    lists: Mapping[str, Ranked],
    weights: Mapping[str, float],
    depth: int,
    normalise: Callable[[Ranked], dict[str, float]],
) -> dict[str, float]:
    total = sum(weights.get(name, 1.0) for name in lists) or 1.0
    normalised = {name: normalise(ranked) for name, ranked in lists.items()}
    docs = {doc for scores in normalised.values() for doc in scores}
    fused = dict.fromkeys(docs, 0.0)
    for name, scores in normalised.items():
        share = weights.get(name, 1.0) / total
        # Absent from a list cut at `depth`: it ranked below every retrieved document, so it gets
        # the lowest share; absent from a shorter (complete) list: it did not match, so 0.
        cut = len(lists[name]) >= depth
        floor = min(scores.values(), default=0.0) if cut else 0.0
        for doc in docs:
            fused[doc] += share * scores.get(doc, floor)
    return fused


def convex_minmax(
    lists: Mapping[str, Ranked], weights: Mapping[str, float], k: float, depth: int,
    copies: Mapping[str, str] | None = None,
) -> dict[str, float]:
    """Convex combination of min-max normalised scores, `Σ_r w_r·norm_r(d) / Σ_r w_r`.

    Bruch, Gai & Ingber, "An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS 42(1),
    2023, which finds a tuned convex combination beats RRF. A document missing from a list cut
    at `depth` gets that list's lowest normalised score. `k` and `copies` are unused (scores,
    not ranks, are fused: equal scores fuse equally); they keep one signature.
    """
    del k, copies
    return _convex(lists, weights, depth, min_max)


def convex_max(
    lists: Mapping[str, Ranked], weights: Mapping[str, float], k: float, depth: int,
    copies: Mapping[str, str] | None = None,
) -> dict[str, float]:
    """`convex_minmax` with each list divided by its maximum instead (`max_scaled`)."""
    del k, copies
    return _convex(lists, weights, depth, max_scaled)


def convex_ceiling(names: Sequence[str], weights: Mapping[str, float], k: float) -> float:
    """Normalised scores are at most 1 and the weights are shares, so the top is 1."""
    del names, weights, k
    return 1.0


class Fuse(Protocol):
    """A fusion method: lists, weights, `k`, depth, and which chunks are copies of one text."""

    def __call__(
        self, lists: Mapping[str, Ranked], weights: Mapping[str, float], k: float, depth: int,
        copies: Mapping[str, str] | None = None,
    ) -> dict[str, float]: ...


@dataclass(frozen=True)
class FusionMethod:
    fuse: Fuse
    ceiling: Callable[[Sequence[str], Mapping[str, float], float], float]


FUSION_METHODS: dict[str, FusionMethod] = {
    "rrf": FusionMethod(rrf, rrf_ceiling),
    "convex_minmax": FusionMethod(convex_minmax, convex_ceiling),
    "convex_max": FusionMethod(convex_max, convex_ceiling),
}


def get_fusion(name: str) -> FusionMethod:
    """The fusion method called `name`; a BadRequest lists the choices otherwise."""
    try:
        return FUSION_METHODS[name]
    except KeyError:
        choices = ", ".join(sorted(FUSION_METHODS))
        raise BadRequest(f"unknown fusion method {name!r}: choose from {choices}") from None


@dataclass(frozen=True)
class FusionSettings:
    """How the first-stage lists become the candidate pool (`schema/ranking.json`)."""

    method: str = "rrf"
    k: float = 60.0
    weights: dict[str, float] = field(default_factory=lambda: {"dense": 1.0, "bm25": 1.0})
    pool: int = 100
    # The lift of a note whose mean vector is near the query, a share of the fused scale
    # (`index/note_vectors.py`); 0: none.
    notes: float = 0.0
    # The lift of a note whose lead sentence is near the query, likewise (`index/leads.py`).
    leads: float = 0.0

    def fuse(
        self, lists: Mapping[str, Ranked], depth: int,
        unscored: Mapping[str, Set[str]] | None = None, copies: Mapping[str, str] | None = None,
    ) -> dict[str, float]:
        """Fused scores of lists that were each asked for `depth` results; `unscored` names, per
        retriever, the chunks it could not score (see `impute_unscored`); `copies` gives tied
        chunks the key of their text (see `shared_ranks`)."""
        method = get_fusion(self.method)
        if unscored:
            lists = impute_unscored(
                lists, unscored,
                lambda some: method.fuse(some, self.weights, self.k, depth, copies))
        return method.fuse(lists, self.weights, self.k, depth, copies)

    def ceiling(self, names: Sequence[str]) -> float:
        return get_fusion(self.method).ceiling(names, self.weights, self.k)


def impute_unscored(
    lists: Mapping[str, Ranked], unscored: Mapping[str, Set[str]],
    fuse: Callable[[Mapping[str, Ranked]], dict[str, float]],
) -> dict[str, Ranked]:
    """`lists`, with each chunk a retriever could not score (absent from its index, as a note
    not yet embedded is from the dense one: not "scored low") put into that retriever's list
    where the other retrievers place it: after the listed chunks they fuse above it, level with
    the last of those. That is, the retriever is taken to agree with the others about it: when
    they do agree, the fused order is the one every chunk scored would give (counted in
    tests/retrieval/test_fusion.py). Without it, during the embedding pass every unembedded
    note would rank below every embedded one of the same words."""
    out = dict(lists)
    for name, ids in unscored.items():
        ranked = list(lists.get(name, ()))
        others = {n: r for n, r in lists.items() if n != name}
        listed = {doc for doc, _ in ranked}
        missing = [doc for doc in ids if doc not in listed]
        if not missing or not others:
            continue
        by_others = fuse(others)
        missing = [doc for doc in missing if doc in by_others]
        placed: list[tuple[str, float]] = []
        for doc in missing:
            # Level with the lowest-listed chunk the others fuse above it (or with the first).
            above = [n for n, (listed_doc, _) in enumerate(ranked)
                     if by_others.get(listed_doc, 0.0) > by_others[doc]]
            placed.append((doc, ranked[max(above)][1] if above else
                           ranked[0][1] if ranked else 1.0))
        out[name] = sorted([*ranked, *placed], key=lambda item: -item[1])
    return out


@cache
def fusion_settings(model_id: str = "") -> FusionSettings:
    """The tuned values of `schema/ranking.json`, or the calibration the catalogue gives the
    embedder `model_id` names (`models.json` `embedder.fusion`, `catalogue.calibration`);
    `fusion.method` defaults to RRF, and the note-vector and lead lifts (`notes`, `leads`) to
    none."""
    schema = get_schema()
    tuned = calibration(model_id) or load_json("ranking.json")["fusion"]
    method = str(tuned.get("method", "rrf"))
    get_fusion(method)  # an unknown name fails here, naming the choices
    weights = {str(k): float(v) for k, v in tuned.get("weights", schema.fusion_weights).items()}
    return FusionSettings(method, float(tuned.get("k", schema.fusion_k)), weights,
                          schema.candidate_pool, float(tuned.get("notes", 0.0)),
                          float(tuned.get("leads", 0.0)))


def ranks(ranked: Ranked) -> dict[str, int]:
    """1-based competition ranks ("1224") of a list sorted best first: chunks with equal scores
    share the better rank, so the same passage stored twice is not split by an arbitrary order."""
    out: dict[str, int] = {}
    rank, previous = 0, None
    for position, (doc, score) in enumerate(ranked, start=1):
        if score != previous:
            rank, previous = position, score
        out.setdefault(doc, rank)
    return out


def tied(ranked: Ranked) -> set[str]:
    """The chunks of `ranked` whose score another chunk of it has too."""
    seen: dict[float, int] = {}
    for _doc, score in ranked:
        seen[score] = seen.get(score, 0) + 1
    return {doc for doc, score in ranked if seen[score] > 1}


def shared_ranks(ranked: Ranked, copies: Mapping[str, str] | None = None) -> dict[str, float]:
    """1-based ranks of a list sorted best first, what fusion reads: chunks with equal scores
    share one rank, so an arbitrary order does not split them. Copies of one text (the same
    key in `copies`: `copies.copy_key`; without `copies`, every tied chunk) take one place and
    share its rank, the rank that text alone would have (a template pasted into many notes is
    one passage: they show as one result). Distinct texts tied take a place each and share the
    mean of those places (fractional ranking), so a tie claims no more of the top than an
    order would: the chunks an embedder cannot read (a run of characters outside its
    vocabulary, one unknown token each) get one vector, and with competition ranks every one
    of them was ranked first, hundreds of them filling the candidate pool ahead of the chunk
    holding the query's word. The place after a tie is counted as `ranks` counts it."""
    out: dict[str, float] = {}
    position = 0
    for _score, group in itertools.groupby(ranked, key=lambda item: item[1]):
        docs = [doc for doc, _ in group]
        texts = len({copies.get(doc, doc) for doc in docs}) if copies is not None else 1
        shared = position + 1 + (texts - 1) / 2
        for doc in docs:
            out.setdefault(doc, shared)
        position += len(docs)
    return out


def top(fused: Mapping[str, float], n: int) -> list[tuple[str, float]]:
    """The `n` best (id, fused) pairs, ties broken by id so the order is reproducible."""
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))[:n]
