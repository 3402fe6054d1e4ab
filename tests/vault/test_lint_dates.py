"""`date modified` is linter-managed: lint reports one that is not the file's mtime day, and
`--fix` (CLI and `POST /v1/lint/fix`) brings it up to date without churning."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from sidecar.cli import main
from sidecar.lint.diagnostics import CODES, fix_dates, lint_file, lint_text

Write = Callable[[str, str | bytes], str]
NOTE = ("---\nnexus: []   # general\ntype: engram\ntags: [atomic]\n"
        "date created: 2023-01-02\ndate modified: 2023-06-07\nsubtype: fact\n---\nbody\n")


def _set_mtime(path: Path, day: str) -> None:
    noon = dt.datetime.fromisoformat(f"{day}T12:00").timestamp()
    os.utime(path, (noon, noon))


def _today() -> str:
    """Read when asserting, not at import: a run may cross midnight between the two."""
    return dt.date.today().isoformat()


def _mtime_day(path: Path) -> str:
    return dt.date.fromtimestamp(path.stat().st_mtime).isoformat()


def test_a_date_modified_older_than_the_file_is_reported_on_its_line(
    vault: Path, write: Write
) -> None:
    rel = write("Stale.md", NOTE)
    _set_mtime(vault / rel, "2024-02-03")  # edited since, without the date following
    [d] = lint_file(vault, rel)
    assert (d.code, d.line, d.severity) == ("date-modified-stale", 6,
                                            CODES["date-modified-stale"].severity)
    assert "2024-02-03" in d.message and "--fix" in d.message


def test_the_same_day_is_current_and_the_editor_text_is_not_checked(
    vault: Path, write: Write
) -> None:
    rel = write("Current.md", NOTE)
    _set_mtime(vault / rel, "2023-06-07")
    assert lint_file(vault, rel) == []
    _set_mtime(vault / rel, "2024-02-03")
    assert lint_text(NOTE, rel) == []  # unsaved text has no file time of its own


def test_a_file_time_before_date_created_is_not_stale(vault: Path, write: Write) -> None:
    """A clone kept an older mtime than the note's own creation date: `date modified` then
    equals `date created`, which is what --fix writes; reporting it would never settle."""
    text = NOTE.replace("date modified: 2023-06-07", "date modified: 2023-01-02")
    rel = write("Synced.md", text)
    _set_mtime(vault / rel, "2022-05-05")
    assert lint_file(vault, rel) == []


def test_fix_updates_a_stale_date_to_the_mtime_day_after_the_write(
    vault: Path, write: Write
) -> None:
    rel = write("Stale.md", NOTE)
    _set_mtime(vault / rel, "2024-02-03")
    assert fix_dates(vault, rel) is True
    after = (vault / rel).read_bytes()
    # only the value changed (comment, key order, the key after it kept); it is the file's
    # mtime day after the write, so lint finds it current and a second fix writes nothing
    assert after == NOTE.replace("2023-06-07", _today()).encode()
    assert _mtime_day(vault / rel) == _today()
    assert lint_file(vault, rel) == []
    assert fix_dates(vault, rel) is False
    assert (vault / rel).read_bytes() == after


def test_fix_leaves_a_current_note_untouched(vault: Path, write: Write) -> None:
    rel = write("Current.md", NOTE)
    _set_mtime(vault / rel, "2023-06-07")
    before = (vault / rel).stat().st_mtime_ns
    assert fix_dates(vault, rel) is False
    assert (vault / rel).stat().st_mtime_ns == before  # not rewritten: no churn


def test_fix_keeps_the_notes_spelling_of_the_key(vault: Path, write: Write) -> None:
    text = NOTE.replace("date modified", "Date Modified")
    rel = write("Spelled.md", text)
    _set_mtime(vault / rel, "2024-02-03")
    [d] = lint_file(vault, rel)
    assert (d.code, d.line) == ("date-modified-stale", 6)
    assert fix_dates(vault, rel) is True
    assert (vault / rel).read_text() == text.replace("2023-06-07", _today())


def test_cli_fix_updates_stale_dates(
    vault: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    rel = write("Stale.md", NOTE)
    _set_mtime(vault / rel, "2024-02-03")
    assert main(["lint", str(vault), "--json"]) == 0  # a hint, not an error
    assert "date-modified-stale" in capsys.readouterr().out
    assert main(["lint", str(vault), "--fix", "--json"]) == 0
    out = capsys.readouterr()
    assert "date-modified-stale" not in out.out and f"filled dates in {rel}" in out.err
    assert f"date modified: {_today()}\n" in (vault / rel).read_text()
