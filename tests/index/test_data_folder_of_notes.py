"""`--data` naming a folder of notes (`ora index V --data V/Daily`) is refused before Ora
touches it: it made the user's folder 0700 and put its index files among the notes. A new or
empty folder, and Ora's own data folder (the default hidden VAULT/.ora), stay accepted."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from sidecar.cli import main
from sidecar.data_folder import private_folder
from sidecar.errors import BadRequest


@pytest.fixture(autouse=True)
def _int8(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_index_refuses_a_data_folder_holding_notes_and_leaves_it_alone(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    daily = vault / "Daily"
    daily.mkdir(exist_ok=True)
    (daily / "2024-03-01.md").write_text("Met Anna about the roadmap. #work\n", encoding="utf-8")
    daily.chmod(0o755)
    before = sorted(p.name for p in daily.iterdir())
    assert main(["index", str(vault), "--data", str(daily), "--json"]) == 2
    assert "holds notes (2024-03-01.md)" in capsys.readouterr().err
    assert _mode(daily) == 0o755
    assert sorted(p.name for p in daily.iterdir()) == before


def test_a_vault_folder_cannot_be_another_vaults_data_folder(tmp_path: Path) -> None:
    (tmp_path / "other" / ".obsidian").mkdir(parents=True)
    with pytest.raises(BadRequest, match="holds notes"):
        private_folder(tmp_path / "other")


def test_the_default_and_new_or_empty_data_folders_are_accepted(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(vault), "--json"]) == 0  # VAULT/.ora, inside the vault
    assert main(["index", str(vault), "--json"]) == 0  # and again, now Ora's own
    assert _mode(vault / ".ora") == 0o700
    empty = vault / "Index data"
    empty.mkdir()
    assert main(["index", str(vault), "--data", str(empty), "--json"]) == 0
    assert main(["index", str(vault), "--data", str(tmp_path / "new"), "--json"]) == 0
    capsys.readouterr()
