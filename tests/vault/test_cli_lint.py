"""`ora lint`: output forms, exit status, single files and --fix."""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from sidecar.cli import main

Write = Callable[[str, str | bytes], str]
LINKY = ("---\nnexus: ['[[Hub]]', '[[Gone]]']\ntype: engram\ntags: []\n"
         "date created: 2024-01-01\ndate modified: 2024-01-01\n---\n")


def test_clean_vault_exits_zero_with_empty_json(vault: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", str(vault), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"diagnostics": []}


def test_errors_exit_one_and_print_path_line_severity_code(
    vault: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    write("Engrams/Bad.md", "---\nnexus: []\ntype: engramm\ntags: []\n"
                            "date created: 2024-01-01\ndate modified: 2024-01-01\n---\n")
    assert main(["lint", str(vault)]) == 1
    out = capsys.readouterr()
    assert out.out.startswith("Engrams/Bad.md:3: error type-unknown unknown type 'engramm'")
    assert "1 error(s)" in out.err


def test_warnings_alone_exit_zero(vault: Path, write: Write) -> None:
    write("W.md", "---\nnexus: []\ntype: engram\ntags: [zzzq]\n"
                  "date created: 2024-01-01\ndate modified: 2024-01-01\n---\n")
    assert main(["lint", str(vault)]) == 0


def test_a_single_file_is_linted_against_its_vault(
    vault: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    (vault / ".obsidian").mkdir()
    rel = write("Engrams/Linky.md", LINKY)
    assert main(["lint", str(vault / rel), "--json"]) == 0
    [d] = json.loads(capsys.readouterr().out)["diagnostics"]
    assert (d["path"], d["code"]) == ("Engrams/Linky.md", "link-broken")


@pytest.mark.parametrize("marker", [".ora", "ora.yaml"])
def test_a_single_file_finds_an_ora_vault_without_obsidian_settings(
    vault: Path, write: Write, capsys: pytest.CaptureFixture[str], marker: str
) -> None:
    """A vault Ora indexes or configures but Obsidian never opened (no .obsidian/): linting
    one note used to take its folder for the vault, so links to other folders were broken."""
    if marker == ".ora":
        (vault / marker).mkdir()
    else:
        (vault / marker).write_text("lint:\n  untyped: hint\n", encoding="utf-8")
    rel = write("Engrams/Linky.md", LINKY)
    assert main(["lint", str(vault / rel), "--json"]) == 0
    [d] = json.loads(capsys.readouterr().out)["diagnostics"]
    assert (d["path"], d["code"]) == ("Engrams/Linky.md", "link-broken")
    assert "'Gone'" in d["message"]


def test_fix_fills_dates_then_lints_again(
    vault: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    write("NoDates.md", "---\nnexus: []\ntype: engram\ntags: []\n---\nbody\n")
    assert main(["lint", str(vault), "--fix", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {"diagnostics": []}
    assert "filled dates in NoDates.md" in captured.err
    assert "date created: " in (vault / "NoDates.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("spelling", ["Date Created", "DATE CREATED", "Date created"])
def test_fix_updates_a_capitalised_date_in_place_instead_of_adding_a_second(
    vault: Path, write: Write, spelling: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Obsidian reads `Date Created:` as `date created`; `--fix` added a second `date created`
    (today's) beside the user's own date, a duplicate with a different value."""
    text = f"---\nnexus: []\ntype: engram\ntags: []\n{spelling}: 2021-03-04\n---\nbody\n"
    write("Dated.md", text)
    os.utime(vault / "Dated.md", (1_700_000_000, 1_700_000_000))  # 2023-11-14
    assert main(["lint", str(vault), "--fix", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"diagnostics": []}
    today = dt.date.today().isoformat()  # the fix modifies the file: today is its mtime day
    expected = text.replace("---\nbody", f"date modified: {today}\n---\nbody")
    assert (vault / "Dated.md").read_bytes() == expected.encode()


def test_a_missing_target_is_a_clear_error(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", str(tmp_path / "nope")]) == 2
    assert "neither a vault folder nor a note file" in capsys.readouterr().err
