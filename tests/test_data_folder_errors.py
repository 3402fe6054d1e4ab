"""`--data` naming a place where no folder can be (a file, a path under a file, /proc) is a
usage error said in one line, as a VAULT that is no folder is: never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.cli import main
from sidecar.data_folder import private_folder
from sidecar.errors import BadRequest


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Tea.md").write_text("# Tea\n\nGreen tea steeps three minutes.\n", encoding="utf-8")
    return vault


def _one_line(capsys: pytest.CaptureFixture[str], command: str, says: str) -> None:
    err = capsys.readouterr().err
    assert err.startswith(f"ora {command}: ") and says in err, err
    assert "Traceback" not in err and err.count("\n") == 1, err


@pytest.mark.parametrize("command", ["index", "search", "serve"])
def test_data_naming_a_file_is_a_one_line_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    vault, afile = _vault(tmp_path), tmp_path / "afile"
    afile.write_text("not a folder\n", encoding="utf-8")
    extra = {"index": [], "search": ["tea"], "serve": ["--port", "0"]}[command]
    assert main([command, str(vault), *extra, "--data", str(afile)]) == 2
    _one_line(capsys, command, f"{afile} cannot be a data folder (it is a file)")


def test_data_under_a_file_names_the_file_in_the_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault, afile = _vault(tmp_path), tmp_path / "afile"
    afile.write_text("not a folder\n", encoding="utf-8")
    assert main(["search", str(vault), "tea", "--data", str(afile / "sub")]) == 2
    _one_line(capsys, "search", f"({afile} is a file)")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_data_where_no_folder_can_be_created_is_a_bad_request(tmp_path: Path) -> None:
    with pytest.raises(BadRequest, match="no folder can be created there"):
        private_folder(Path("/proc/ora-no-such-folder/data"))
