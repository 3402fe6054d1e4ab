"""A note gone from its path since the last scan may have moved into a private folder: its pairs
leave non-private lists and counts at once, whatever the next scan finds (`live_privacy.py`),
except a pair whose own resolution trashed the note."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sidecar.cleaning.resolve import resolve
from sidecar.cleaning.scan import ScanReport
from sidecar.cleaning.store import Queue
from sidecar.settings import Config

Scan = Callable[[], ScanReport]
OLD, NEW = "Engrams/Vitamin C and colds.md", "Engrams/Vitamin C revisited.md"
SECRET = "Secret/Vitamin C revisited.md"


@pytest.fixture
def live(config: Config, vault: Path) -> Iterator[Queue]:
    """The queue as the server opens it: the vault known, so privacy is checked now."""
    q = Queue(config.data, vault)
    yield q
    q.close()


def _engram_ids(queue: Queue, *, private: bool = False) -> list[str]:
    return [p.id for p in queue.pairs(kind="engram", private=private)]


def test_a_note_moved_into_a_private_folder_hides_its_pair_before_any_scan(
    run_scan: Scan, live: Queue, vault: Path
) -> None:
    (vault / "ora.yaml").write_text("private:\n  - Secret/\n", encoding="utf-8")
    run_scan()
    (pair_id,) = _engram_ids(live)
    opened = live.open_count()
    (vault / "Secret").mkdir()
    (vault / NEW).rename(vault / SECRET)
    assert _engram_ids(live) == []
    assert live.open_count() == opened - 1
    assert _engram_ids(live, private=True) == [pair_id]  # private mode still lists it
    assert live.get(pair_id, private=True).private


def test_a_triaged_pair_of_a_moved_note_stays_hidden_after_the_next_scan(
    run_scan: Scan, live: Queue, vault: Path, config: Config
) -> None:
    (vault / "ora.yaml").write_text("private:\n  - Secret/\n", encoding="utf-8")
    run_scan()
    (pair_id,) = _engram_ids(live)
    resolve(config, live, pair_id, "dismiss")
    (vault / "Secret").mkdir()
    (vault / NEW).rename(vault / SECRET)
    run_scan()  # the dismissed pair follows the note to its new path and id (`moves.py`)
    assert live.pairs("dismissed") == []
    (kept,) = live.pairs("dismissed", private=True)
    assert kept.private and {kept.a.path, kept.b.path} == {OLD, SECRET}


def test_a_pair_whose_resolution_trashed_its_note_stays_listed(
    run_scan: Scan, live: Queue, vault: Path, config: Config
) -> None:
    run_scan()
    (pair_id,) = _engram_ids(live)
    resolve(config, live, pair_id, "wrong", note=OLD, delete=True)
    assert not (vault / OLD).exists()
    assert [p.id for p in live.pairs("resolved")] == [pair_id]
    run_scan()
    assert [p.id for p in live.pairs("resolved")] == [pair_id]
