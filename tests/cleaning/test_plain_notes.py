"""Notes written the ordinary way (no frontmatter, inline #tags) are scanned by their effective
type, as the index files them; ora.yaml's folder rules and exclusions change what is scanned."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from sidecar.cleaning.rules import RulesJudge
from sidecar.cleaning.scan import ScanReport, scan
from sidecar.cleaning.store import Queue
from sidecar.models.embedder import Embedder
from sidecar.settings import make_config
from tests.drawings import excalidraw
from tests.notes import write_notes

PLAIN = {
    "Health/Vitamin C.md": "# Vitamin C\n\nTaking vitamin C every day prevents the common cold.\n",
    "Health/Vitamin C trials.md": (
        "Notes from the review. #health\n\n"
        "Large trials show that taking vitamin C every day does not prevent the common cold.\n"
    ),
    "Health/Sleep.md": "Caffeine late in the day shortens deep sleep.\n",
}


def _vault(tmp_path: Path, extra: dict[str, str] | None = None) -> Path:
    return write_notes(tmp_path / "vault", PLAIN | (extra or {}))


def _scan(vault: Path, tmp_path: Path, queue: Queue, embedder: Embedder) -> ScanReport:
    return asyncio.run(scan(make_config(vault, tmp_path / "data"), queue, embedder,
                            RulesJudge()))


@pytest.fixture
def plain_queue(tmp_path: Path) -> Iterator[Queue]:
    q = Queue(tmp_path / "data")
    yield q
    q.close()


def _pairs(queue: Queue) -> list[tuple[str, str, str]]:
    return [(p.kind, p.a.path, p.b.path) for p in queue.pairs("open")]


def test_notes_without_frontmatter_are_paired_as_the_vaults_untyped_type(
    tmp_path: Path, embedder: Embedder, plain_queue: Queue
) -> None:
    report = _scan(_vault(tmp_path), tmp_path, plain_queue, embedder)
    assert report.notes == 3
    assert _pairs(plain_queue) == [("resource", "Health/Vitamin C trials.md",
                                    "Health/Vitamin C.md")]


def test_inline_news_tag_makes_a_plain_note_news(tmp_path: Path, embedder: Embedder,
                                                 plain_queue: Queue) -> None:
    vault = _vault(tmp_path, {
        "Clips/Rates March.md": "#news\n\nThe central bank held its interest rate at 5.25 "
                                "percent on Wednesday, citing inflation.\n",
    })
    _scan(vault, tmp_path, plain_queue, embedder)
    assert plain_queue.note_states()["Clips/Rates March.md"].kind == "news"
    assert plain_queue.note_states()["Health/Sleep.md"].kind == "resource"


def test_changing_ora_yaml_rescans_unchanged_notes_under_their_new_type_and_exclusions(
    tmp_path: Path, embedder: Embedder, plain_queue: Queue
) -> None:
    vault, queue = _vault(tmp_path), plain_queue
    _scan(vault, tmp_path, queue, embedder)
    assert len(_pairs(queue)) == 1
    # Health/ becomes working notes (not a contradiction kind): the pair goes, although no
    # note changed on disk.
    (vault / "ora.yaml").write_text("folders:\n  Health/: working\n", encoding="utf-8")
    report = _scan(vault, tmp_path, queue, embedder)
    assert report.changed == 3 and _pairs(queue) == []
    assert {s.kind for s in queue.note_states().values()} == {None}
    # Excluded notes leave the queue altogether.
    (vault / "ora.yaml").write_text("exclude:\n  - Health/\n", encoding="utf-8")
    report = _scan(vault, tmp_path, queue, embedder)
    assert report.notes == 0 and report.removed == 3 and queue.note_states() == {}


def test_a_drawings_claims_are_its_text_not_the_plugins_banner(
    tmp_path: Path, embedder: Embedder, plain_queue: Queue
) -> None:
    """Every Excalidraw drawing began with the same banner sentence, which the scan took as a
    claim of each drawing; a drawing's claims are what its text elements say."""
    text = excalidraw([("Taking vitamin C every day prevents the common cold", "v1t4m1nc")])
    vault = _vault(tmp_path, {"Health/Cold.excalidraw.md": text})
    _scan(vault, tmp_path, plain_queue, embedder)
    state = plain_queue.full_states(["Health/Cold.excalidraw.md"])["Health/Cold.excalidraw.md"]
    assert state.title == "Cold"
    lines = text.split("\n")
    assert [lines[a - 1] for _, a, _ in state.claims] == [
        "Taking vitamin C every day prevents the common cold ^v1t4m1nc"]


def test_daily_notes_dataview_fields_and_tasks_are_no_contradiction(
    tmp_path: Path, embedder: Embedder, plain_queue: Queue
) -> None:
    """A week of daily notes with `Mood::` / `Sleep::` fields gave a contradiction for every pair
    of days (21 in 7 notes), and so did a task whose distance grows day by day; what the notes
    say still pairs."""
    days = {
        f"Daily/2024-04-2{d}.md": (
            f"# 2024-04-2{d}\n\nMood:: {d}\nSleep:: {d + 4} hours\n\n## Tasks\n"
            f"- [ ] Run {d + 3} km along the river before breakfast 📅 2024-04-2{d} #task\n"
            "\n## Log\n"
            + ("The plumber said the tap needs a new washer, cost is 40 euros.\n" if d == 4 else
               "The plumber said the tap needs a whole new cartridge, cost is 120 euros.\n"
               if d == 6 else "Worked on the garden shed project today.\n"))
        for d in range(2, 9)}
    _scan(_vault(tmp_path, days), tmp_path, plain_queue, embedder)
    daily = [(p.a.path, p.a.line_start, p.b.path) for p in plain_queue.pairs("open")
             if p.a.path.startswith("Daily/")]
    assert daily == [("Daily/2024-04-24.md", 10, "Daily/2024-04-26.md")]
