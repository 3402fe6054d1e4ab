"""A resolution is all or nothing: when one of its two notes cannot be edited, neither is."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.cleaning.resolve import approve_batch, resolve
from sidecar.cleaning.scan import ScanReport
from sidecar.cleaning.store import Pair, Queue
from sidecar.cleaning.undo import undo_last
from sidecar.errors import Conflict, InvalidFrontmatter, NotFound
from sidecar.settings import Config
from sidecar.vault.edit import plan_edit, write_planned
from sidecar.vault.frontmatter_edit import add_tag

from .conftest import NOTES

Scan = Callable[[], ScanReport]
OLD, NEW = "Engrams/Vitamin C and colds.md", "Engrams/Vitamin C revisited.md"


def _files(vault: Path) -> dict[str, bytes]:
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in sorted(vault.rglob("*.md"))}


@pytest.mark.parametrize(
    "broken",
    [
        NOTES[OLD].replace("tags:\n  - health\n", "tags: {health: 1}\n"),  # not a list
        NOTES[OLD].replace("type: engram\n", "type: engram\ntitle: Tab\t\tbed\n"),  # tabs in value
    ],
)
def test_changed_mind_on_an_uneditable_older_note_writes_neither_note(
    run_scan: Scan, queue: Queue, config: Config, vault: Path, broken: str
) -> None:
    (vault / OLD).write_text(broken, encoding="utf-8")
    run_scan()
    (pair,) = queue.pairs("open", kind="engram")
    before = _files(vault)
    for _ in range(2):  # the retry must fail the same clean way
        with pytest.raises(InvalidFrontmatter, match=r"Vitamin C and colds\.md"):
            resolve(config, queue, pair.id, "changed-mind", newer=NEW)
        assert _files(vault) == before  # no `supersedes` in the newer note
        assert queue.get(pair.id).status == "open"
    with pytest.raises(NotFound):
        undo_last(config, queue)  # a refused resolution leaves nothing to undo


def test_when_the_second_write_fails_the_first_is_put_back(vault: Path) -> None:
    first, second = vault / NEW, vault / OLD
    plans = [plan_edit(vault, NEW, lambda cm: add_tag(cm, "archived")),
             plan_edit(vault, OLD, lambda cm: add_tag(cm, "archived"))]
    typed = NOTES[OLD] + "Typed in Obsidian after the plan.\n"
    second.write_text(typed, encoding="utf-8")
    with pytest.raises(Conflict):
        write_planned(plans)
    assert first.read_text(encoding="utf-8") == NOTES[NEW]
    assert second.read_text(encoding="utf-8") == typed


MARCH, MAY, JUNE = ("Resources/Rates March.md", "Resources/Rates May.md",
                    "Resources/Rates June.md")


def _story(run_scan: Scan, queue: Queue) -> tuple[str, list[str]]:
    """The rates story's batch and its proposals' ids, oldest first (March → May → June)."""
    run_scan()
    news = sorted(queue.pairs("open", kind="news"), key=lambda p: p.b.path != MAY)
    assert [(p.a.path, p.b.path) for p in news] == [(MARCH, MAY), (MAY, JUNE)]
    assert news[0].batch is not None
    return news[0].batch, [p.id for p in news]


def test_a_story_whose_newest_article_changed_is_refused_before_any_write(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    # Before: 409 naming June, yet March was archived and May had `supersedes` already.
    batch, ids = _story(run_scan, queue)
    (vault / JUNE).write_text(NOTES[JUNE] + "Edited after the scan.\n", encoding="utf-8")
    before = _files(vault)
    with pytest.raises(Conflict, match=r"Rates June\.md changed since"):
        approve_batch(config, queue, batch)
    assert _files(vault) == before
    assert [queue.get(pid).status for pid in ids] == ["open", "open"]
    with pytest.raises(NotFound):
        undo_last(config, queue)  # nothing was written, so nothing is left to undo


def test_a_story_whose_write_fails_midway_is_put_back_whole(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    # June's frontmatter cannot be edited (tabs in a value): the check as judged passes, the
    # first proposal is written, the second fails. Before: March and May kept their edits.
    (vault / JUNE).write_text(NOTES[JUNE].replace("nexus: []\n", "nexus: []\ntitle: a\t\tb\n"),
                              encoding="utf-8")
    batch, ids = _story(run_scan, queue)
    before = _files(vault)
    with pytest.raises(InvalidFrontmatter, match=r"Rates June\.md"):
        approve_batch(config, queue, batch)
    assert _files(vault) == before
    assert [queue.get(pid).status for pid in ids] == ["open", "open"]
    with pytest.raises(NotFound):
        undo_last(config, queue)
    (vault / JUNE).write_text(NOTES[JUNE], encoding="utf-8")  # fixed, and judged again
    run_scan()
    assert len(approve_batch(config, queue, batch)) == 2


class _SavedMeanwhile(Queue):
    """A queue whose record of one decision fails (a full disk) just after the user saved a
    note the approval had written: the approval cannot be put back without losing that save."""

    def __init__(self, data: Path, failing: str, saved: Path) -> None:
        super().__init__(data)
        self.failing, self.saved = failing, saved

    def set_status(self, pid: str, status: str, resolution: dict[str, Any] | None) -> Pair:
        if pid == self.failing:
            self.saved.write_text(self.saved.read_text(encoding="utf-8") + "Saved.\n",
                                  encoding="utf-8")
            raise OSError(28, "No space left on device")
        return super().set_status(pid, status, resolution)


def test_a_story_that_cannot_be_put_back_answers_what_was_applied(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    # Before: the error was raised although March → May stayed applied.
    batch, (first, second) = _story(run_scan, queue)
    failing = _SavedMeanwhile(config.data, second, vault / MARCH)
    try:
        done = approve_batch(config, failing, batch)
    finally:
        failing.close()
    assert [d.pair.id for d in done] == [first] and sorted(done[0].changed) == [MARCH, MAY]
    assert (vault / MARCH).read_text(encoding="utf-8").endswith("Saved.\n")  # the save kept
    assert "supersedes" in (vault / MAY).read_text(encoding="utf-8")
    assert (vault / JUNE).read_text(encoding="utf-8") == NOTES[JUNE]
    assert [queue.get(pid).status for pid in (first, second)] == ["resolved", "open"]


def test_after_a_story_is_undone_its_middle_proposal_resolves_alone(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    # Before: the undo gave May→June the hash May had between the story's two edits, so May,
    # back as judged, read as changed since.
    batch, (_, second) = _story(run_scan, queue)
    approve_batch(config, queue, batch)
    undo_last(config, queue)
    assert _files(vault) == {k: v.encode() for k, v in NOTES.items()}
    done = resolve(config, queue, second, "changed-mind", newer=JUNE)
    assert sorted(done.changed) == sorted([MAY, JUNE])


class _Locked(Queue):
    """A queue whose record of one decision fails with something other than OraError or
    OSError (the queue's database locked), after `saved` (if any) was saved by the user."""

    def __init__(self, data: Path, failing: str, saved: Path | None = None) -> None:
        super().__init__(data)
        self.failing, self.saved = failing, saved

    def set_status(self, pid: str, status: str, resolution: dict[str, Any] | None) -> Pair:
        if pid == self.failing:
            if self.saved is not None:
                self.saved.write_text(self.saved.read_text(encoding="utf-8") + "Saved.\n",
                                      encoding="utf-8")
            raise sqlite3.OperationalError("database is locked")
        return super().set_status(pid, status, resolution)


def _unsave(note: Path) -> None:
    """Take the user's "Saved." back out, so the note is as the approval left it."""
    note.write_text(note.read_text(encoding="utf-8").removesuffix("Saved.\n"), encoding="utf-8")


def test_a_story_whose_queue_fails_midway_with_any_error_is_put_back_whole(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    # Before: an error not OraError/OSError left March archived and May with `supersedes`,
    # the first pair resolved, and nothing to undo.
    batch, ids = _story(run_scan, queue)
    before = _files(vault)
    failing = _Locked(config.data, ids[1])
    try:
        with pytest.raises(sqlite3.OperationalError):
            approve_batch(config, failing, batch)
    finally:
        failing.close()
    assert _files(vault) == before
    assert [queue.get(pid).status for pid in ids] == ["open", "open"]
    with pytest.raises(NotFound):
        undo_last(config, queue)


def test_a_story_failing_with_any_error_that_cannot_be_put_back_is_journalled(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    # Before: raised with March → May applied and no undo recorded for it.
    batch, ids = _story(run_scan, queue)
    before = _files(vault)
    failing = _Locked(config.data, ids[1], saved=vault / MARCH)
    try:
        with pytest.raises(sqlite3.OperationalError):
            approve_batch(config, failing, batch)
    finally:
        failing.close()
    assert [queue.get(pid).status for pid in ids] == ["resolved", "open"]
    _unsave(vault / MARCH)
    undo_last(config, queue)  # this approval's undo, not some older one
    assert _files(vault) == before
    assert [queue.get(pid).status for pid in ids] == ["open", "open"]


def test_a_story_whose_take_back_meets_a_save_still_puts_back_the_other_note(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    # The user saves May (archived by the second proposal), then its decision fails. Before:
    # the take-back stopped at May, so June kept `supersedes` of an open pair, unlisted.
    batch, ids = _story(run_scan, queue)
    before = _files(vault)
    failing = _SavedMeanwhile(config.data, ids[1], vault / MAY)
    try:
        done = approve_batch(config, failing, batch)
    finally:
        failing.close()
    assert (vault / JUNE).read_text(encoding="utf-8") == NOTES[JUNE]
    assert sorted({p for d in done for p in d.changed}) == [MARCH, MAY]
    assert [queue.get(pid).status for pid in ids] == ["resolved", "open"]
    _unsave(vault / MAY)
    undo_last(config, queue)  # the journal holds March and May only (June is back already)
    assert _files(vault) == before
    assert len(approve_batch(config, queue, batch)) == 2  # both pairs as judged again


def test_a_note_the_failed_proposal_left_changed_is_listed_in_the_answer(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    # The user saves June (given `supersedes` by the second proposal), then its decision
    # fails: June keeps that edit. Before: the answer did not name June (not re-indexed).
    batch, ids = _story(run_scan, queue)
    before = _files(vault)
    failing = _SavedMeanwhile(config.data, ids[1], vault / JUNE)
    try:
        done = approve_batch(config, failing, batch)
    finally:
        failing.close()
    assert [d.pair.id for d in done] == [ids[0]]
    assert sorted({p for d in done for p in d.changed}) == [JUNE, MARCH, MAY]
    assert "supersedes" in (vault / JUNE).read_text(encoding="utf-8")
    _unsave(vault / JUNE)
    undo_last(config, queue)
    assert _files(vault) == before
    assert [queue.get(pid).status for pid in ids] == ["open", "open"]
