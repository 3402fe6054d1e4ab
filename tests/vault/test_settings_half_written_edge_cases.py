"""Edge cases of an ora.yaml read halfway through its save (docs/vault-settings.md, "A file read
while it is being saved"): a read without the data folder, the editor's own check, and `exclude`
while a text waits to settle.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from sidecar.vault import settings_memory, vault_settings
from sidecar.vault.settings_edit import set_excluded
from sidecar.vault.vault_settings import (
    SETTLE_S,
    is_excluded,
    is_private_path,
    load_vault_settings,
)

FULL = "private:\n  - Health/\n  - Journal/\nexclude:\n  - /Scratch/\n"


class Clock:
    """`time` as vault_settings sees it, moved on by the test (no sleeping)."""

    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now


def _vault(tmp_path: Path) -> tuple[Path, Path]:
    vault, data = tmp_path / "vault", tmp_path / "data"
    vault.mkdir()
    data.mkdir()
    return vault, data


def _write(vault: Path, text: str, when: float) -> None:
    """ora.yaml as `text`, last changed at `when` (seconds since the epoch)."""
    (vault / "ora.yaml").write_text(text, encoding="utf-8")
    os.utime(vault / "ora.yaml", (when, when))


def _new_process() -> None:
    """Forget what this process kept, as a process that has just started knows nothing."""
    settings_memory._memory.clear()
    settings_memory._unsettled.clear()
    settings_memory._missing.clear()
    settings_memory._folders.clear()


def test_a_read_without_the_data_folder_does_not_hide_its_last_good_text(
        tmp_path: Path) -> None:
    vault, data = _vault(tmp_path)
    _write(vault, FULL, time.time() - 60)
    load_vault_settings(vault, data)
    _new_process()
    _write(vault, "private:\n  - Journal/\n", time.time())  # a save read halfway
    load_vault_settings(vault, None)  # the trash's lookup: nothing to compare it with
    settings = load_vault_settings(vault, data)
    assert is_private_path(settings, "Health/Diary.md")
    assert (data / "ora.yaml.last-good").read_text(encoding="utf-8") == FULL


def _read_on_a_clock(tmp_path: Path,
                     monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Clock]:
    """A vault whose full settings, a minute old, were read once, its reader on a clock the
    test moves."""
    vault, data = _vault(tmp_path)
    clock = Clock(time.time())
    monkeypatch.setattr(vault_settings, "time", clock)
    _write(vault, FULL, clock.now - 60)
    load_vault_settings(vault, data)
    return vault, data, clock


def test_the_editor_takes_an_explicit_empty_file_as_the_reader_does(tmp_path: Path) -> None:
    vault, data = _vault(tmp_path)
    _write(vault, FULL, time.time() - 60)
    load_vault_settings(vault, data)
    _write(vault, "{}\n", time.time())  # the defaults, in so many words: no half save
    assert is_excluded(set_excluded(vault, "Tmp/", True, data), "Tmp/a.md")


def test_the_editor_counts_a_future_time_settled_from_its_first_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault, data, clock = _read_on_a_clock(tmp_path, monkeypatch)
    # Health/ removed on purpose, saved from a machine whose clock is an hour ahead
    _write(vault, FULL.replace("  - Health/\n", ""), clock.now + 3600)
    assert is_private_path(load_vault_settings(vault, data), "Health/x.md")  # first read
    clock.now += SETTLE_S + 1
    settings = set_excluded(vault, "Tmp/", True, data)
    assert is_excluded(settings, "Tmp/a.md")
    assert not is_private_path(settings, "Health/x.md")


def test_an_unsettled_exclude_cut_to_the_root_excludes_no_more_than_before(
        tmp_path: Path) -> None:
    vault, data = _vault(tmp_path)
    _write(vault, FULL, time.time() - 60)
    load_vault_settings(vault, data)
    _write(vault, FULL.removesuffix("Scratch/\n"), time.time())  # "exclude:\n  - /", half saved
    settings = load_vault_settings(vault, data)
    assert not is_excluded(settings, "Notes/a.md")
    assert is_excluded(settings, "Scratch/a.md")
    assert is_private_path(settings, "Health/a.md")


def test_a_half_save_dated_before_the_last_good_text_is_not_trusted_until_settled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault, data, clock = _read_on_a_clock(tmp_path, monkeypatch)
    # saved in place from a NAS whose clock is 10 s behind, read halfway
    _write(vault, "private:\n  - Journal/\n", clock.now - 10)
    assert is_private_path(load_vault_settings(vault, data), "Health/x.md")
    _new_process()  # the next process goes by the data folder's record
    assert is_private_path(load_vault_settings(vault, data), "Health/x.md")
    assert (data / "ora.yaml.last-good").read_text(encoding="utf-8") == FULL
    clock.now += SETTLE_S + 1  # left alone as it is: a removal on purpose takes effect
    assert not is_private_path(load_vault_settings(vault, data), "Health/x.md")
