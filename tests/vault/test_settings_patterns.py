"""How the entries of `private`, `exclude` and `lint.ignore` are read (settings_patterns.py): an
entry the user meant for the whole vault or a folder never silently matches nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sidecar.vault.vault_settings import (
    VaultSettings,
    is_excluded,
    is_lint_ignored,
    is_private_path,
    load_vault_settings,
)

PATHS = ("Health/a.md", "Notes/x/Health/b.md", "Journal/2024/d.md", "top.md", "Health.md")
KEYS: dict[str, tuple[str, Callable[[VaultSettings, str], bool]]] = {
    "private": ("private: ['{entry}']\n", is_private_path),
    "exclude": ("exclude: ['{entry}']\n", is_excluded),
    "lint.ignore": ("lint:\n  ignore: ['{entry}']\n", is_lint_ignored),
}


def _settings(tmp_path: Path, key: str, entry: str) -> VaultSettings:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "ora.yaml").write_text(KEYS[key][0].format(entry=entry), encoding="utf-8")
    return load_vault_settings(vault, data=None)


def _covered(settings: VaultSettings, key: str) -> list[str]:
    return [p for p in PATHS if KEYS[key][1](settings, p)]


@pytest.mark.parametrize("key", list(KEYS))
@pytest.mark.parametrize("entry", ["/", "./", ".", " / "])
def test_a_slash_alone_is_the_whole_vault(tmp_path: Path, key: str, entry: str) -> None:
    # Before: read as '' and matching nothing, with no problem: `private: ["/"]` kept no note
    # private.
    settings = _settings(tmp_path, key, entry)
    assert _covered(settings, key) == list(PATHS)
    assert settings.problems == () and not settings.unsafe
    if key == "private":
        assert settings.to_json()["private"] == ["/"]  # shown as written, as `language`'s `/`


@pytest.mark.parametrize("key", list(KEYS))
@pytest.mark.parametrize(("entry", "covered"), [
    ("Health\\", ["Health/a.md"]),
    ("Journal\\2024\\", ["Journal/2024/d.md"]),
    ("Journal\\", ["Journal/2024/d.md"]),
    ("**\\Health\\", ["Health/a.md", "Notes/x/Health/b.md"]),
    (".\\Health\\", ["Health/a.md"]),
])
def test_a_windows_path_is_read_with_slashes(
    tmp_path: Path, key: str, entry: str, covered: list[str],
) -> None:
    # Before: `Health\` and `Journal\2024\` matched nothing, with no warning.
    settings = _settings(tmp_path, key, entry)
    assert _covered(settings, key) == covered
    assert settings.problems == ()


@pytest.mark.parametrize("key", list(KEYS))
def test_an_entry_of_spaces_is_reported_and_the_others_still_apply(
    tmp_path: Path, key: str,
) -> None:
    settings = _settings(tmp_path, key, "  ', 'Health/")  # a flow list of two entries
    assert _covered(settings, key) == ["Health/a.md"]
    assert len(settings.problems) == 1
    assert "an entry of nothing but spaces names no path" in settings.problems[0]
    assert not settings.unsafe


@pytest.mark.parametrize("entry", ["./Health/", "/Health/", " Health ", "health"])
def test_the_usual_spellings_of_a_folder_still_mean_it(tmp_path: Path, entry: str) -> None:
    settings = _settings(tmp_path, "private", entry)
    assert _covered(settings, "private") == ["Health/a.md"]
