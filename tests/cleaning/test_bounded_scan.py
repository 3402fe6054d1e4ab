"""A scan holds a window of notes' claims and vectors at a time, never the vault's (issue 17):
the changed notes are staged in the queue a few at a time, every note is kept only as a light
state, and the paired notes' claims are read back, aligned and judged a window at a time."""

from __future__ import annotations

import asyncio
import importlib
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from sidecar.cleaning import candidates, news
from sidecar.cleaning.rules import RulesJudge
from sidecar.cleaning.scan import ScanReport
from sidecar.cleaning.store import NoteState, Queue
from sidecar.cleaning.survey import ScanStopped, Survey
from sidecar.cleaning.verdict import Origins, Verdict
from sidecar.models.embedder import Embedder
from sidecar.settings import Config

from .test_scan import VITAMIN, engram_pairs

# The package exports the functions `scan` and `survey` under the modules' names.
scan_module = importlib.import_module("sidecar.cleaning.scan")
survey_module = importlib.import_module("sidecar.cleaning.survey")


def test_a_scan_stages_and_reads_back_notes_a_window_at_a_time(
    config: Config, queue: Queue, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(survey_module, "STAGE_NOTES", 2)
    monkeypatch.setattr(survey_module, "STAGE_TEXTS", 3)
    monkeypatch.setattr(scan_module, "ALIGN_WINDOW", 1)
    monkeypatch.setattr(scan_module, "JUDGE_WINDOW", 1)
    monkeypatch.setattr(news, "LOAD_WINDOW", 1)
    staged: list[int] = []
    read: list[int] = []
    surveys: list[Survey] = []
    stage, full_states, survey = queue.stage, queue.full_states, survey_module.survey

    def counted_stage(scan: str, states: Iterable[NoteState]) -> None:
        states = list(states)
        staged.append(len(states))
        stage(scan, states)

    def counted_read(paths: Iterable[str], scan: str | None = None) -> dict[str, NoteState]:
        paths = set(paths)
        read.append(len(paths))
        return full_states(paths, scan)

    def kept(*args: Any) -> Survey:
        surveys.append(survey(*args))
        return surveys[-1]

    judged: list[int] = []
    judge = RulesJudge()
    judge_all = judge.judge

    async def counted_judge(pairs: list[tuple[str, str]],
                            private: Sequence[bool] = (),
                            origins: Origins | None = None) -> list[Verdict]:
        judged.append(len(pairs))
        return await judge_all(pairs, private, origins)

    monkeypatch.setattr(judge, "judge", counted_judge)
    monkeypatch.setattr(queue, "stage", counted_stage)
    monkeypatch.setattr(queue, "full_states", counted_read)
    monkeypatch.setattr(scan_module, "survey", kept)
    report: ScanReport = asyncio.run(scan_module.scan(config, queue, embedder, judge))

    assert report.changed == 8 and engram_pairs(queue) == [VITAMIN]  # as with no windows
    assert sum(staged) == 8 and max(staged) <= 2
    assert read and max(read) <= 2  # one candidate pair's (or news proposal's) two notes
    assert judged == [1] * report.claim_pairs  # one claim pair per judge call
    (seen,) = surveys
    assert len(seen.states) == 8 and all(s.light and not s.claims for s in seen.states.values())
    # What was staged became the notes' states, whole.
    states = queue.note_states()
    assert len(states) == 8 and not any(s.light for s in states.values())
    assert all(s.vectors is not None and len(s.vectors) == len(s.claims) + 1
               for s in states.values() if s.kind)
    assert queue._rows("SELECT count(*) AS n FROM staged")[0]["n"] == 0


def test_a_stopped_scan_keeps_what_it_staged_for_the_next_scan_which_embeds_only_the_rest(
    config: Config, queue: Queue, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first scan that Obsidian's closing stops resumes: the next scan takes the vectors of
    the notes the stopped one embedded and staged, and drops its staging once done."""
    monkeypatch.setattr(survey_module, "STAGE_NOTES", 2)
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        now = time.time_ns()
        old = survey_module.scan_id(now - 2 * 86400 * 10**9, embedder.model_id)
        running = survey_module.scan_id(now, embedder.model_id, pid=live.pid)
        for scan_id in (old, running):
            queue.stage(scan_id, [NoteState("x.md", "h", 1, 1, None, False, "x", None, None)])
        embedded: list[str] = []
        embed = embedder.embed
        monkeypatch.setattr(embedder, "embed", lambda texts: (embedded.extend(texts),
                                                              embed(texts))[1])
        checks = iter(range(100))
        with pytest.raises(ScanStopped):
            asyncio.run(scan_module.scan(config, queue, embedder, RulesJudge(),
                                         should_stop=lambda: next(checks) >= 6))
        (stopped,) = set(queue.staged_scans()) - {running}  # the day-old staging is gone
        kept = queue.full_states({r["path"] for r in queue._rows(
            "SELECT path FROM staged WHERE scan = ?", (stopped,))}, stopped)
        assert kept and queue.note_states() == {}  # staged, not saved
        texts = {t for s in kept.values() for t, _, _ in s.claims}
        assert texts and texts <= set(embedded)
        embedded.clear()
        report = asyncio.run(scan_module.scan(config, queue, embedder, RulesJudge()))
        assert report.changed == 8 and engram_pairs(queue) == [VITAMIN]
        assert embedded and not texts & set(embedded)  # none embedded again
        assert queue.staged_scans() == [running]  # another process's scan keeps its own
    finally:
        live.kill()
        live.wait()


def test_staging_made_with_another_embedder_is_not_reused(
    config: Config, queue: Queue, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(survey_module, "STAGE_NOTES", 2)
    checks = iter(range(100))
    with pytest.raises(ScanStopped):
        asyncio.run(scan_module.scan(config, queue, embedder, RulesJudge(),
                                     should_stop=lambda: next(checks) >= 6))
    assert queue.staged_scans()
    monkeypatch.setattr(embedder, "model_id", "another-model")
    embedded: list[str] = []
    embed = embedder.embed
    monkeypatch.setattr(embedder, "embed", lambda texts: (embedded.extend(texts),
                                                          embed(texts))[1])
    asyncio.run(scan_module.scan(config, queue, embedder, RulesJudge()))
    whole = queue.note_states()
    assert sorted(embedded) == sorted(t for s in whole.values() if s.kind
                                      for t, _, _ in s.claims or [(s.title, 0, 0)])
    assert queue.staged_scans() == []


def test_what_a_killed_scan_staged_is_dropped_by_the_next_scan_not_a_day_later(
    config: Config, queue: Queue, embedder: Embedder
) -> None:
    """A sidecar killed mid-scan leaves its changed notes' claims and vectors staged; the next
    scan drops them at once, and keeps what a scan of a live process stages meanwhile."""
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        now = time.time_ns()
        killed = survey_module.scan_id(now - 60 * 10**9, pid=done.pid)
        running = survey_module.scan_id(now - 10**9, pid=live.pid)
        for scan_id in (killed, running):
            queue.stage(scan_id, [NoteState("x.md", "h", 1, 1, None, False, "x", None, None)])
        asyncio.run(scan_module.scan(config, queue, embedder, RulesJudge()))
        assert queue.staged_scans() == [running]
    finally:
        live.kill()
        live.wait()


def test_a_cancelled_scan_stops_its_survey_thread_and_drops_what_it_staged(
    config: Config, queue: Queue, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C during `ora contradictions --scan` cancels the scan: its worker thread must stop
    embedding at its next check (the process cannot exit before the thread ends), and nothing
    counts as scanned."""
    monkeypatch.setattr(survey_module, "STAGE_NOTES", 1)
    started, cancelled = threading.Event(), threading.Event()
    calls: list[int] = []
    embed = embedder.embed

    def slow_embed(texts: list[str]) -> Any:
        calls.append(len(texts))
        started.set()
        cancelled.wait(10)  # the scan is cancelled while this batch embeds
        return embed(texts)

    monkeypatch.setattr(embedder, "embed", slow_embed)

    async def cancel_mid_survey() -> None:
        task = asyncio.create_task(scan_module.scan(config, queue, embedder, RulesJudge()))
        await asyncio.to_thread(started.wait, 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        cancelled.set()

    asyncio.run(cancel_mid_survey())  # returns once the worker thread has ended
    assert len(calls) == 1  # no batch embedded after the cancellation
    assert queue.note_states() == {}


def test_leftover_staging_keeps_one_row_per_note_however_often_scans_stopped(
    queue: Queue,
) -> None:
    def state(path: str, file_hash: str) -> NoteState:
        return NoteState(path, file_hash, 1, 1, None, False, path, None, None)

    queue.stage("1-first", [state("x.md", "1"), state("y.md", "1")])
    queue.stage("2-second", [state("x.md", "2")])
    queue.stage("3-running", [state("y.md", "3")])
    queue.keep_newest_staged(["1-first", "2-second"])
    rows = queue._rows("SELECT scan, path FROM staged ORDER BY scan, path")
    assert [(r["scan"], r["path"]) for r in rows] == [
        ("1-first", "y.md"), ("2-second", "x.md"), ("3-running", "y.md")]
    found = queue.staged_state("x.md", "2", ["1-first", "2-second"])
    assert found is not None and found.hash == "2"
    assert queue.staged_state("x.md", "1", ["1-first", "2-second"]) is None


def test_a_scan_with_nothing_changed_compares_no_notes(
    config: Config, queue: Queue, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    asyncio.run(scan_module.scan(config, queue, embedder, RulesJudge()))

    def compared(*_args: Any) -> Any:
        raise AssertionError("compared every note with every other")

    monkeypatch.setattr(news, "_edges", compared)
    monkeypatch.setattr(candidates, "note_vector", compared)
    monkeypatch.setattr(queue, "full_states", compared)
    report = asyncio.run(scan_module.scan(config, queue, embedder, RulesJudge()))
    assert (report.changed, report.candidates, report.proposals) == (0, 0, 0)
    assert engram_pairs(queue) == [VITAMIN]
