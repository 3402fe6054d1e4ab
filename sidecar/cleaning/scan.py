"""One incremental cleaning scan: survey the vault, pair changed notes, judge, queue.

Only notes that changed since the last scan are paired again (with every note of their kind);
their open pairs are replaced by the new findings, while pairs the user triaged keep their
status, follow their notes' private tag and, renamed or moved, their notes (`moves.py`). Two
notes give one pair per contradiction between them, each claim in at most one (`_distinct`).
The queue's note states are saved last, so a failed judge leaves the changed notes to be judged
again next time.

`should_stop` (checked between embedding batches and before anything is written) lets the
server's background scan end early at shutdown: ScanStopped, and no note counts as scanned
(the next scan reuses the vectors it staged, `survey.py`). A cancelled scan (Ctrl-C in the
CLI) stops its worker thread the same way. Every
CPU-heavy step runs in a worker thread, so a server's event loop keeps answering meanwhile.
"""

from __future__ import annotations

import asyncio
import threading
import time
from array import array
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from sidecar.cleaning import news
from sidecar.cleaning.candidates import Alignment, Candidate, align, neighbours, pool
from sidecar.cleaning.moves import follow_moves
from sidecar.cleaning.store import NoteState, Pair, Queue, Side, pair_id
from sidecar.cleaning.survey import ScanStopped, StopCheck, Survey, save_key, scan_id, survey
from sidecar.cleaning.verdict import Judge, Verdict
from sidecar.cleaning.vocab import Thresholds, get_thresholds
from sidecar.models.embedder import Embedder
from sidecar.settings import Config

Progress = Callable[[str, int, int], None]
CONTRADICTION_KINDS = ("engram", "resource")
# Candidate pairs whose notes' claims are read back from the queue at once.
ALIGN_WINDOW = 64
# Aligned claim pairs given to the judge at once.
JUDGE_WINDOW = 256


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
    warnings: list[str] = field(default_factory=list)  # what the scan skipped, and why

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def _side(state: Any, index: int) -> Side:
    text, start, end = state.claims[index]
    return Side(state.path, start, end, text, state.hash)


def _pair(candidate: Candidate, al: Alignment, verdict: Verdict, a: NoteState, b: NoteState,
          judge: str) -> Pair:
    """The queued pair for one contradiction the judge found between two notes."""
    side_a, side_b = _side(a, al.i), _side(b, al.j)
    return Pair(
        id=pair_id(candidate.a.kind or "", side_a, side_b), kind=candidate.a.kind or "",
        a=side_a, b=side_b, judge=verdict.judge or judge, score=verdict.score,
        private=candidate.a.private or candidate.b.private,
        evidence={"cue": verdict.cue, **verdict.detail,
                  "note_similarity": round(candidate.similarity, 4),
                  "claim_similarity": round(al.similarity, 4),
                  # for triage: which is newer, and which came from the AI side
                  "dates": [candidate.a.date, candidate.b.date],
                  "ai_derived": [candidate.a.ai_derived, candidate.b.ai_derived]},
    )


class _Aligned:
    """The aligned claim pairs of all candidates, as numbers (candidate, claim i, claim j,
    similarity: 12 bytes each), not texts: their texts are read back a window at a time."""

    def __init__(self) -> None:
        self.candidate = array("i")
        self.i = array("h")
        self.j = array("h")
        self.similarity = array("f")

    def __len__(self) -> int:
        return len(self.candidate)

    def add(self, candidate: int, found: list[Alignment]) -> None:
        for al in found:
            self.candidate.append(candidate)
            self.i.append(al.i)
            self.j.append(al.j)
            self.similarity.append(al.similarity)

    def get(self, row: int) -> tuple[int, Alignment]:
        return self.candidate[row], Alignment(self.i[row], self.j[row], self.similarity[row])


def _candidates(states: dict[str, Any], changed: set[str], limits: Thresholds) -> list[Candidate]:
    found = []
    for kind in CONTRADICTION_KINDS:
        found += neighbours(pool(states.values(), kind), changed, limits.note_similarity,
                            limits.neighbours)
    return found


def _work(queue: Queue, seen: Survey, limits: Thresholds) -> tuple[list[Candidate], _Aligned]:
    """The candidate note pairs and their aligned claim pairs (CPU work: run in a thread). The
    notes' claims and vectors are read back a window of candidates at a time."""
    candidates = _candidates(seen.states, seen.changed, limits)
    aligned = _Aligned()
    for start in range(0, len(candidates), ALIGN_WINDOW):
        part = candidates[start : start + ALIGN_WINDOW]
        whole = _whole(queue, seen, part)
        for n, c in enumerate(part, start):
            aligned.add(n, align(whole[c.a.path], whole[c.b.path], limits.claim_similarity,
                                 limits.claims_per_pair))
    return candidates, aligned


def _whole(queue: Queue, seen: Survey, candidates: Iterable[Candidate]) -> dict[str, NoteState]:
    return queue.full_states({p for c in candidates for p in (c.a.path, c.b.path)}, seen.scan)


def _distinct(found: list[tuple[Verdict, Alignment]]) -> list[tuple[Verdict, Alignment]]:
    """The contradictions of one note pair worth a pair each: strongest first (the first of
    equals, in alignment order), each claim of either note in at most one. Two notes that
    disagree on two separate things give two pairs, so dismissing one hides not the other;
    one claim against two near-identical claims of the other note stays one pair."""
    kept: list[tuple[Verdict, Alignment]] = []
    used_a: set[int] = set()
    used_b: set[int] = set()
    for verdict, al in sorted(found, key=lambda f: (-f[0].score, -f[1].similarity)):
        if al.i not in used_a and al.j not in used_b:
            kept.append((verdict, al))
            used_a.add(al.i)
            used_b.add(al.j)
    return kept


async def _judge_all(queue: Queue, seen: Survey, candidates: list[Candidate],
                     aligned: _Aligned, judge: Judge, report: Progress
                     ) -> tuple[list[Pair], int]:
    """Judge the aligned claim pairs JUDGE_WINDOW at a time; the distinct contradictions of
    each candidate pair (`_distinct`) and how many verdicts came from a fallback judge."""
    contradictions: dict[int, list[tuple[Verdict, Alignment]]] = {}
    fallbacks = 0
    report("judge", 0, len(aligned))
    for start in range(0, len(aligned), JUDGE_WINDOW):
        rows = [aligned.get(r) for r in range(start, min(start + JUDGE_WINDOW, len(aligned)))]
        whole = await asyncio.to_thread(_whole, queue, seen, (candidates[n] for n, _ in rows))
        sides = [(whole[candidates[n].a.path], whole[candidates[n].b.path]) for n, _ in rows]
        verdicts = await judge.judge(
            [(a.claims[al.i][0], b.claims[al.j][0]) for (a, b), (_, al) in zip(sides, rows,
                                                                               strict=True)],
            private=[candidates[n].a.private or candidates[n].b.private for n, _ in rows],
            origins=[(a.ai_derived, b.ai_derived) for a, b in sides])
        for (n, al), verdict in zip(rows, verdicts, strict=True):
            fallbacks += verdict.judge is not None
            if verdict.contradiction:
                contradictions.setdefault(n, []).append((verdict, al))
        report("judge", start + len(rows), len(aligned))
    found: list[Pair] = []
    order = sorted(contradictions)
    for start in range(0, len(order), ALIGN_WINDOW):
        part = order[start : start + ALIGN_WINDOW]
        whole = await asyncio.to_thread(_whole, queue, seen, (candidates[n] for n in part))
        for n in part:
            c = candidates[n]
            found += [_pair(c, al, verdict, whole[c.a.path], whole[c.b.path], judge.name)
                      for verdict, al in _distinct(contradictions[n])]
    return found, fallbacks


def _save(queue: Queue, seen: Survey, news_affected: set[str], pairs: list[Pair]) -> None:
    """Write the findings and the note states (the states last: see the module docstring).
    Triaged pairs of renamed or moved notes follow them first (`moves.py`), so the findings
    about them keep the user's decision."""
    follow_moves(queue, seen)
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
    # A cancelled scan (Ctrl-C in the CLI) tells its worker thread to stop at its next check:
    # the thread would otherwise embed on, and the process could not exit until it is done.
    cancelled = threading.Event()

    def stop() -> bool:
        return cancelled.is_set() or (should_stop is not None and should_stop())

    staging = scan_id(time.time_ns(), embedder.model_id)
    try:
        # file reads and embedding, in a thread
        seen = await asyncio.to_thread(survey, config, queue, embedder, stop, staging)
        candidates, aligned = await asyncio.to_thread(_work, queue, seen, limits)
        found, fallbacks = await _judge_all(queue, seen, candidates, aligned, judge, report)
        news_affected, proposals = await asyncio.to_thread(
            news.propose, seen.states, seen.changed, limits,
            lambda paths: queue.full_states(paths, seen.scan))
        if stop():
            raise ScanStopped
        await asyncio.to_thread(_save, queue, seen, news_affected, found + proposals)
    except BaseException:  # stopped, failed or cancelled: the next scan reuses its staging
        cancelled.set()
        raise
    report("done", len(aligned), len(aligned))
    return ScanReport(
        notes=len(seen.states), changed=len(seen.changed), removed=len(seen.removed),
        candidates=len(candidates), claim_pairs=len(aligned), found=len(found),
        proposals=len(proposals), open=queue.open_count(), judge=judge.name,
        seconds=round(time.monotonic() - started, 3), fallbacks=fallbacks,
        warnings=queue.decisions.problems() if queue.decisions is not None else [],
    )
