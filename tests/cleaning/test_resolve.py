"""Each resolution writes exactly the expected files (whole files, byte for byte) or refuses."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sidecar.cleaning.resolve import resolve
from sidecar.cleaning.scan import ScanReport
from sidecar.cleaning.store import Pair, Queue
from sidecar.cleaning.undo import undo_last
from sidecar.errors import BadRequest, Conflict, NotFound
from sidecar.settings import Config

from .conftest import NOTES

Scan = Callable[[], ScanReport]
OLD, NEW = "Engrams/Vitamin C and colds.md", "Engrams/Vitamin C revisited.md"

OLD_ARCHIVED = (
    "---\n"
    "type: engram\n"
    "nexus: []\n"
    "tags:\n"
    "  - health\n"
    "  - archived\n"
    "date created: 2021-03-04\n"
    "---\n"
    "# Vitamin C and colds\n"
    "\n"
    "Taking vitamin C every day prevents the common cold.\n"
    "Citrus fruit is a good source of it.\n"
)
NEW_SUPERSEDING = (
    "---\n"
    "type: engram\n"
    "nexus: [\"[[Health]]\"]  # kept as written\n"
    "tags: [health, ai-derived]\n"
    "date created: 2024-06-01\n"
    "relationships:\n"
    "  supersedes:\n"
    "  - \"[[Vitamin C and colds]]\"\n"
    "---\n"
    "Large trials show that taking vitamin C every day does not prevent the common cold.\n"
)
NEW_ARCHIVED = (
    "---\n"
    "type: engram\n"
    "nexus: [\"[[Health]]\"]  # kept as written\n"
    "tags: [health, ai-derived, archived]\n"
    "date created: 2024-06-01\n"
    "---\n"
    "Large trials show that taking vitamin C every day does not prevent the common cold.\n"
)


def the_pair(run_scan: Scan, queue: Queue) -> Pair:
    run_scan()
    (pair,) = queue.pairs("open", kind="engram")
    return pair


def files(vault: Path) -> dict[str, str]:
    return {p.relative_to(vault).as_posix(): p.read_bytes().decode()
            for p in sorted(vault.rglob("*.md"))}




def test_changed_mind_supersedes_the_older_and_archives_it(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    pair = the_pair(run_scan, queue)
    done = resolve(config, queue, pair.id, "changed-mind", newer=NEW)
    assert sorted(done.changed) == [OLD, NEW]
    assert done.pair.status == "resolved"
    assert done.pair.resolution == {"action": "changed-mind", "newer": NEW, "older": OLD}
    assert files(vault)[OLD] == OLD_ARCHIVED
    assert files(vault)[NEW] == NEW_SUPERSEDING
    assert {k: v for k, v in files(vault).items() if k not in (OLD, NEW)} == {
        k: v for k, v in NOTES.items() if k not in (OLD, NEW)}


def test_after_changed_mind_a_rescan_leaves_the_archived_note_unpaired(
    run_scan: Scan, queue: Queue, config: Config
) -> None:
    pair = the_pair(run_scan, queue)
    resolve(config, queue, pair.id, "changed-mind", newer=NEW)
    report = run_scan()
    assert report.changed == 2 and queue.pairs("open", kind="engram") == []
    assert queue.get(pair.id).status == "resolved"


def test_flag_edits_nothing_and_keeps_the_pair_flagged(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    pair = the_pair(run_scan, queue)
    done = resolve(config, queue, pair.id, "flag")
    assert done.changed == [] and done.pair.status == "flagged"
    assert files(vault) == NOTES
    run_scan()
    assert [p.id for p in queue.pairs("flagged")] == [pair.id]


def test_wrong_archives_only_the_chosen_note(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    pair = the_pair(run_scan, queue)
    done = resolve(config, queue, pair.id, "wrong", note=NEW)
    assert done.changed == [NEW]
    assert files(vault) == {**NOTES, NEW: NEW_ARCHIVED}


def test_wrong_with_delete_moves_the_note_to_the_trash_unchanged(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    pair = the_pair(run_scan, queue)
    done = resolve(config, queue, pair.id, "wrong", note=OLD, delete=True)
    assert done.changed == [OLD]
    assert done.pair.resolution == {"action": "wrong", "note": OLD, "deleted": True,
                                    "trash": ".trash/Vitamin C and colds.md"}
    assert not (vault / OLD).exists()
    assert (vault / ".trash/Vitamin C and colds.md").read_bytes() == NOTES[OLD].encode()
    assert {k: v for k, v in files(vault).items() if not k.startswith(".trash")} == {
        k: v for k, v in NOTES.items() if k != OLD}


def test_a_note_of_a_private_folder_deleted_as_wrong_goes_to_the_trash_inside_it(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    # Before: to the vault's .trash/, out of the folder a user keeps out of sync and git.
    pair = the_pair(run_scan, queue)
    (vault / "ora.yaml").write_text("private: [Engrams/]\n", encoding="utf-8")
    done = resolve(config, queue, pair.id, "wrong", note=OLD, delete=True, private=True)
    assert done.pair.resolution["trash"] == "Engrams/.trash/Vitamin C and colds.md"
    assert (vault / "Engrams/.trash/Vitamin C and colds.md").read_bytes() == NOTES[OLD].encode()
    assert not (vault / ".trash").exists()


def test_dismissed_pair_is_not_queued_again(
    run_scan: Scan, queue: Queue, config: Config, vault: Path
) -> None:
    pair = the_pair(run_scan, queue)
    resolve(config, queue, pair.id, "dismiss")
    note = vault / NEW
    note.write_text(note.read_text() + "\nMore trials are under way.\n")
    report = run_scan()
    assert report.changed == 1 and report.found == 1  # found again, but the user said no
    assert queue.pairs("open", kind="engram") == []
    assert queue.get(pair.id).status == "dismissed"


@pytest.mark.parametrize("action", ["changed-mind", "wrong"])
def test_resolution_refuses_when_a_file_changed_since_judged(
    run_scan: Scan, queue: Queue, config: Config, vault: Path, action: str
) -> None:
    pair = the_pair(run_scan, queue)
    edited = NOTES[OLD] + "Edited in Obsidian meanwhile.\n"
    (vault / OLD).write_text(edited)
    with pytest.raises(Conflict, match="changed since"):
        resolve(config, queue, pair.id, action, newer=NEW, note=OLD)
    assert files(vault) == {**NOTES, OLD: edited}  # neither file was written
    assert queue.get(pair.id).status == "open"


def test_resolved_pair_cannot_be_resolved_twice(run_scan: Scan, queue: Queue,
                                                config: Config) -> None:
    pair = the_pair(run_scan, queue)
    resolve(config, queue, pair.id, "wrong", note=NEW)
    with pytest.raises(Conflict, match="already resolved"):
        resolve(config, queue, pair.id, "flag")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"action": "changed-mind"}, "--newer"),
    ({"action": "changed-mind", "newer": "Engrams/Spaced repetition.md"}, "not in pair"),
    ({"action": "wrong", "note": "../outside.md"}, "not a path inside"),
    ({"action": "archive"}, "choose from"),
])
def test_bad_resolution_arguments_are_refused(run_scan: Scan, queue: Queue, config: Config,
                                              kwargs: dict[str, str], message: str) -> None:
    pair = the_pair(run_scan, queue)
    action = kwargs.pop("action")
    with pytest.raises(BadRequest, match=message):
        resolve(config, queue, pair.id, action, **kwargs)  # type: ignore[arg-type]


def _edit_other(vault: Path) -> None:
    """The user fixes the other note so that it agrees now."""
    (vault / NEW).write_text(NOTES[NEW].replace("does not prevent", "prevents"))


def _delete_other(vault: Path) -> None:
    (vault / NEW).unlink()


def _rename_other(vault: Path) -> None:
    (vault / NEW).rename(vault / "Engrams/Vitamin C trials.md")


@pytest.mark.parametrize("change", [_edit_other, _delete_other, _rename_other])
@pytest.mark.parametrize("how", [{}, {"delete": True}, {"delete": True, "client_trash": True}])
def test_wrong_refuses_when_the_other_note_changed_since_judged(
    run_scan: Scan, queue: Queue, config: Config, vault: Path,
    change: Callable[[Path], None], how: dict[str, bool]
) -> None:
    # Before: only the note judged wrong was checked, so it was archived or trashed although
    # the claim it contradicted had been fixed, renamed or deleted meanwhile.
    pair = the_pair(run_scan, queue)
    change(vault)
    before = files(vault)
    with pytest.raises((Conflict, NotFound), match="scan again"):
        resolve(config, queue, pair.id, "wrong", note=OLD, **how)
    assert files(vault) == before and not (vault / ".trash").exists()
    assert queue.get(pair.id).status == "open"
    with pytest.raises(NotFound, match="nothing to undo"):
        undo_last(config, queue)  # a refused resolution leaves nothing to undo


@pytest.mark.parametrize("action", ["flag", "dismiss"])
def test_flag_and_dismiss_judge_the_pair_as_listed_though_a_note_changed(
    run_scan: Scan, queue: Queue, config: Config, vault: Path, action: str
) -> None:
    # They write no note: the user's verdict on the two claims shown is recorded as it is.
    pair = the_pair(run_scan, queue)
    _edit_other(vault)
    before = files(vault)
    done = resolve(config, queue, pair.id, action)
    assert done.changed == [] and files(vault) == before
