"""Second-stage re-rankers: the Cohere v2 rerank API, or a local ONNX cross-encoder.

Every re-ranker returns relevance probabilities in 0..1, one per passage, in the order given.
A Cohere failure (HTTP error, timeout, malformed body) falls back to the local model, or to no
re-ranking; `rerank_explained` says which happened so a search result can explain itself.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import aiohttp
import numpy as np

from sidecar.errors import ModelUnavailable, RerankerFailed
from sidecar.models.pairs import PairModel, missing_files
from sidecar.models.session import Releasable
from sidecar.privacy.egress import may_send_private, withheld
from sidecar.schema import load_json
from sidecar.settings import Config


class Reranker(Protocol):
    """Scores passages against a query: relevance probabilities 0..1, same order."""

    name: str

    async def rerank(self, query: str, passages: Sequence[str]) -> list[float]: ...


@dataclass(frozen=True)
class LocalRerankLimits:
    """What keeps re-ranking interactive (schema/ranking.json `rerank`, measured in
    docs/benchmarks.md): candidates re-ranked, tokens a local model reads per (query, passage)
    pair, padded tokens per batch, and how many scores it remembers."""

    pool: int
    max_tokens: int
    token_budget: int | None  # None: batches of a fixed row count
    cache_entries: int



@cache
def rerank_limits() -> LocalRerankLimits:
    raw = load_json("ranking.json")["rerank"]
    return LocalRerankLimits(int(raw["pool"]), int(raw["max_tokens"]), int(raw["token_budget"]),
                             int(raw["cache_entries"]))


class OnnxCrossEncoder:
    """A local cross-encoder (ms-marco-MiniLM-L-6-v2 as optimum exports it): logit → sigmoid.

    Scores are remembered per (query, passage digest), so a repeated query (another page, a
    changed filter, the plugin's search-as-you-type settling) scores only passages it has not
    seen; a passage's digest changes with its text, so an edited chunk is scored afresh.
    """

    def __init__(self, folder: Path, threads: int | None = None,
                 limits: LocalRerankLimits | None = None) -> None:
        self.limits = limits or rerank_limits()
        self._model = PairModel(folder, threads, max_tokens=self.limits.max_tokens,
                                token_budget=self.limits.token_budget)
        if self._model.num_labels != 1:
            raise ModelUnavailable(
                f"{folder} has {self._model.num_labels} labels; a re-ranker needs one logit"
            )
        self.name = f"onnx:{folder.name}:{self._model.sha256[:12]}"
        self._cache: OrderedDict[tuple[str, bytes], float] = OrderedDict()
        self._lock = threading.Lock()

    def release(self, idle_s: float) -> bool:
        return self._model.release(idle_s)

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """Synchronous scoring (the async `rerank` runs this in a worker thread)."""
        keys = [(query, hashlib.blake2b(p.encode(), digest_size=16).digest()) for p in passages]
        with self._lock:
            known = {k: self._cache[k] for k in keys if k in self._cache}
            for k in known:
                self._cache.move_to_end(k)
        first: dict[tuple[str, bytes], int] = {}  # one forward pass per distinct passage
        for i, k in enumerate(keys):
            if k not in known:
                first.setdefault(k, i)
        todo = list(first.values())
        if todo:
            try:
                logits = self._model.logits([(query, passages[i]) for i in todo])[:, 0]
            except Exception as exc:  # onnxruntime's run errors are untyped
                raise RerankerFailed(f"{self.name} failed: {exc}") from exc
            fresh = {keys[i]: float(x) for i, x in zip(todo, 1.0 / (1.0 + np.exp(-logits)),
                                                         strict=True)}
            known.update(fresh)
            self._remember(fresh)
        return [known[k] for k in keys]

    def _remember(self, fresh: dict[tuple[str, bytes], float]) -> None:
        with self._lock:
            self._cache.update(fresh)
            while len(self._cache) > self.limits.cache_entries:
                self._cache.popitem(last=False)

    async def rerank(self, query: str, passages: Sequence[str]) -> list[float]:
        return await asyncio.to_thread(self.score, query, passages)


class CohereReranker:
    """Cohere's hosted re-ranker through its v2 `/rerank` endpoint. `private_ok`: whether it may
    receive private text (`sidecar/privacy/egress.py`); when not, `rerank_explained` never gives
    it a private-mode query or a private passage."""

    def __init__(self, api_key: str, url: str, model: str, timeout: float, *,
                 private_ok: bool = False) -> None:
        self._key = api_key
        self._url = url
        self._model = model
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self.name = f"cohere:{model}"
        self.private_ok = private_ok

    @property
    def withheld(self) -> str:
        return withheld("Cohere", self._url)

    async def rerank(self, query: str, passages: Sequence[str]) -> list[float]:
        if not passages:
            return []
        body = {"model": self._model, "query": query, "documents": list(passages),
                "top_n": len(passages)}
        headers = {"Authorization": f"Bearer {self._key}", "Accept": "application/json"}
        try:
            async with aiohttp.ClientSession(timeout=self._timeout) as session, session.post(
                self._url, json=body, headers=headers
            ) as resp:
                if resp.status >= 400:
                    detail = (await resp.text())[:200]
                    raise RerankerFailed(f"Cohere rerank returned HTTP {resp.status}: {detail}")
                payload = await resp.json(content_type=None)
        except TimeoutError as exc:
            raise RerankerFailed(f"Cohere rerank timed out after {self._timeout.total}s") from exc
        except (aiohttp.ClientError, ValueError) as exc:
            raise RerankerFailed(f"Cohere rerank request failed: {exc}") from exc
        return _cohere_scores(payload, len(passages))


def _cohere_scores(payload: Any, n: int) -> list[float]:
    """Scores in input order from {"results": [{"index", "relevance_score"}, ...]}."""
    scores: list[float | None] = [None] * n
    try:
        for item in payload["results"]:
            index, score = int(item["index"]), float(item["relevance_score"])
            if not 0 <= index < n or not math.isfinite(score):
                raise ValueError(f"result {item!r} out of range")
            scores[index] = min(1.0, max(0.0, score))
    except (KeyError, TypeError, ValueError) as exc:
        raise RerankerFailed(f"Cohere rerank sent a malformed body: {exc}") from exc
    if any(s is None for s in scores):
        raise RerankerFailed("Cohere rerank did not score every document")
    return [s for s in scores if s is not None]


@dataclass(frozen=True)
class RerankOutcome:
    """What re-ranking did: scores (None when nothing could score), who scored, what failed."""

    scores: list[float] | None
    used: str | None
    note: str


class FallbackReranker:
    """Tries each re-ranker in turn (Cohere first, then the local model)."""

    def __init__(self, chain: Sequence[Reranker]) -> None:
        self.chain = tuple(chain)
        self.name = " → ".join(r.name for r in self.chain)

    def release(self, idle_s: float) -> bool:
        return any([r.release(idle_s) for r in self.chain if isinstance(r, Releasable)])

    async def rerank(self, query: str, passages: Sequence[str]) -> list[float]:
        outcome = await rerank_explained(self, query, passages)
        if outcome.scores is None:
            raise RerankerFailed(outcome.note)
        return outcome.scores


async def rerank_explained(
    reranker: Reranker | None, query: str, passages: Sequence[str], *, private: bool = False
) -> RerankOutcome:
    """Re-rank with fallback; never raises RerankerFailed, reports what happened instead.

    `private`: the query was asked in private mode or a passage is private; then a re-ranker
    not trusted with private text is skipped (the next one, or fused order, and the note says
    why)."""
    if isinstance(reranker, FallbackReranker):
        chain: Sequence[Reranker] = reranker.chain
    else:
        chain = [reranker] if reranker is not None else []
    failures: list[str] = []
    for candidate in chain:
        if private and isinstance(candidate, CohereReranker) and not candidate.private_ok:
            failures.append(candidate.withheld)
            continue
        try:
            scores = await candidate.rerank(query, passages)
        except RerankerFailed as err:
            failures.append(f"{candidate.name} failed: {err.message}")
            continue
        return RerankOutcome(scores, candidate.name, "; ".join(failures))
    return RerankOutcome(None, None, "; ".join(failures) or "no re-ranker configured")


def reranker_folder(config: Config) -> Path:
    """The local cross-encoder folder: `reranker_dir`, else <models_dir>/reranker."""
    return Path(config.reranker_dir).expanduser() if config.reranker_dir else (
        config.models_path / "reranker")


def build_reranker(config: Config) -> tuple[Reranker | None, str]:
    """The configured re-ranker and a sentence saying what it is, or why there is none."""
    chain: list[Reranker] = []
    reasons: list[str] = []
    if config.cohere_api_key:
        chain.append(CohereReranker(config.cohere_api_key, config.cohere_url,
                                    config.cohere_model, float(config.cohere_timeout),
                                    private_ok=may_send_private(config, config.cohere_url)))
        reasons.append(f"Cohere {config.cohere_model}")
    folder = reranker_folder(config)
    absent = missing_files(folder)
    if absent:
        reasons.append(f"no local cross-encoder ({folder} lacks {', '.join(absent)})")
    else:
        try:
            chain.append(OnnxCrossEncoder(folder))
            reasons.append(f"local cross-encoder {folder}")
        except ModelUnavailable as err:
            reasons.append(f"local cross-encoder unusable: {err.message}")
    reason = "; ".join(reasons)
    if not chain:
        return None, reason
    return (chain[0] if len(chain) == 1 else FallbackReranker(chain)), reason
