"""A missing ora.yaml that had settings keeps them until it has been deleted on purpose: a sync
tool or editor that saves by delete-and-create (Syncthing, git) made every private folder public
for as long as the file was gone. Deleted on purpose: reads `MISSING_GRACE_S` apart found it
missing, none in between found it there (docs/vault-settings.md, "A missing file")."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from sidecar.errors import Conflict
from sidecar.vault import settings_memory, vault_settings
from sidecar.vault.settings_edit import add_lint_ignore, set_excluded
from sidecar.vault.vault_settings import (
    is_private_path,
    known_privacy,
    load_vault_settings,
    missing_settings_recheck,
)

GOOD = "private:\n  - Health/\nexclude: [Archive/]\n"
GRACE = vault_settings.MISSING_GRACE_S


class _Clock:
    """`time` as vault_settings sees it, moved on by the test."""

    def __init__(self) -> None:
        self.now = time.time()

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> _Clock:
    fake = _Clock()
    monkeypatch.setattr(vault_settings, "time", fake)
    return fake


def _fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """As another process: nothing remembered in memory."""
    monkeypatch.setattr(settings_memory, "_memory", {})
    monkeypatch.setattr(settings_memory, "_missing", {})
    monkeypatch.setattr(settings_memory, "_folders", {})


def _vault(tmp_path: Path, text: str = GOOD) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "ora.yaml").write_text(text, encoding="utf-8")
    return vault


def _assert_kept(vault: Path, data: Path | None = None) -> None:
    settings = known_privacy(load_vault_settings(vault, data))  # not unsafe: nothing refused
    assert settings.private == ("Health/",) and settings.exclude == ("Archive/",)
    assert is_private_path(settings, "Health/scan.md")
    assert "the file is missing" in settings.problems[0]
    assert "its settings are those it last had" in settings.problems[-1]
    assert settings.file_exists is False



def _read_then_deleted(tmp_path: Path) -> tuple[Path, Path]:
    """The vault and its data folder, ora.yaml read once with it (its text kept), then deleted."""
    vault, data = _vault(tmp_path), tmp_path / "data"
    data.mkdir()
    load_vault_settings(vault, data)
    (vault / "ora.yaml").unlink()
    return vault, data

def test_a_missing_file_keeps_its_last_settings_until_deleted_on_purpose(
    tmp_path: Path, clock: _Clock,
) -> None:
    # Before: the first read without the file gave the defaults, and Health/ was public.
    vault = _vault(tmp_path)
    assert load_vault_settings(vault, data=None).private == ("Health/",)
    (vault / "ora.yaml").unlink()
    for _ in range(3):  # however often it is read meanwhile
        _assert_kept(vault)
        clock.now += GRACE / 3 - 1
    clock.now += 3  # reads GRACE apart have found it missing: deleted on purpose
    deleted = load_vault_settings(vault, data=None)
    assert deleted.private == () and deleted.exclude == () and deleted.problems == ()
    clock.now += 1
    assert load_vault_settings(vault, None).problems == ()  # the defaults are now its last settings
    (vault / "ora.yaml").write_text("exclude: [Drafts/]\n", encoding="utf-8")
    assert load_vault_settings(vault, data=None).exclude == ("Drafts/",)


def test_a_file_deleted_and_written_again_never_lets_the_defaults_apply(
    tmp_path: Path, clock: _Clock,
) -> None:
    vault = _vault(tmp_path)
    assert load_vault_settings(vault, data=None).private == ("Health/",)
    for _ in range(3):  # a sync tool saving it again and again, reads far apart
        (vault / "ora.yaml").unlink()
        _assert_kept(vault)
        (vault / "ora.yaml").write_text(GOOD, encoding="utf-8")
        clock.now += GRACE * 2
        back = load_vault_settings(vault, data=None)
        assert back.private == ("Health/",) and back.problems == ()
        assert missing_settings_recheck(vault, data=None) is None
    (vault / "ora.yaml").unlink()
    _assert_kept(vault)  # missing again: the time starts again, not from the first absence


def test_processes_sharing_the_data_folder_count_the_absence_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: _Clock,
) -> None:
    vault, data = _vault(tmp_path), tmp_path / "data"
    data.mkdir()
    assert load_vault_settings(vault, data).private == ("Health/",)
    (vault / "ora.yaml").unlink()
    _fresh_process(monkeypatch)  # `ora index` right after the deletion
    _assert_kept(vault, data)
    _fresh_process(monkeypatch)  # and again, within the grace
    clock.now += GRACE - 1
    _assert_kept(vault, data)
    _fresh_process(monkeypatch)  # a run after it: deleted on purpose
    clock.now += 1
    assert load_vault_settings(vault, data).private == ()
    _fresh_process(monkeypatch)
    clock.now += 1
    after = load_vault_settings(vault, data)
    assert after.private == () and after.problems == ()


def test_a_vault_whose_file_never_had_settings_has_the_defaults_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    _fresh_process(monkeypatch)
    vault = tmp_path / "vault"
    vault.mkdir()
    settings = load_vault_settings(vault, tmp_path / "data")
    assert settings.private == () and settings.problems == () and not settings.unsafe
    assert missing_settings_recheck(vault, tmp_path / "data") is None


def test_a_missing_file_whose_last_text_cannot_be_read_is_unsafe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A last text kept by an Ora that let a key be given twice: which folders are private is
    # unknown, so everything is, never the defaults.
    vault, data = _vault(tmp_path), tmp_path / "data"
    data.mkdir()
    (data / "ora.yaml.last-good").write_text(GOOD + "private: [Other/]\n", encoding="utf-8")
    (vault / "ora.yaml").unlink()
    _fresh_process(monkeypatch)
    settings = load_vault_settings(vault, data)
    assert settings.unsafe and is_private_path(settings, "Notes/any.md")


def test_a_server_is_told_when_to_read_a_missing_file_again(
    tmp_path: Path, clock: _Clock,
) -> None:
    vault = _vault(tmp_path)
    load_vault_settings(vault, data=None)
    assert missing_settings_recheck(vault, data=None) is None  # the file is there
    (vault / "ora.yaml").unlink()
    assert missing_settings_recheck(vault, data=None) is None  # no read has found it missing yet
    load_vault_settings(vault, data=None)
    clock.now += 10
    assert missing_settings_recheck(vault, data=None) == pytest.approx(GRACE - 10)
    clock.now += GRACE
    assert missing_settings_recheck(vault, data=None) == 0.0
    load_vault_settings(vault, data=None)  # deleted on purpose: nothing left to wait for
    assert missing_settings_recheck(vault, data=None) is None


def test_the_editor_will_not_create_the_file_while_it_is_missing_with_settings(
    tmp_path: Path, clock: _Clock,
) -> None:
    # A file of the one `exclude` entry, written while a sync tool saved ora.yaml, would have
    # made every other setting the defaults: Health/ public.
    vault = _vault(tmp_path)
    load_vault_settings(vault, data=None)
    (vault / "ora.yaml").unlink()
    load_vault_settings(vault, data=None)
    with pytest.raises(Conflict, match="missing where it had settings"):
        set_excluded(vault, "Drafts/", True, data_folder=None)
    assert not (vault / "ora.yaml").exists()
    clock.now += GRACE
    assert set_excluded(vault, "Drafts/", True, data_folder=None).exclude == ("Drafts/",)
    assert (vault / "ora.yaml").read_text(encoding="utf-8") == "exclude:\n  - Drafts/\n"


def test_the_editor_of_a_process_just_started_keeps_a_missing_file_the_data_folder_recalls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: _Clock,
) -> None:
    # Before: the editor read without the data folder, found no last text, and wrote a file of
    # `lint.ignore` alone over the missing one: Health/ public, and the user's settings lost.
    vault, data = _read_then_deleted(tmp_path)  # a previous run kept the text
    _fresh_process(monkeypatch)  # a server starting while a sync tool saves the file
    _assert_kept(vault, data)
    with pytest.raises(Conflict, match="missing where it had settings"):
        add_lint_ignore(vault, "Drafts/", data)
    assert not (vault / "ora.yaml").exists()
    _assert_kept(vault, data)


def test_a_read_without_the_data_folder_keeps_what_a_read_with_it_recalled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: _Clock,
) -> None:
    vault, data = _read_then_deleted(tmp_path)
    _fresh_process(monkeypatch)
    _assert_kept(vault, data)  # the index, as the server starts
    _assert_kept(vault)  # a caller of the same process that has no data folder


def test_a_read_without_the_data_folder_that_finds_the_file_clears_the_kept_missing_time(
    tmp_path: Path, clock: _Clock,
) -> None:
    vault, data = _read_then_deleted(tmp_path)
    _assert_kept(vault, data)
    assert (data / "ora.yaml.missing-since").exists()
    (vault / "ora.yaml").write_text(GOOD, encoding="utf-8")
    assert load_vault_settings(vault, data=None).problems == ()
    assert not (data / "ora.yaml.missing-since").exists()


def test_an_absence_kept_from_long_ago_is_not_counted_with_this_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: _Clock,
) -> None:
    # Two runs a day apart, each catching a sync tool's brief delete, are not "missing 30 s".
    vault, data = _read_then_deleted(tmp_path)
    _assert_kept(vault, data)
    clock.now += 24 * 3600
    _fresh_process(monkeypatch)  # the file is missing again, caught by the next day's run
    _assert_kept(vault, data)
    assert missing_settings_recheck(vault, data) == pytest.approx(GRACE)


def _as_process(monkeypatch: pytest.MonkeyPatch, state: dict[str, object]) -> None:
    """Run as the process whose memory is `state` (empty: one just started), until the next."""
    for name in ("_memory", "_missing", "_folders"):
        monkeypatch.setattr(settings_memory, name, state.setdefault(name, {}))


def test_two_brief_absences_another_process_saw_between_are_not_one_deletion(
    tmp_path: Path, clock: _Clock, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: A's memory kept the first absence's time after B, finding the file there, cleared
    # the data folder's record; A's next brief absence then counted as deleted on purpose.
    vault, data = _vault(tmp_path), tmp_path / "data"
    data.mkdir()
    a: dict[str, object] = {}
    b: dict[str, object] = {}
    _as_process(monkeypatch, a)
    assert load_vault_settings(vault, data).private == ("Health/",)
    (vault / "ora.yaml").unlink()  # a sync tool's save, seen by A
    _assert_kept(vault, data)
    (vault / "ora.yaml").write_text(GOOD, encoding="utf-8")
    _as_process(monkeypatch, b)  # another process finds it there
    assert load_vault_settings(vault, data).private == ("Health/",)
    _as_process(monkeypatch, a)
    clock.now += GRACE + 1
    (vault / "ora.yaml").unlink()  # the next save, seen by A only
    _assert_kept(vault, data)
    assert (data / "ora.yaml.last-good").read_text(encoding="utf-8") == GOOD
