"""Triaged pairs that follow a renamed or moved note (`moves.py`): private at once when the note
moves somewhere private, carried over in one decisions append and one journal pass however many
they are, and, when the new id is decided already, that decision stands in the vault's
decisions and in the undo journal too."""

from __future__ import annotations

import errno
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.cleaning import decisions
from sidecar.cleaning.decisions import DecisionLog, decision_notes
from sidecar.cleaning.moves import follow_moves
from sidecar.cleaning.resolve import resolve
from sidecar.cleaning.store import UNDO_DEPTH, NoteState, Pair, Queue, Side, pair_id
from sidecar.cleaning.survey import Survey
from sidecar.cleaning.undo import undo_last
from sidecar.models.embedder import Embedder
from sidecar.settings import Config

from .conftest import scan_with_rules

NEW = "Engrams/Vitamin C revisited.md"
COPY = "Engrams/Vitamin C copy.md"  # a second note with NEW's bytes


# ---- a move into a private folder --------------------------------------------------------------


def test_pair_moved_into_a_private_folder_is_hidden_when_the_scan_dies_before_saving_states(
    config: Config, vault_queue: Queue, embedder: Embedder, monkeypatch: pytest.MonkeyPatch,
) -> None:
    (config.vault / "ora.yaml").write_text("private:\n  - Secret/\n", encoding="utf-8")
    scan_with_rules(config, vault_queue, embedder)
    (pair,) = vault_queue.pairs("open", kind="engram", private=True)
    resolve(config, vault_queue, pair.id, "dismiss")
    (config.vault / "Secret").mkdir()
    (config.vault / NEW).rename(config.vault / "Secret/Vitamin C revisited.md")

    def full_disk(scan_id: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    # The pairs have followed the note, but its new path is not among the saved note states:
    # the pair's own flag is all that keeps it out of non-private answers.
    monkeypatch.setattr(vault_queue, "commit_staged", full_disk)
    with pytest.raises(OSError):
        scan_with_rules(config, vault_queue, embedder)
    assert vault_queue.pairs(kind="engram") == []
    (kept,) = vault_queue.pairs(kind="engram", private=True)
    assert kept.private and "Secret/Vitamin C revisited.md" in (kept.a.path, kept.b.path)


# ---- many pairs moved at once ------------------------------------------------------------------


def _state(path: str, claims: list[str]) -> NoteState:
    return NoteState(path=path, hash=f"h {Path(path).stem}", size=1, mtime_ns=1, kind="engram",
                     archived=False, title=Path(path).stem, date=None, cluster=None,
                     claims=[(c, k + 6, k + 6) for k, c in enumerate(claims)])


def _folder_moved(tmp_path: Path, notes: int) -> tuple[Queue, Survey, list[Pair]]:
    """A queue with two dismissed pairs per note of Engrams/ (every other one private), and
    the survey of a scan that finds that folder moved to Archive/."""
    vault = tmp_path / "vault"
    vault.mkdir()
    queue = Queue(tmp_path / "data", vault)
    other = _state("Other/x.md", ["other claim 0", "other claim 1"])
    olds, news, pairs = [], [], []
    for n in range(notes):
        claims = [f"note {n} claim {k}" for k in range(2)]
        olds.append(_state(f"Engrams/n{n}.md", claims))
        news.append(_state(f"Archive/n{n}.md", claims))
        for k in range(2):
            a = Side(olds[-1].path, k + 6, k + 6, claims[k], olds[-1].hash)
            b = Side(other.path, k + 6, k + 6, other.claims[k][0], other.hash)
            pairs.append(Pair(pair_id("engram", a, b), "engram", a, b, "rules", 0.9, {},
                              private=n % 2 == 1))
    queue.put_notes([*olds, other])
    queue.offer(pairs)
    with sqlite3.connect(queue.path) as conn:
        conn.execute("UPDATE pairs SET status = 'dismissed'")
    queue.stage("scan", news)
    seen = Survey({s.path: s for s in [*news, other]}, {s.path for s in news}, set(),
                  {s.path for s in olds}, "scan", "key")
    return queue, seen, pairs


def _counting(monkeypatch: pytest.MonkeyPatch, name: str, writes: list[str]) -> None:
    """Count the decisions module's writes through `name` (each one rewrites a whole note)."""
    real: Callable[..., Any] = getattr(decisions, name)

    def write(vault: Any, rel: str, *args: Any, **kwargs: Any) -> Any:
        writes.append(rel)
        return real(vault, rel, *args, **kwargs)

    monkeypatch.setattr(decisions, name, write)


def test_moving_many_triaged_pairs_writes_each_decisions_note_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    queue, seen, pairs = _folder_moved(tmp_path, 10)
    writes: list[str] = []
    for name in ("create_note", "append_to_note"):
        _counting(monkeypatch, name, writes)
    try:
        follow_moves(queue, seen)
        moved = queue.pairs("dismissed", private=True)
        assert len(moved) == len(pairs) and all(p.a.path.startswith("Archive/") for p in moved)
    finally:
        queue.close()
    assert sorted(writes) == sorted(decision_notes())  # one write per note, not per pair
    recorded = DecisionLog(tmp_path / "vault").statuses()
    assert recorded == {p.id: "dismissed" for p in moved}
    public = (tmp_path / "vault" / decision_notes()[0]).read_text(encoding="utf-8")
    assert public.count(" · dismissed · ") == len(pairs) // 2
    assert "[[Archive/n0]]" in public and "[[Archive/n1]]" not in public  # n1's are private


def test_moving_many_triaged_pairs_reads_the_undo_journal_once(tmp_path: Path) -> None:
    queue, seen, pairs = _folder_moved(tmp_path, 10)
    try:
        for _ in range(UNDO_DEPTH):
            queue.save_undo(pairs, [])
        reads: list[str] = []
        queue._db.get().set_trace_callback(  # the connection of this thread: follow_moves's
            lambda sql: reads.append(sql) if "FROM undo" in sql and "undo_files" not in sql
            else None)
        follow_moves(queue, seen)
        queue._db.get().set_trace_callback(None)
        assert len(reads) == 1
        moved = {p.id for p in queue.pairs("dismissed", private=True)}
        entry = queue.last_undo()
        assert entry is not None and {p.id for p in entry.pairs} == moved
    finally:
        queue.close()


# ---- a move onto a pair decided already ---------------------------------------------------------


def _merged_onto_a_flag(config: Config, queue: Queue, embedder: Embedder,
                        first: str) -> tuple[Pair, Pair]:
    """Two copies of NEW, each paired with the same note: the original's pair dismissed, the
    copy's flagged (in the order `first` says which is resolved first). The copy is deleted,
    then the original renamed to the copy's name: its pair's new id is the flagged one's.
    Returns (dismissed, flagged) as they were."""
    shutil.copy(config.vault / NEW, config.vault / COPY)
    scan_with_rules(config, queue, embedder)
    found = queue.pairs("open", kind="engram", private=True)
    dismissed = next(p for p in found if NEW in (p.a.path, p.b.path))
    flagged = next(p for p in found if COPY in (p.a.path, p.b.path))
    steps = [(dismissed, "dismiss"), (flagged, "flag")]
    for pair, action in steps if first == "dismiss" else steps[::-1]:
        resolve(config, queue, pair.id, action)
    (config.vault / COPY).unlink()
    scan_with_rules(config, queue, embedder)
    (config.vault / NEW).rename(config.vault / COPY)
    scan_with_rules(config, queue, embedder)
    return dismissed, flagged


def test_move_onto_a_pair_decided_there_records_nothing_under_its_id(
    config: Config, vault_queue: Queue, embedder: Embedder,
) -> None:
    _, flagged = _merged_onto_a_flag(config, vault_queue, embedder, "dismiss")
    assert vault_queue.get(flagged.id, private=True).status == "flagged"
    assert DecisionLog(config.vault).statuses()[flagged.id] == "flagged"
    vault_queue.close()
    shutil.rmtree(config.data)
    queue = Queue(config.data, config.vault)
    try:
        scan_with_rules(config, queue, embedder)
        assert queue.get(flagged.id, private=True).status == "flagged"
    finally:
        queue.close()


def test_undo_of_a_pair_merged_onto_a_decided_one_leaves_that_decision(
    config: Config, vault_queue: Queue, embedder: Embedder,
) -> None:
    dismissed, flagged = _merged_onto_a_flag(config, vault_queue, embedder, "flag")
    undone = undo_last(config, vault_queue)  # the dismissal: its pair is no more
    assert undone.pairs == [] and undone.changed == []
    assert vault_queue.get(flagged.id, private=True).status == "flagged"
    assert [p.id for p in vault_queue.pairs(kind="engram", private=True)] == [flagged.id]
    assert dismissed.id not in {p.id for p in vault_queue.pairs(private=True)}
