"""A resolution is all or nothing: when one of its two notes cannot be edited, neither is."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sidecar.cleaning.resolve import resolve
from sidecar.cleaning.scan import ScanReport
from sidecar.cleaning.store import Queue
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
