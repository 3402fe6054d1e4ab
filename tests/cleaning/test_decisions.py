"""Triage decisions are recorded in a readable `type: supervision` note and outlive `.ora/`."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from sidecar.cleaning.decisions import decision_notes
from sidecar.cleaning.resolve import resolve
from sidecar.cleaning.rules import RulesJudge
from sidecar.cleaning.scan import scan
from sidecar.cleaning.store import Queue
from sidecar.cleaning.undo import undo_last
from sidecar.models.embedder import Embedder
from sidecar.settings import Config
from sidecar.vault.note import parse_note

OLD, NEW = "Engrams/Vitamin C and colds.md", "Engrams/Vitamin C revisited.md"


def _scan(config: Config, queue: Queue, embedder: Embedder) -> None:
    asyncio.run(scan(config, queue, embedder, RulesJudge()))


def test_dismissed_pairs_stay_dismissed_after_the_data_folder_is_deleted_and_rescanned(
    config: Config, vault: Path, embedder: Embedder,
) -> None:
    queue = Queue(config.data, config.vault)
    _scan(config, queue, embedder)
    (pair,) = queue.pairs("open", kind="engram")
    resolve(config, queue, pair.id, "dismiss")
    queue.close()

    rel = decision_notes()[0]
    note = parse_note((vault / rel).read_text(encoding="utf-8"), rel)
    assert note.type == "supervision" and not note.is_private
    (line,) = [x for x in note.body.splitlines() if x.startswith("- ")]
    a, b = pair.a, pair.b
    assert line.endswith(
        f" UTC · dismissed · [[{a.path.removesuffix('.md')}]] lines {a.line_start}-{a.line_end}"
        f" ↔ [[{b.path.removesuffix('.md')}]] lines {b.line_start}-{b.line_end} · id {pair.id}")
    assert {a.path, b.path} == {OLD, NEW}

    shutil.rmtree(config.data)
    queue = Queue(config.data, config.vault)
    try:
        _scan(config, queue, embedder)
        assert queue.pairs("open", kind="engram") == []
        assert queue.get(pair.id).status == "dismissed"
    finally:
        queue.close()


def test_each_decision_is_one_line_and_the_last_one_counts(
    config: Config, vault: Path, embedder: Embedder,
) -> None:
    queue = Queue(config.data, config.vault)
    try:
        _scan(config, queue, embedder)
        (pair,) = queue.pairs("open", kind="engram")
        queue.set_status(pair.id, "flagged", None)
        queue.set_status(pair.id, "open", None)  # undone
        text = (vault / decision_notes()[0]).read_text(encoding="utf-8")
        lines = [x for x in text.splitlines() if x.startswith("- ")]
        assert [x.split(" · ")[1] for x in lines] == ["flagged", "open"]
        assert text.endswith(lines[-1] + "\n") and "\n\n- " not in text.split("\n- ", 1)[1]
        assert queue.decisions is not None and queue.decisions.statuses() == {pair.id: "open"}
    finally:
        queue.close()


def test_a_pair_with_a_private_note_is_recorded_in_the_private_decisions_note(
    config: Config, vault: Path, embedder: Embedder,
) -> None:
    path = vault / OLD
    path.write_text(path.read_text().replace("  - health\n", "  - health\n  - private\n"))
    queue = Queue(config.data, config.vault)
    try:
        _scan(config, queue, embedder)
        (pair,) = queue.pairs("open", kind="engram", private=True)
        resolve(config, queue, pair.id, "dismiss", private=True)
        public, private = decision_notes()
        assert not (vault / public).exists()
        note = parse_note((vault / private).read_text(encoding="utf-8"), private)
        assert note.is_private and note.type == "supervision" and pair.id in note.body
    finally:
        queue.close()


def test_an_undone_decision_is_recorded_and_the_pair_comes_back_open(
    config: Config, vault: Path, embedder: Embedder,
) -> None:
    queue = Queue(config.data, config.vault)
    try:
        _scan(config, queue, embedder)
        (pair,) = queue.pairs("open", kind="engram")
        resolve(config, queue, pair.id, "dismiss")
        undo_last(config, queue)
        assert queue.decisions is not None and queue.decisions.statuses() == {pair.id: "open"}
    finally:
        queue.close()
    shutil.rmtree(config.data)
    queue = Queue(config.data, config.vault)
    try:
        _scan(config, queue, embedder)
        assert [p.id for p in queue.pairs("open", kind="engram")] == [pair.id]
    finally:
        queue.close()


def test_a_linked_supervision_folder_is_skipped_and_the_scan_says_so(
    config: Config, vault: Path, embedder: Embedder, tmp_path: Path
) -> None:
    """`Supervision/` a symbolic link: reading the decisions through it was refused, and the
    whole scan answered 400. Now the scan runs, and its report says why no decision is read."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    folder = Path(decision_notes()[0]).parent
    (vault / folder).symlink_to(elsewhere)
    queue = Queue(config.data, config.vault)
    try:
        report = asyncio.run(scan(config, queue, embedder, RulesJudge()))
        assert report.found >= 1 and queue.pairs("open", kind="engram")
        (warning,) = {w for w in report.warnings}
        assert f"{folder} is a symbolic link" in warning
    finally:
        queue.close()
    assert list(elsewhere.iterdir()) == []
