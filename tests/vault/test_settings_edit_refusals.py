"""The settings editor refuses a file the reader would refuse, with the reader's limits and a
clear error: nothing is written that would not apply."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sidecar.errors import InvalidSettings
from sidecar.vault.settings_edit import add_lint_ignore, set_excluded
from sidecar.vault.vault_settings import MAX_SETTINGS_BYTES, load_vault_settings

_SETTINGS = "private:\n  - Health/\nlint:\n  ignore:\n    - Old/\n"


def _huge(size: int) -> str:
    """Valid settings, then comments up to `size` bytes."""
    line = "# " + "x" * 98 + "\n"
    return _SETTINGS + line * ((size - len(_SETTINGS)) // len(line) + 1)


EDITS: dict[str, Callable[[Path], object]] = {
    "lint-ignore": lambda vault: add_lint_ignore(vault, "Drafts/", data_folder=None),
    "exclude": lambda vault: set_excluded(vault, "Drafts/", True, data_folder=None),
}


@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_the_editor_refuses_a_file_over_the_readers_size_cap(
    tmp_path: Path, edit: Callable[[Path], object],
) -> None:
    # Before: the entry was written (after seconds of ruamel parsing, minutes at 10 MB) and the
    # settings answered without it: the reader reads no file this large.
    vault = tmp_path / "vault"
    vault.mkdir()
    text = _huge(MAX_SETTINGS_BYTES + 1)
    (vault / "ora.yaml").write_text(text, encoding="utf-8")
    assert "larger than" in load_vault_settings(vault, data=None).problems[0]
    with pytest.raises(InvalidSettings, match=rf"larger than {MAX_SETTINGS_BYTES} bytes"):
        edit(vault)
    assert (vault / "ora.yaml").read_text(encoding="utf-8") == text


def test_a_file_just_under_the_cap_is_still_edited(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    text = _huge(MAX_SETTINGS_BYTES - 2000)
    (vault / "ora.yaml").write_text(text, encoding="utf-8")
    assert add_lint_ignore(vault, "Drafts/", data_folder=None).lint_ignore == ("Old/", "Drafts/")


def test_a_folder_named_ora_yaml_is_called_a_folder(tmp_path: Path) -> None:
    # Before: "not a regular file (a pipe, socket or device)".
    vault = tmp_path / "vault"
    (vault / "ora.yaml").mkdir(parents=True)
    settings = load_vault_settings(vault, data=None)
    assert "ora.yaml is a folder, not a file" in settings.problems[0]
    with pytest.raises(InvalidSettings, match=r"^ora\.yaml is a folder, not a file; Ora will not "
                                              r"write it$"):
        add_lint_ignore(vault, "Drafts/", data_folder=None)
    assert (vault / "ora.yaml").is_dir()
