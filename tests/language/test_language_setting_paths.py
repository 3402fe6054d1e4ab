"""ora.yaml `language:` folders are read as `exclude` reads paths: a leading `./` or `/` is
dropped, and `/`, `./` or `.` alone is the whole vault."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.vault.vault_settings import VaultSettings, load_vault_settings, note_language


def _settings(vault: Path, yaml: str) -> VaultSettings:
    (vault / "ora.yaml").write_text(yaml, encoding="utf-8")
    return load_vault_settings(vault, None)


@pytest.mark.parametrize("folder", ["./", ".", "/", "' ./ '"])
def test_a_language_for_dot_slash_is_the_whole_vaults(tmp_path: Path, folder: str) -> None:
    # Before: "./" became the folder "./", which no note path starts with.
    settings = _settings(tmp_path, f"language:\n  {folder}: es\n")
    assert settings.problems == ()
    assert note_language(settings, "b.md") == "es"
    assert note_language(settings, "Cocina/a.md") == "es"


@pytest.mark.parametrize("folder", ["./Cocina/", "./Cocina", "/Cocina/", "Cocina", "Cocina\\"])
def test_a_language_folder_written_with_dot_slash_is_that_folder(
    tmp_path: Path, folder: str
) -> None:
    settings = _settings(tmp_path, f"language:\n  '{folder}': fr\n  /: de\n")
    assert note_language(settings, "Cocina/a.md") == "fr"
    assert note_language(settings, "Cocina/sub/c.md") == "fr"
    assert note_language(settings, "b.md") == "de"
    assert note_language(settings, "Cocinas/x.md") == "de"
