"""Scanning a purpose-built vault: what is paired, what is not, and what is re-judged."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from sidecar.cleaning.rules import RulesJudge, detect
from sidecar.cleaning.scan import ScanReport, scan
from sidecar.cleaning.store import Queue
from sidecar.cleaning.survey import SURVEY_VERSION
from sidecar.cleaning.verdict import Origins, Verdict
from sidecar.cleaning.vocab import get_cues
from sidecar.models.embedder import Embedder
from sidecar.settings import Config

Scan = Callable[[], ScanReport]
VITAMIN = ("Engrams/Vitamin C and colds.md", "Engrams/Vitamin C revisited.md")


def engram_pairs(queue: Queue, status: str = "open") -> list[tuple[str, str]]:
    return [(p.a.path, p.b.path) for p in queue.pairs(status, kind="engram")]


def test_contradicting_pair_is_found_and_agreeing_or_unrelated_pairs_are_not(
    run_scan: Scan, queue: Queue
) -> None:
    report = run_scan()
    assert report.notes == 8 and report.changed == 8
    assert engram_pairs(queue) == [VITAMIN]
    (pair,) = queue.pairs("open", kind="engram")
    assert pair.as_json() | {"id": "-", "evidence": {}} == {
        "id": "-", "kind": "engram",
        "a": {"path": VITAMIN[0], "line_start": 10, "line_end": 10,
              "text": "Taking vitamin C every day prevents the common cold."},
        "b": {"path": VITAMIN[1], "line_start": 7, "line_end": 7,
              "text": "Large trials show that taking vitamin C every day does not prevent "
                      "the common cold."},
        "judge": "rules", "score": pair.score, "evidence": {}, "status": "open",
        "private": False, "provenance": {"a": "user", "b": "ai-derived"},
        "suggested": {"action": "wrong", "note": VITAMIN[1], "reason": pair.as_json()[
            "suggested"]["reason"]},
    }
    assert pair.evidence["cue"] == "negation" and pair.evidence["negations"] == ["not"]
    assert pair.evidence["claim_similarity"] >= 0.6
    # What triage needs to choose: which note is newer, which came from the AI side.
    assert pair.evidence["dates"] == ["2021-03-04", "2024-06-01"]
    assert pair.evidence["ai_derived"] == [False, True]


def test_nothing_is_judged_again_when_nothing_changed(run_scan: Scan) -> None:
    run_scan()
    again = run_scan()
    assert (again.changed, again.candidates, again.claim_pairs) == (0, 0, 0)
    assert again.open == 3


def test_only_the_changed_note_is_compared_again(run_scan: Scan, vault: Path,
                                                 queue: Queue) -> None:
    run_scan()
    note = vault / "Engrams/Review intervals.md"
    note.write_text(note.read_text().replace(
        "Reviewing vocabulary at spaced intervals improves how long words are retained.",
        "Spaced repetition does not improve long-term retention of vocabulary."))
    report = run_scan()
    assert report.changed == 1 and report.candidates == 1
    assert engram_pairs(queue) == [
        ("Engrams/Review intervals.md", "Engrams/Spaced repetition.md"), VITAMIN]


def test_removed_note_takes_its_open_pairs_with_it(run_scan: Scan, vault: Path,
                                                   queue: Queue) -> None:
    run_scan()
    (vault / VITAMIN[1]).unlink()
    report = run_scan()
    assert report.removed == 1 and engram_pairs(queue) == []


def test_archived_notes_are_not_paired(run_scan: Scan, vault: Path, queue: Queue) -> None:
    note = vault / VITAMIN[1]
    note.write_text(note.read_text().replace("tags: [health, ai-derived]", "tags: [archived]"))
    run_scan()
    assert engram_pairs(queue) == []


def test_notes_already_joined_by_supersedes_are_not_paired(run_scan: Scan, vault: Path,
                                                           queue: Queue) -> None:
    note = vault / VITAMIN[1]
    note.write_text(note.read_text().replace(
        "date created: 2024-06-01\n",
        "date created: 2024-06-01\nrelationships:\n  supersedes: ['[[Vitamin C and colds]]']\n"))
    run_scan()
    assert engram_pairs(queue) == []


def test_pair_ids_are_stable_when_the_queue_is_rebuilt(run_scan: Scan, queue: Queue) -> None:
    run_scan()
    first = sorted(p.id for p in queue.pairs())
    queue.close()
    queue.path.unlink()
    assert sorted(p.id for p in Queue(queue.path.parent).pairs()) == []
    run_scan()
    assert sorted(p.id for p in queue.pairs()) == first


def test_titles_are_claims_at_their_heading_line(run_scan: Scan, queue: Queue) -> None:
    run_scan()
    states = queue.note_states()
    assert states[VITAMIN[0]].claims[0] == ("Vitamin C and colds", 8, 8)  # its `# ` heading
    assert states[VITAMIN[1]].claims[0] == ("Vitamin C revisited", 7, 7)  # first body line
    assert states["Engrams/Spaced repetition.md"].claims[0][0].startswith("Spaced repetition ")
    assert states["Resources/Rates May.md"].claims[0][0].startswith("The central bank")  # news


class _LabelBlindRules:
    """The rules judge as it was before number labels (schema labels empty): what an older
    sidecar queued."""

    name = "rules"

    async def judge(self, pairs: list[tuple[str, str]],
                    private: Sequence[bool] = (),
                    origins: Origins | None = None) -> list[Verdict]:
        cues = replace(get_cues(), labels=frozenset())
        return [detect(a, b, cues) for a, b in pairs]


def test_pairs_an_older_judge_queued_are_judged_again_after_an_upgrade(
    config: Config, queue: Queue, embedder: Embedder, vault: Path
) -> None:
    """A queue filled by an older sidecar keeps no pair today's rules reject: the survey key
    names the rules' version, so every note is judged again at the first scan."""
    for n in (12, 13):
        (vault / f"Engrams/Sprint {n} retro.md").write_text(
            f"---\ntype: engram\nnexus: []\ntags: []\n---\nSprint {n} retro: the team shipped "
            "the login page on time and fixed the flaky build.\n", encoding="utf-8")
    asyncio.run(scan(config, queue, embedder, _LabelBlindRules()))
    sprints = ("Engrams/Sprint 12 retro.md", "Engrams/Sprint 13 retro.md")
    assert sprints in engram_pairs(queue)  # what the older rules found
    key = queue.get_meta("survey_key") or ""
    queue.set_meta("survey_key", key.replace(f"{SURVEY_VERSION}|", "2|", 1))  # saved by it
    asyncio.run(scan(config, queue, embedder, RulesJudge()))
    assert sprints not in engram_pairs(queue)
    assert VITAMIN in engram_pairs(queue)
