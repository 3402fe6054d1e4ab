"""Only regular files are ever opened: a FIFO named like a note (`pipe.md`) or like a settings
file is skipped, never read. Opening a FIFO waits for a writer forever: `ora lint`, `ora adopt`,
`ora contradictions --scan` and `ora index` hung on one, and `ora serve` never started
(tests/server/test_special_files.py). Each command runs as a process with a time limit, so a
hang fails the test instead of the suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sidecar.errors import InvalidSettings
from sidecar.vault.scan import NotRegularFile, iter_note_paths, read_regular
from sidecar.vault.settings_edit import add_lint_ignore
from sidecar.vault.vault_settings import load_vault_settings
from tests.notes import write_notes

ORA = str(Path(sys.executable).with_name("ora"))
NOTES = {
    "Engrams/Tea.md": "---\ntype: engram\nnexus: []\ntags: [health]\n---\n# Tea\n\n"
                      "Green tea has less caffeine than coffee.\n",
    "Inbox/Plain.md": "A plain note about rivers and deltas.\n",
}


def vault_with_fifos(root: Path) -> Path:
    """A small vault holding FIFOs where a note and Obsidian's settings would be."""
    write_notes(root, NOTES)
    os.mkfifo(root / "pipe.md")
    os.mkfifo(root / "Inbox" / "pipe.md")
    (root / ".obsidian").mkdir()
    os.mkfifo(root / ".obsidian" / "app.json")
    return root


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return vault_with_fifos(tmp_path / "vault")


def _ora(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ORA, *args], capture_output=True, text=True, timeout=300)


def test_a_fifo_is_no_note(vault: Path) -> None:
    assert list(iter_note_paths(vault)) == sorted(NOTES)


def test_reading_a_fifo_refuses_at_once(vault: Path) -> None:
    started = time.monotonic()
    with pytest.raises(NotRegularFile):
        read_regular(vault / "pipe.md")
    assert time.monotonic() - started < 5


def test_ora_lint_skips_a_fifo(vault: Path) -> None:
    done = _ora("lint", str(vault), "--json")
    assert "pipe.md" not in done.stdout, done.stdout
    assert "Traceback" not in done.stderr


def test_ora_adopt_skips_a_fifo(vault: Path) -> None:
    done = _ora("adopt", str(vault), "--json")
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    assert [p["path"] for p in plan["proposals"]] == ["Inbox/Plain.md"]


def test_ora_index_and_the_contradiction_scan_skip_a_fifo(vault: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    done = _ora("index", str(vault), "--data", str(data))
    assert done.returncode == 0, done.stderr
    done = _ora("contradictions", str(vault), "--data", str(data), "--scan", "--judge", "rules",
                "--json")
    assert done.returncode == 0, done.stderr
    assert "pipe.md" not in done.stdout


def test_a_fifo_for_ora_yaml_is_reported_and_never_written(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    os.mkfifo(vault / "ora.yaml")
    settings = load_vault_settings(vault, data=None)
    assert any("not a regular file" in p for p in settings.problems)
    with pytest.raises(InvalidSettings, match="not a regular file"):
        add_lint_ignore(vault, "Daily/", data_folder=None)
