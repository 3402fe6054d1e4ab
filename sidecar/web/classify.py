"""The external web tier ('The Vault', 'The web tier'): classify one search's result set.

Each result `{url, title, text}` goes down the cascade of `schema/web_tiers.json`:
excluded (a registry `excluded` pattern: weight 0, removed before ranking) → whitelisted (a
`whitelist` pattern) → override (the exact page is listed under `overrides`, at its tier) →
corroborated (the same finding is carried by results from at least `corroboration_min_domains`
unaffiliated sites — different registrable domains — in this result set) → single.

"Same finding" is the claim-similarity machinery of the cleaning framework: cosine of the
findings' embeddings ≥ `web.finding_similarity` (schema/cleaning.json), and the rules detector
does not see them contradict. Only external results are classified: vault notes, including
saved `type: web` notes, are never read here except the registry note.

Comparing findings is quadratic in the results (one rules check per similar pair): the HTTP API
bounds a request's results (`maxItems` of `ClassifyRequest`), and `should_stop` (the server
shutting down) ends the comparisons at the next result with `ClassifyStopped`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sidecar.cleaning.rules import detect
from sidecar.cleaning.vocab import get_thresholds
from sidecar.errors import BadRequest, OraError
from sidecar.models.embedder import Embedder
from sidecar.schema import get_schema, load_json
from sidecar.web.registry import Registry
from sidecar.web.urls import host_of, matches, normalise_url, registrable_domain

EXCLUDED = "excluded"


@dataclass(frozen=True)
class Result:
    url: str
    title: str
    text: str
    domain: str

    @property
    def finding(self) -> str:
        return f"{self.title}. {self.text}".strip(" .")


Decision = tuple[str, str] | None  # (tier, reason)
StopCheck = Callable[[], bool]


class ClassifyStopped(OraError):
    """The classification stopped part-way because the server is shutting down."""

    code = "shutting_down"
    status = 503

    def __init__(self) -> None:
        super().__init__("the server is shutting down; classify the results again once it "
                         "is back")


def parse_results(raw: Any) -> list[Result]:
    """Validated results; BadRequest names the first bad one."""
    if not isinstance(raw, list):
        raise BadRequest("`results` must be a list of {url, title, text}")
    parsed = []
    for n, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("url"), str):
            raise BadRequest(f"result {n} needs a string `url`")
        title, text = item.get("title", ""), item.get("text", "")
        if not isinstance(title, str) or not isinstance(text, str):
            raise BadRequest(f"result {n}: `title` and `text` must be strings")
        parsed.append(Result(item["url"], title, text, registrable_domain(host_of(item["url"]))))
    return parsed


def _by_pattern(patterns: Sequence[str], tier: str, what: str) -> Callable[[Result], Decision]:
    def stage(r: Result) -> Decision:
        hit = next((p for p in patterns if matches(p, r.url)), None)
        return (tier, f"matches {what} pattern {hit!r}") if hit else None
    return stage


def _corroborators(pool: list[Result], embedder: Embedder,
                   should_stop: StopCheck) -> dict[int, set[str]]:
    """For each pooled result, the registrable domains carrying its finding (its own too);
    ClassifyStopped once `should_stop()` says so (checked before each result's comparisons)."""
    if len(pool) < 2:
        return {i: {r.domain} for i, r in enumerate(pool)}
    vectors = embedder.embed([r.finding for r in pool])
    sims = vectors @ vectors.T
    limit = get_thresholds().web_finding_similarity
    carried: dict[int, set[str]] = {}
    for i, r in enumerate(pool):
        if should_stop():
            raise ClassifyStopped
        carried[i] = {r.domain}
        for j in np.flatnonzero(sims[i] >= limit):
            other = pool[int(j)]
            if other.domain in carried[i]:
                continue  # already carried there: no need to check another of its pages
            if not detect(r.finding, other.finding).contradiction:
                carried[i].add(other.domain)
    return carried


def classify(raw: Any, registry: Registry, embedder: Embedder,
             should_stop: StopCheck | None = None) -> dict[str, Any]:
    """{"results": [{url, title, tier, weight, domain, reason}], "excluded": [...]};
    ClassifyStopped when `should_stop()` turns true while findings are compared."""
    schema = get_schema()
    results = parse_results(raw)
    excluded_stage = _by_pattern(registry.excluded, EXCLUDED, "excluded")
    override_tier = {r.url: registry.overrides.get(normalise_url(r.url)) for r in results}
    pool = [r for r in results
            if excluded_stage(r) is None and override_tier[r.url] != EXCLUDED]
    domains: dict[int, set[str]] = {}

    def corroborated(r: Result) -> Decision:
        if not domains:  # embed the findings only when some result gets this far
            carried = _corroborators(pool, embedder, should_stop or (lambda: False))
            domains.update({id(p): carried[i] for i, p in enumerate(pool)})
        others = sorted(domains.get(id(r), set()) - {r.domain})
        if len(others) + 1 >= schema.corroboration_min_domains:
            return "corroborated", f"same finding on unaffiliated site(s): {', '.join(others)}"
        return None

    def override(r: Result) -> Decision:
        tier = override_tier[r.url]
        return (tier, f"page override at tier {tier}") if tier else None

    stages: dict[str, Callable[[Result], Decision]] = {
        EXCLUDED: excluded_stage,
        "whitelisted": _by_pattern(registry.whitelist, "whitelisted", "whitelist"),
        "override": override,
        "corroborated": corroborated,
        "single": lambda r: ("single", "one source, not corroborated in this result set"),
    }
    kept: list[dict[str, Any]] = []
    dropped: list[dict[str, Any]] = []
    cascade = load_json("web_tiers.json")["cascade"]
    for r in results:
        tier, reason = next(d for name in cascade
                            if (d := stages[name](r)) is not None)
        row = {"url": r.url, "title": r.title, "tier": tier,
               "weight": schema.web_tiers[tier], "domain": r.domain, "reason": reason}
        (dropped if tier == EXCLUDED else kept).append(row)
    return {"results": kept, "excluded": dropped}
