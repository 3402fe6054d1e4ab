"""A triage decision belongs to the two claims, not to where their notes lie: it follows a
note renamed or moved, and it hides no other contradiction between the same two notes."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from sidecar.cleaning.resolve import resolve
from sidecar.cleaning.store import Pair, Queue
from sidecar.cleaning.undo import undo_last
from sidecar.models.embedder import Embedder
from sidecar.settings import Config, make_config
from tests.notes import write_notes

from .conftest import scan_with_rules

OLD, NEW = "Engrams/Vitamin C and colds.md", "Engrams/Vitamin C revisited.md"
MOVED = "Engrams/Health/Vitamin C, the trials.md"  # renamed and moved into a new folder


@contextlib.contextmanager
def _scanned_afresh(config: Config, embedder: Embedder) -> Iterator[Queue]:
    """The data folder deleted, then a queue scanned again from the vault alone: what the
    decisions notes keep."""
    shutil.rmtree(config.data)
    queue = Queue(config.data, config.vault)
    try:
        scan_with_rules(config, queue, embedder)
        yield queue
    finally:
        queue.close()


def _dismissed(config: Config, queue: Queue, embedder: Embedder) -> Pair:
    """The one engram pair a first scan finds, dismissed by the user."""
    scan_with_rules(config, queue, embedder)
    (pair,) = _engram(queue, "open")
    resolve(config, queue, pair.id, "dismiss")
    return pair


def _engram(queue: Queue, status: str) -> list[Pair]:
    return queue.pairs(status, kind="engram", private=True)


def _text_in(pair: Pair, path: str) -> str:
    """The claim of `pair` that the note at `path` makes (sides are ordered by path)."""
    (side,) = [s for s in (pair.a, pair.b) if s.path == path]
    return side.text


def _move(vault: Path, src: str, dst: str) -> None:
    """What Obsidian does on a rename or a folder move: the same bytes at a new path."""
    (vault / dst).parent.mkdir(parents=True, exist_ok=True)
    (vault / src).rename(vault / dst)


def _dismissed_then_moved(config: Config, queue: Queue, embedder: Embedder) -> Pair:
    scan_with_rules(config, queue, embedder)
    (pair,) = _engram(queue, "open")
    resolve(config, queue, pair.id, "dismiss")
    _move(config.vault, NEW, MOVED)
    scan_with_rules(config, queue, embedder)
    return pair


def test_dismissal_follows_a_note_renamed_into_another_folder(
    config: Config, vault_queue: Queue, embedder: Embedder,
) -> None:
    pair = _dismissed_then_moved(config, vault_queue, embedder)
    assert _engram(vault_queue, "open") == []
    (kept,) = _engram(vault_queue, "dismissed")
    assert {kept.a.path, kept.b.path} == {OLD, MOVED}
    assert (kept.a.text, kept.b.text) == (pair.a.text, pair.b.text)
    # Listed once: the pair under the note's old path is not left behind beside it.
    assert len(vault_queue.pairs(private=True, kind="engram")) == 1


def test_flag_follows_a_renamed_note_and_can_still_be_resolved_there(
    config: Config, vault_queue: Queue, embedder: Embedder,
) -> None:
    scan_with_rules(config, vault_queue, embedder)
    (pair,) = _engram(vault_queue, "open")
    resolve(config, vault_queue, pair.id, "flag")
    _move(config.vault, NEW, MOVED)
    scan_with_rules(config, vault_queue, embedder)
    assert _engram(vault_queue, "open") == []
    (flagged,) = _engram(vault_queue, "flagged")
    done = resolve(config, vault_queue, flagged.id, "wrong", note=MOVED)
    assert done.changed == [MOVED] and done.pair.status == "resolved"


def test_dismissal_after_a_rename_outlives_the_data_folder(
    config: Config, vault_queue: Queue, embedder: Embedder,
) -> None:
    _dismissed_then_moved(config, vault_queue, embedder)
    vault_queue.close()
    with _scanned_afresh(config, embedder) as queue:
        assert _engram(queue, "open") == []
        assert len(_engram(queue, "dismissed")) == 1


def test_dismissal_follows_a_note_renamed_and_retagged_between_two_scans(
    config: Config, vault_queue: Queue, embedder: Embedder,
) -> None:
    pair = _dismissed(config, vault_queue, embedder)
    _move(config.vault, NEW, MOVED)
    note = config.vault / MOVED
    note.write_text(note.read_text().replace("tags: [health, ai-derived]",
                                             "tags: [health, ai-derived, sleep]"))
    scan_with_rules(config, vault_queue, embedder)  # other bytes, the same claims: the same note
    assert _engram(vault_queue, "open") == []
    (kept,) = _engram(vault_queue, "dismissed")
    assert _text_in(kept, MOVED) == _text_in(pair, NEW)


def test_a_dismissal_follows_a_note_into_a_private_folder_and_stays_hidden(
    config: Config, vault_queue: Queue, embedder: Embedder,
) -> None:
    (config.vault / "ora.yaml").write_text("private:\n  - Secret/\n", encoding="utf-8")
    _dismissed(config, vault_queue, embedder)
    _move(config.vault, NEW, "Secret/Vitamin C revisited.md")
    scan_with_rules(config, vault_queue, embedder)
    assert vault_queue.pairs(kind="engram") == []  # hidden outside private mode
    (kept,) = vault_queue.pairs(kind="engram", private=True)
    assert kept.status == "dismissed" and kept.private
    assert {kept.a.path, kept.b.path} == {OLD, "Secret/Vitamin C revisited.md"}


def test_undo_of_a_change_of_mind_after_the_archived_note_moved_restores_it_there(
    config: Config, vault_queue: Queue, embedder: Embedder,
) -> None:
    before = {rel: (config.vault / rel).read_bytes() for rel in (OLD, NEW)}
    scan_with_rules(config, vault_queue, embedder)
    (pair,) = _engram(vault_queue, "open")
    resolve(config, vault_queue, pair.id, "changed-mind", newer=OLD)
    _move(config.vault, NEW, MOVED)  # the archived note, as the resolution left it
    scan_with_rules(config, vault_queue, embedder)
    undone = undo_last(config, vault_queue)
    assert undone.changed == sorted([OLD, MOVED])
    assert (config.vault / OLD).read_bytes() == before[OLD]
    assert (config.vault / MOVED).read_bytes() == before[NEW]
    (pair,) = undone.pairs
    assert pair.status == "open" and {pair.a.path, pair.b.path} == {OLD, MOVED}


def test_a_changed_claim_in_the_renamed_note_is_raised_again(
    config: Config, vault_queue: Queue, embedder: Embedder,
) -> None:
    _dismissed(config, vault_queue, embedder)
    _move(config.vault, NEW, MOVED)
    note = config.vault / MOVED
    note.write_text(note.read_text().replace("Large trials show", "New trials show"))
    scan_with_rules(config, vault_queue, embedder)
    (again,) = _engram(vault_queue, "open")
    assert {again.a.path, again.b.path} == {OLD, MOVED}
    assert "New trials show" in _text_in(again, MOVED)


def test_undo_of_a_dismissal_after_the_rename_reopens_the_pair_at_its_new_path(
    config: Config, vault_queue: Queue, embedder: Embedder,
) -> None:
    _dismissed_then_moved(config, vault_queue, embedder)
    undone = undo_last(config, vault_queue)
    (pair,) = undone.pairs
    assert pair.status == "open" and {pair.a.path, pair.b.path} == {OLD, MOVED}
    assert [p.id for p in _engram(vault_queue, "open")] == [pair.id]
    # Recorded in the vault too: after `.ora/` is lost the pair is open, not dismissed.
    vault_queue.close()
    with _scanned_afresh(config, embedder) as queue:
        assert [p.id for p in _engram(queue, "open")] == [pair.id]


def test_a_queue_file_written_before_keeps_its_decisions_across_a_rename(
    config: Config, vault_queue: Queue, embedder: Embedder,
) -> None:
    pair = _dismissed(config, vault_queue, embedder)
    vault_queue.close()
    # The file's tables and ids are those of the version before (no migration): its rows are
    # read as they are.
    with sqlite3.connect(vault_queue.path) as conn:
        assert conn.execute("SELECT id, status FROM pairs WHERE kind = 'engram'").fetchall() == [
            (pair.id, "dismissed")]
    queue = Queue(config.data, config.vault)
    try:
        assert queue.get(pair.id).status == "dismissed"
        _move(config.vault, NEW, MOVED)
        scan_with_rules(config, queue, embedder)
        assert _engram(queue, "open") == [] and len(_engram(queue, "dismissed")) == 1
    finally:
        queue.close()


FIRST = "Engrams/Sleep and colds.md"
TWO_CLAIMS = {
    FIRST: (
        "---\ntype: engram\nnexus: []\ntags: [health]\n---\n"
        "Taking vitamin C every day prevents the common cold.\n\n"
        "Drinking coffee after lunch keeps you awake at night.\n"
    ),
    "Engrams/Sleep and colds, revised.md": (
        "---\ntype: engram\nnexus: []\ntags: [health]\n---\n"
        "Taking vitamin C every day does not prevent the common cold.\n\n"
        "Drinking coffee after lunch does not keep you awake at night.\n"
    ),
}


def test_dismissing_one_contradiction_leaves_the_other_between_the_same_notes(
    tmp_path: Path, embedder: Embedder,
) -> None:
    config = make_config(write_notes(tmp_path / "two", TWO_CLAIMS), tmp_path / "two-data")
    queue = Queue(config.data, config.vault)
    try:
        scan_with_rules(config, queue, embedder)
        found = _engram(queue, "open")
        assert sorted(_text_in(p, FIRST) for p in found) == [
            "Drinking coffee after lunch keeps you awake at night.",
            "Taking vitamin C every day prevents the common cold."]
        resolve(config, queue, found[0].id, "dismiss")
        assert [p.id for p in _engram(queue, "open")] == [found[1].id]
        # Edited elsewhere, so both notes are judged again: the dismissed one stays dismissed,
        # the other stays listed.
        note = config.vault / FIRST
        note.write_text(note.read_text() + "\nSee also the review.\n")
        scan_with_rules(config, queue, embedder)
        assert [p.id for p in _engram(queue, "open")] == [found[1].id]
        assert [p.id for p in _engram(queue, "dismissed")] == [found[0].id]
    finally:
        queue.close()
