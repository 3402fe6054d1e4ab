"""ora.yaml is read with YAML 1.2's booleans (settings_yaml.py): `yes`, `no`, `on`, `off` are
words. PyYAML's YAML 1.1 read `language: no` (Norwegian, a listed code) as false."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.vault.vault_settings import load_vault_settings, note_language


def _vault(tmp_path: Path, text: str) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "ora.yaml").write_text(text, encoding="utf-8")
    return vault


@pytest.mark.parametrize("text", ["language: no\n", "%YAML 1.1\n---\nlanguage: no\n",
                                  "language: 'no'\n", "language: {/: no}\n"])
def test_language_no_is_norwegian_for_the_whole_vault(tmp_path: Path, text: str) -> None:
    # Before: "language must be a language code"; the vault fell back to detection.
    settings = load_vault_settings(_vault(tmp_path, text), data=None)
    assert settings.problems == ()
    assert note_language(settings, "Notes/a.md") == "no"


def test_language_no_is_norwegian_for_a_folder(tmp_path: Path) -> None:
    # Before: "language: False is not one of …", and the folder's rule was dropped.
    settings = load_vault_settings(_vault(tmp_path, "language:\n  Notes/: no\n  /: en\n"), None)
    assert settings.problems == ()
    assert note_language(settings, "Notes/a.md") == "no"
    assert note_language(settings, "Other/b.md") == "en"


@pytest.mark.parametrize("word", ["No", "yes", "on", "OFF", "Yes"])
def test_folders_named_as_yaml_11_booleans_are_folders(tmp_path: Path, word: str) -> None:
    # Before: the list held a boolean, so `exclude` and `private` were unreadable (unsafe).
    settings = load_vault_settings(_vault(
        tmp_path, f"exclude: [{word}]\nprivate:\n  - {word}/\nfolders:\n  {word}/: engram\n"), None)
    assert settings.problems == () and not settings.unsafe
    assert settings.exclude == (word,) and settings.private == (f"{word}/",)
    assert (f"{word}/", "engram") in settings.folders


@pytest.mark.parametrize("value", ["off", "Off", "OFF", "no", "No", "false", "'off'"])
def test_lint_untyped_off_still_reads_as_off(tmp_path: Path, value: str) -> None:
    settings = load_vault_settings(_vault(tmp_path, f"lint:\n  untyped: {value}\n"), None)
    assert settings.lint_untyped == "off" and settings.problems == ()


def test_true_and_false_are_still_booleans(tmp_path: Path) -> None:
    settings = load_vault_settings(_vault(tmp_path, "lint:\n  untyped: true\n"), None)
    assert settings.lint_untyped == "hint"
    assert "lint.untyped True is not one of hint, off" in settings.problems[0]

