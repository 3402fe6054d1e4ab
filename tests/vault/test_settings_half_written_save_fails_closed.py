"""An ora.yaml read halfway through an editor's in-place save never makes a private folder public.

Every prefix of a real file is valid YAML or not; a prefix of comments, or one ending before the
`private:` or `exclude:` entries, reads as settings that drop them. Such a text is not trusted (nor
kept as the last good one) until the file has settled (`SETTLE_S` unchanged), by the reader, by
the query-time check (`private_now.py`) and by the editor; a user's deliberate removal of a
private folder still takes effect once it has.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.errors import Conflict
from sidecar.retrieval.private_now import SettingsNow
from sidecar.vault import settings_memory
from sidecar.vault.settings_edit import set_excluded
from sidecar.vault.vault_settings import (
    is_excluded,
    is_private_path,
    load_vault_settings,
    missing_settings_recheck,
    read_settings_text,
)
from tests.settled_save import settle

# A realistic file: comments above, between and after, folder rules, two private folders.
FULL = ("# Ora settings for my vault\n# (kept in git)\nfolders:\n  Zettel/: engram   # z\n"
        "private:\n  - Health/   # health stuff\n  - Journal/\n# between\nexclude:\n"
        "  - Scratch/\nlint:\n  ignore:\n    - Daily/\n# tail comment\n")
# The same file with a private folder and the excluded one removed on purpose.
REMOVED = FULL.replace("  - Health/   # health stuff\n", "").replace(
    "exclude:\n  - Scratch/\n", "exclude: []\n")
PRIVATE = ("Health/Diary.md", "Journal/2024.md")


def _vault(tmp_path: Path) -> tuple[Path, Path]:
    vault, data = tmp_path / "vault", tmp_path / "data"
    vault.mkdir()
    data.mkdir()
    return vault, data


def _write(vault: Path, text: str) -> None:
    (vault / "ora.yaml").write_text(text, encoding="utf-8")


def _settle(vault: Path) -> None:
    """As if the file had been left alone SETTLE_S and more since its save (no sleep: the test
    has no timing)."""
    settle(vault / "ora.yaml")


def _closed(vault: Path, data: Path, reader: SettingsNow) -> list[str]:
    """What a read of the file as it is now makes public that must stay private or excluded:
    by the reader, and by the query-time check (`reader`, a server's, kept across requests)."""
    settings = load_vault_settings(vault, data)
    now = reader.private_paths()
    leaks = [p for p in PRIVATE if not is_private_path(settings, p) or not now(p)]
    if not is_excluded(settings, "Scratch/a.md"):
        leaks.append("Scratch/a.md")
    return leaks


def test_no_prefix_of_a_save_makes_a_private_folder_public(tmp_path: Path) -> None:
    vault, data = _vault(tmp_path)
    _write(vault, FULL)
    reader = SettingsNow(vault, data)
    assert _closed(vault, data, reader) == []  # a good load first: its text is the last good one
    leaking = {}
    for end in range(len(FULL)):
        _write(vault, FULL[:end])  # an editor's save read after `end` characters
        leaks = _closed(vault, data, reader)
        if leaks:
            leaking[end] = leaks
        # what is kept as the last good text still makes them private
        kept = settings_memory.recall(vault / "ora.yaml", data)
        assert kept is not None
        if kept != FULL:  # a prefix all their entries are in may be, but no other
            assert all(is_private_path(read_settings_text(vault, kept)[1], p) for p in PRIVATE)
        _write(vault, FULL)  # the save completes
        assert _closed(vault, data, reader) == []
    assert leaking == {}


def test_a_prefix_is_not_kept_as_the_last_good_text(tmp_path: Path) -> None:
    vault, data = _vault(tmp_path)
    _write(vault, FULL)
    load_vault_settings(vault, data)
    _write(vault, FULL[:FULL.index("private:")])  # comments and folders only
    read = load_vault_settings(vault, data)
    assert read.private == ("Health/", "Journal/")
    assert any("drops private: Health/" in p for p in read.problems)
    assert (data / "ora.yaml.last-good").read_text(encoding="utf-8") == FULL
    # a running server reads it again when it would settle, with no other event
    assert missing_settings_recheck(vault, data) is not None


def test_a_deliberate_removal_takes_effect_once_the_file_has_settled(tmp_path: Path) -> None:
    vault, data = _vault(tmp_path)
    _write(vault, FULL)
    load_vault_settings(vault, data)
    reader = SettingsNow(vault, data)  # a server's query-time check, kept across requests
    assert reader.private_paths()("Health/Diary.md")
    _write(vault, REMOVED)  # the user removes Health/ and Scratch/ and saves
    just_saved = load_vault_settings(vault, data)
    assert is_private_path(just_saved, "Health/Diary.md")
    assert is_excluded(just_saved, "Scratch/a.md")
    assert reader.private_paths()("Health/Diary.md")
    _settle(vault)
    settled = load_vault_settings(vault, data)
    assert settled.private == ("Journal/",) and settled.exclude == ()
    assert not is_private_path(settled, "Health/Diary.md")
    assert not reader.private_paths()("Health/Diary.md")
    assert (data / "ora.yaml.last-good").read_text(encoding="utf-8") == REMOVED
    assert missing_settings_recheck(vault, data) is None  # nothing waited on any more
    # another process (a CLI run) after the settle trusts it at its first read
    settings_memory._memory.clear()
    assert load_vault_settings(vault, data).private == ("Journal/",)


def test_adding_a_private_folder_takes_effect_at_once(tmp_path: Path) -> None:
    vault, data = _vault(tmp_path)
    _write(vault, REMOVED)
    load_vault_settings(vault, data)
    _write(vault, FULL)  # drops nothing: more private is never held back
    assert load_vault_settings(vault, data).private == ("Health/", "Journal/")
    assert missing_settings_recheck(vault, data) is None


def test_the_editor_does_not_build_on_a_half_written_file(tmp_path: Path) -> None:
    vault, data = _vault(tmp_path)
    _write(vault, FULL)
    load_vault_settings(vault, data)
    half = FULL[:FULL.index("private:")]
    _write(vault, half)
    with pytest.raises(Conflict, match="being saved"):
        set_excluded(vault, "Other/", True, data)
    assert (vault / "ora.yaml").read_text(encoding="utf-8") == half  # nothing written


def test_an_entry_the_editor_removes_takes_effect_at_once(tmp_path: Path) -> None:
    vault, data = _vault(tmp_path)
    _write(vault, FULL)
    load_vault_settings(vault, data)
    _settle(vault)
    after = set_excluded(vault, "Scratch/", False, data)  # the plugin's remove button
    assert after.exclude == ()
    assert load_vault_settings(vault, data).exclude == ()


def test_braces_say_the_defaults_at_once(tmp_path: Path) -> None:
    vault, data = _vault(tmp_path)
    _write(vault, FULL)
    load_vault_settings(vault, data)
    _write(vault, "# back to the defaults\n{}\n")  # no save read halfway reads as `{}`
    assert load_vault_settings(vault, data).private == ()


def test_a_folder_made_private_in_the_same_save_is_private_at_once(tmp_path: Path) -> None:
    vault, data = _vault(tmp_path)
    _write(vault, FULL)
    load_vault_settings(vault, data)
    _write(vault, REMOVED.replace("  - Journal/\n", "  - Journal/\n  - Finance/\n"))
    read = load_vault_settings(vault, data)  # drops Health/, adds Finance/: both private
    assert all(is_private_path(read, p) for p in (*PRIVATE, "Finance/x.md"))
