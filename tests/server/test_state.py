"""What the server says about itself never carries a private note's text."""

from __future__ import annotations

from pathlib import Path

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
