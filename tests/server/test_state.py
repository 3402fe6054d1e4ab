"""What the server says about itself never carries a private note's text."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from sidecar.server.events import EventHub
from sidecar.server.state import ServerState
from sidecar.settings import make_config


def test_a_failed_background_job_shows_no_file_name_in_status(tmp_path: Path) -> None:
    """Issue 10 item 3 (audit): an OS error names its file, which may be a private note."""
    state = ServerState(make_config(tmp_path / "vault", tmp_path / "data"), EventHub())
    secret = str(tmp_path / "vault" / "Private" / "koala divorce papers.md")
    state.fail("watching the vault", PermissionError(13, "Permission denied", secret))
    assert state.last_error == (
        "watching the vault failed: PermissionError: [Errno 13] Permission denied")
    state.fail("reconcile", RuntimeError("disk full"))
    assert state.last_error == "reconcile failed: RuntimeError: disk full"


def test_a_job_failing_after_the_data_folder_was_deleted_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A reconcile still writing when `.ora` was deleted logged "Ora's data folder is on a
    read-only disk" (or a traceback) after the server's own "was deleted; stopping"."""
    state = ServerState(make_config(tmp_path / "vault", tmp_path / "data"), EventHub())
    state.data_deleted = True
    readonly = sqlite3.OperationalError("attempt to write a readonly database")
    with caplog.at_level(logging.WARNING, logger="sidecar.server"):
        state.fail("reconcile", readonly)
    assert [r.getMessage() for r in caplog.records] == [
        f"reconcile stopped: the data folder {tmp_path / 'data'} was deleted"]
    assert all(r.exc_info is None for r in caplog.records)
    assert state.last_error == "reconcile stopped: the data folder was deleted"
