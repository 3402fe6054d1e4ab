"""`SettingsNow`: a request costs a stat of ora.yaml (and of the ingest manifest), not a read
of the file (`retrieval/private_now.py`)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from sidecar.documents.manifest import manifest_path
from sidecar.retrieval import private_now
from sidecar.vault.vault_settings import VaultSettings, load_vault_settings
from tests.settled_save import settle


class Clock:
    """`time` as private_now sees it, moved on by the test."""

    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now


def save_settings(vault: Path, patterns: list[str]) -> None:
    """ora.yaml with these `private` folders, saved by rename as an editor saves it."""
    temporary = vault / ".ora.yaml.tmp"
    temporary.write_text("private:\n" + "".join(f"  - {p}\n" for p in patterns),
                         encoding="utf-8")
    os.replace(temporary, vault / "ora.yaml")


def test_ora_yaml_is_read_again_only_when_it_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A request costs a stat of ora.yaml, not a read: the settings are read again when the
    file changed, and a missing file at most once a MISSING_RECHECK_S (what its settings are
    changes with time: `load_vault_settings`)."""
    reads: list[Path] = []

    def counted(vault: Path, data: Path | None = None) -> VaultSettings:
        reads.append(vault)
        return load_vault_settings(vault, data)

    clock = Clock(time.time() + private_now.RACY_S + 1)  # the files saved are not racy
    monkeypatch.setattr(private_now, "load_vault_settings", counted)
    monkeypatch.setattr(private_now, "time", clock)
    save_settings(tmp_path, ["Health/"])
    reader = private_now.SettingsNow(tmp_path, data=None)
    assert all(reader.private_paths()("health/Dose.md") for _ in range(3))
    assert len(reads) == 1
    save_settings(tmp_path, ["Heaven/"])  # the same size, saved by rename
    # it drops `Health/`: trusted only once settled (a save read halfway drops it too)
    settle(tmp_path / "ora.yaml")
    assert reader.private_paths()("Heaven/b0.md")
    assert not reader.private_paths()("Health/Dose.md")
    assert len(reads) == 2
    (tmp_path / "ora.yaml").unlink()
    reader.settings()
    reader.settings()
    assert len(reads) == 3
    clock.now += private_now.MISSING_RECHECK_S
    reader.settings()
    assert len(reads) == 4


def test_a_note_ingested_from_a_document_is_private_once_the_manifest_names_a_private_one(
    tmp_path: Path,
) -> None:
    page = "Resources/Report/Report - page 1.md"
    save_settings(tmp_path, ["Papers/"])
    reader = private_now.SettingsNow(tmp_path, data=None)
    assert reader.private_paths()("Papers/Report.pdf") and not reader.private_paths()(page)
    manifest = manifest_path(tmp_path)
    manifest.parent.mkdir()
    manifest.write_text(json.dumps({"documents": {"Papers/Report.pdf": {
        "sha256": "0" * 64, "notes": {page: "1" * 64}}}}), encoding="utf-8")
    assert reader.private_paths()(page)


def test_a_vault_without_ora_yaml_reads_it_once_until_it_appears(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The most common vault: nothing to read again with time (no grace running), so neither
    the settings nor the answers worked out from them are made again."""
    reads: list[Path] = []

    def counted(vault: Path, data: Path | None) -> VaultSettings:
        reads.append(vault)
        return load_vault_settings(vault, data)

    clock = Clock(time.time())
    monkeypatch.setattr(private_now, "load_vault_settings", counted)
    monkeypatch.setattr(private_now, "time", clock)
    reader = private_now.SettingsNow(tmp_path, tmp_path / "data")
    first = reader.private_paths()
    for _ in range(3):
        clock.now += private_now.MISSING_RECHECK_S * 10
        assert reader.private_paths() is first
    assert len(reads) == 1
    save_settings(tmp_path, ["Health/"])
    assert reader.private_paths()("Health/Dose.md")


def test_settings_read_again_unchanged_keep_the_answers_worked_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock(time.time() + private_now.RACY_S + 1)
    monkeypatch.setattr(private_now, "time", clock)
    save_settings(tmp_path, ["Health/"])
    reader = private_now.SettingsNow(tmp_path, data=None)
    reader.private_paths()
    (tmp_path / "ora.yaml").unlink()  # a sync tool saving it: its settings are kept meanwhile
    kept = reader.private_paths()
    assert kept("Health/Dose.md")
    clock.now += private_now.MISSING_RECHECK_S
    assert reader.private_paths() is kept  # read again (a grace runs), the same settings


def test_a_same_size_edit_just_after_a_read_is_seen_on_coarse_file_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As on FAT (2 s times, no change time of its own): an edit in place within the same tick
    leaves size, times and inode as they were; a read that close to the file's time is not
    trusted (git's racy-clean rule)."""
    real = private_now.file_stamp

    def coarse(path: Path) -> tuple[int, int, int, int] | None:
        found = real(path)
        if found is None:
            return None
        tick = found[1] // 2_000_000_000 * 2_000_000_000
        return found[0], tick, tick, found[3]

    monkeypatch.setattr(private_now, "file_stamp", coarse)
    file, stamp = tmp_path / "ora.yaml", 1_700_000_000
    file.write_text("private: [Aa]\n", encoding="utf-8")
    os.utime(file, (stamp, stamp))
    monkeypatch.setattr(private_now, "time", Clock(stamp + 0.5))
    reader = private_now.SettingsNow(tmp_path, data=None)
    assert reader.private_paths()("Aa/x.md")
    with open(file, "r+", encoding="utf-8") as edit:  # in place, the same size
        edit.write("private: [Bb]\n")
    os.utime(file, (stamp, stamp))
    assert reader.private_paths()("Bb/x.md")


def test_ora_yaml_dated_ahead_of_the_clock_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: a time in the future (another machine's clock, synced) counted as just changed,
    # and every request read and parsed the file again.
    reads: list[Path] = []

    def counted(vault: Path, data: Path | None = None) -> VaultSettings:
        reads.append(vault)
        return load_vault_settings(vault, data)

    clock = Clock(time.time())
    monkeypatch.setattr(private_now, "load_vault_settings", counted)
    monkeypatch.setattr(private_now, "time", clock)
    save_settings(tmp_path, ["Health/"])
    ahead = clock.now + 3600
    os.utime(tmp_path / "ora.yaml", (ahead, ahead))
    now = private_now.SettingsNow(tmp_path, None)
    for _ in range(3):
        assert now.settings().private == ("Health/",)
        clock.now += 1
    assert len(reads) == 1
