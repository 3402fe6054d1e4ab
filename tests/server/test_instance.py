"""`ora serve --parent-pid` and DATA/server.json, with real processes."""

from __future__ import annotations

import contextlib
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from sidecar.index import open_index
from sidecar.server.instance import process_alive, read_record, record_path

from .conftest import ORA, _env

_INTERMEDIARY = """
import os, subprocess, sys, time
args = sys.argv[1:] + ["--parent-pid", str(os.getpid())]
child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=open(os.environ["LOG"], "w"))
print(child.pid, flush=True)
time.sleep(600)
"""


def _wait(check: Any, what: str, timeout: float = 120.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _index_is_free_and_whole(config: Any) -> None:
    """The writer lock was released and the index holds the whole vault."""
    with open_index(config, writer=True) as index:
        assert index.stats()["files"] == 4


@pytest.mark.slow
def test_a_sidecar_whose_parent_is_killed_exits_cleanly(config: Any, tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    parent = subprocess.Popen(
        [sys.executable, "-c", _INTERMEDIARY, str(ORA), "serve", str(config.vault),
         "--data", str(config.data), "--port", "0"],
        stdout=subprocess.PIPE, env={**_env(config), "LOG": str(log)}, text=True,
    )
    try:
        assert parent.stdout is not None
        pid = int(parent.stdout.readline())
        record = _wait(lambda: read_record(config.data), "server.json")
        assert record["pid"] == pid and record["parent_pid"] == parent.pid
        assert record["vault"] == str(config.vault) and record["port"] > 0
        _wait(lambda: _reconciled(config), "the reconcile")
    finally:
        parent.send_signal(signal.SIGKILL)  # no chance to stop its child
        parent.wait()
    _wait(lambda: not process_alive(pid), "the orphaned sidecar to exit", timeout=60)
    text = log.read_text()
    assert "parent process" in text and "shutting down" in text
    assert "Traceback" not in text
    assert not record_path(config.data).exists()
    _index_is_free_and_whole(config)


def _ledger_files(data: Path) -> int:
    """The notes the ledger holds embedded (0 before it exists): the words pass writes every
    note first, then the embedding pass marks each embedded."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{data / 'ledger.sqlite'}?mode=ro",
                                                uri=True)) as db:
            return int(db.execute("SELECT count(*) FROM files WHERE embedded = 1").fetchone()[0])
    except sqlite3.Error:
        return 0


def _removed(folder: Path) -> bool:
    shutil.rmtree(folder, ignore_errors=True)
    return not folder.exists()


def _reconciled(config: Any) -> bool:
    """Whether a writer has finished the first reconcile (the ledger knows every note)."""
    try:
        with open_index(config, writer=False) as index:
            return bool(index.stats()["files"] == 4)
    except Exception:
        return False


@pytest.mark.slow
def test_parent_pid_of_another_process_that_dies_unreaped(config: Any, serve: Any) -> None:
    """The watched process need not be the parent; one that exited but was not reaped yet
    (a zombie) counts as gone."""
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    served = serve(config, "--parent-pid", str(other.pid))
    record = _wait(lambda: read_record(config.data), "server.json")
    assert record["parent_pid"] == other.pid and record["port"] == served.port
    assert served.proc.poll() is None
    other.kill()  # not waited for: a zombie until the end of the test
    try:
        assert served.proc.wait(60) == 0
    finally:
        other.wait()
    assert "parent process" in served.log.read_text()
    assert not record_path(config.data).exists()
    _index_is_free_and_whole(config)


@pytest.mark.slow
def test_deleting_the_data_folder_under_a_running_server_stops_it_with_a_clear_error(
    config: Any, serve: Any
) -> None:
    """It used to answer every search with an internal error and report a read-only disk
    until someone restarted it; now it stops (the plugin starts a new one, which rebuilds)."""
    served = serve(config)
    _wait(lambda: read_record(config.data), "server.json")
    # Deleted once the start-up reconcile is done: one still writing its stores can add a file
    # to a folder rmtree is emptying, and logs its failed write (a traceback) before the stop.
    # Read from the ledger alone: Chroma caches a client per folder in this process, and one
    # opened before the delete would not see the rebuilt index.
    _wait(lambda: _ledger_files(config.data) == 4, "the start-up reconcile")
    _wait(lambda: _removed(config.data), "the data folder to be deleted")
    assert served.proc.wait(60) != 0
    text = served.log.read_text()
    assert "was deleted while serving; start `ora serve` again" in text
    assert "Traceback" not in text and "read-only" not in text
    again = serve(config)  # and a new start rebuilds the index from the vault
    _wait(lambda: _reconciled(config), "the rebuild")
    again.proc.send_signal(signal.SIGTERM)
    assert again.proc.wait(60) == 0
