"""A triaged pair found again after an edit elsewhere in one of its notes (a line added above
its claim) takes the claim's new lines and the file's new hash, its status kept: a flagged pair
can then be resolved, and its citation points at the claim."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.cleaning.resolve import resolve
from sidecar.cleaning.store import Pair, Queue
from sidecar.cleaning.undo import undo_last
from sidecar.models.embedder import Embedder
from sidecar.settings import Config
from sidecar.vault.write import content_hash

from .conftest import scan_with_rules

NEW = "Engrams/Vitamin C revisited.md"
CLAIM = "Large trials show that taking vitamin C every day does not prevent the common cold."


def _triaged(config: Config, queue: Queue, embedder: Embedder, action: str) -> Pair:
    """The one engram pair a first scan finds, triaged with `action`."""
    scan_with_rules(config, queue, embedder)
    (pair,) = queue.pairs("open", kind="engram", private=True)
    resolve(config, queue, pair.id, action)
    return pair


def _preface(vault: Path) -> int:
    """Add two lines above the claim (its words unchanged); the claim's line number now."""
    note = vault / NEW
    text = note.read_text(encoding="utf-8")
    note.write_text(text.replace(CLAIM, f"A preface.\n\n{CLAIM}"), encoding="utf-8")
    return note.read_text(encoding="utf-8").splitlines().index(CLAIM) + 1


def _side(pair: Pair, path: str) -> tuple[int, int, str]:
    (side,) = [s for s in (pair.a, pair.b) if s.path == path]
    return side.line_start, side.line_end, side.hash


@pytest.mark.parametrize("action,status", [("flag", "flagged"), ("dismiss", "dismissed")])
def test_a_triaged_pair_takes_its_claims_new_lines_and_hash_and_keeps_its_status(
    config: Config, vault_queue: Queue, embedder: Embedder, action: str, status: str,
) -> None:
    pair = _triaged(config, vault_queue, embedder, action)
    line = _preface(config.vault)
    scan_with_rules(config, vault_queue, embedder)
    (kept,) = vault_queue.pairs(kind="engram", private=True)
    assert (kept.id, kept.status) == (pair.id, status)  # not reopened, not a pair of its own
    assert (kept.evidence, kept.score) == (pair.evidence, pair.score)  # not judged again
    assert _side(kept, NEW) == (line, line, content_hash((config.vault / NEW).read_bytes()))


def test_a_flagged_pair_edited_above_its_claim_can_be_resolved_after_a_scan(
    config: Config, vault_queue: Queue, embedder: Embedder,
) -> None:
    pair = _triaged(config, vault_queue, embedder, "flag")
    _preface(config.vault)
    scan_with_rules(config, vault_queue, embedder)
    done = resolve(config, vault_queue, pair.id, "changed-mind", newer=NEW)
    assert done.pair.status == "resolved"
    assert "supersedes" in (config.vault / NEW).read_text(encoding="utf-8")


def test_undoing_a_flag_after_the_edit_reopens_the_pair_on_the_file_as_it_is_now(
    config: Config, vault_queue: Queue, embedder: Embedder,
) -> None:
    pair = _triaged(config, vault_queue, embedder, "flag")
    line = _preface(config.vault)
    scan_with_rules(config, vault_queue, embedder)
    undo_last(config, vault_queue)
    reopened = vault_queue.get(pair.id, private=True)
    assert reopened.status == "open"
    assert _side(reopened, NEW) == (line, line, content_hash((config.vault / NEW).read_bytes()))
    resolve(config, vault_queue, pair.id, "wrong", note=NEW)  # not refused as changed
