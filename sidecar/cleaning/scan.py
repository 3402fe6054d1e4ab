"""One incremental cleaning scan: survey the vault, pair changed notes, judge, queue.

Only notes that changed since the last scan are paired again (with every note of their kind);
their open pairs are replaced by the new findings, while pairs the user triaged keep their
status and follow their notes' private tag. The queue's note states are saved last, so a
failed judge leaves the changed notes to be judged again next time.

`should_stop` (checked between embedding batches and before anything is written) lets the
server's background scan end early at shutdown: ScanStopped, and the queue is untouched. Every
CPU-heavy step runs in a worker thread, so a server's event loop keeps answering meanwhile.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from sidecar.cleaning import news
from sidecar.cleaning.candidates import Alignment, Candidate, align, neighbours, pool
from sidecar.cleaning.store import Pair, Queue, Side, pair_id
from sidecar.cleaning.survey import ScanStopped, StopCheck, Survey, save_key, survey
from sidecar.cleaning.verdict import Judge, Verdict
from sidecar.cleaning.vocab import Thresholds, get_thresholds
from sidecar.models.embedder import Embedder
from sidecar.settings import Config

Progress = Callable[[str, int, int], None]
CONTRADICTION_KINDS = ("engram", "resource")
# Candidate pairs whose notes' claims are read back from the queue at once.
ALIGN_WINDOW = 256


@dataclass(frozen=True)
class ScanReport:
    notes: int
    changed: int
    removed: int
    candidates: int
    claim_pairs: int
    found: int
    proposals: int
    open: int
    judge: str
    seconds: float
    fallbacks: int = 0  # claim pairs another judge decided because the chosen one failed

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def _side(state: Any, index: int) -> Side:
    text, start, end = state.claims[index]
    return Side(state.path, start, end, text, state.hash)


@dataclass(frozen=True)
class _ClaimPair:
    """Two aligned claims of a candidate pair, to judge."""

    candidate: Candidate
    alignment: Alignment
    a: Side
    b: Side


def _best(candidate: Candidate, judged: list[tuple[_ClaimPair, Verdict]],
          judge: str) -> Pair | None:
    """The strongest contradiction between two notes, if the judge found any."""
    hits = [(w, v) for w, v in judged if v.contradiction]
    if not hits:
        return None
    work, verdict = max(hits, key=lambda h: (h[1].score, h[0].alignment.similarity))
    al, a, b = work.alignment, work.a, work.b
    return Pair(
        id=pair_id(candidate.a.kind or "", a, b), kind=candidate.a.kind or "", a=a, b=b,
        judge=verdict.judge or judge, score=verdict.score,
        private=candidate.a.private or candidate.b.private,
        evidence={"cue": verdict.cue, **verdict.detail,
                  "note_similarity": round(candidate.similarity, 4),
                  "claim_similarity": round(al.similarity, 4),
                  # for triage: which is newer, and which came from the AI side
                  "dates": [candidate.a.date, candidate.b.date],
                  "ai_derived": [candidate.a.ai_derived, candidate.b.ai_derived]},
    )


def _candidates(states: dict[str, Any], changed: set[str], limits: Thresholds) -> list[Candidate]:
    found = []
    for kind in CONTRADICTION_KINDS:
        found += neighbours(pool(states.values(), kind), changed, limits.note_similarity,
                            limits.neighbours)
    return found


def _work(queue: Queue, seen: Survey, limits: Thresholds
          ) -> tuple[list[Candidate], list[_ClaimPair]]:
    """The candidate note pairs and their aligned claim pairs (CPU work: run in a thread). The
    notes' claims and vectors are read back a window of candidates at a time."""
    candidates = _candidates(seen.states, seen.changed, limits)
    work = []
    for start in range(0, len(candidates), ALIGN_WINDOW):
        part = candidates[start : start + ALIGN_WINDOW]
        whole = queue.full_states({p for c in part for p in (c.a.path, c.b.path)}, seen.scan)
        for c in part:
            a, b = whole[c.a.path], whole[c.b.path]
            work += [_ClaimPair(c, al, _side(a, al.i), _side(b, al.j))
                     for al in align(a, b, limits.claim_similarity, limits.claims_per_pair)]
    return candidates, work


def _save(queue: Queue, seen: Survey, news_affected: set[str], pairs: list[Pair]) -> None:
    """Write the findings and the note states (the states last: see the module docstring)."""
    queue.clear_open(seen.changed | seen.removed | news_affected)
    queue.offer(pairs)
    queue.commit_staged(seen.scan)
    queue.restat((p, seen.states[p].size, seen.states[p].mtime_ns) for p in sorted(seen.restat))
    queue.drop_notes(seen.removed)
    queue.reflag()
    save_key(queue, seen)


async def scan(config: Config, queue: Queue, embedder: Embedder, judge: Judge,
               progress: Progress | None = None, should_stop: StopCheck | None = None
               ) -> ScanReport:
    """Bring the queue in line with the vault's changed notes."""
    started = time.monotonic()
    limits = get_thresholds()
    report = progress or (lambda phase, done, total: None)
    report("survey", 0, 0)
    # file reads and embedding, in a thread
    seen = await asyncio.to_thread(survey, config, queue, embedder, should_stop)
    try:
        candidates, work = await asyncio.to_thread(_work, queue, seen, limits)
        report("judge", 0, len(work))
        verdicts = await judge.judge([(w.a.text, w.b.text) for w in work])
        report("judge", len(work), len(work))
        per_candidate: dict[int, list[tuple[_ClaimPair, Verdict]]] = {}
        for w, verdict in zip(work, verdicts, strict=True):
            per_candidate.setdefault(id(w.candidate), []).append((w, verdict))
        found = [p for c in candidates
                 if (p := _best(c, per_candidate.get(id(c), []), judge.name)) is not None]
        news_affected, proposals = await asyncio.to_thread(
            news.propose, seen.states, seen.changed, limits,
            lambda paths: queue.full_states(paths, seen.scan))
        if should_stop is not None and should_stop():
            raise ScanStopped
        await asyncio.to_thread(_save, queue, seen, news_affected, found + proposals)
    except BaseException:  # stopped or failed: what it staged is not needed
        queue.drop_staged(seen.scan)
        raise
    report("done", len(work), len(work))
    return ScanReport(
        notes=len(seen.states), changed=len(seen.changed), removed=len(seen.removed),
        candidates=len(candidates), claim_pairs=len(work), found=len(found),
        proposals=len(proposals), open=queue.open_count(), judge=judge.name,
        seconds=round(time.monotonic() - started, 3),
        fallbacks=sum(1 for v in verdicts if v.judge is not None),
    )
