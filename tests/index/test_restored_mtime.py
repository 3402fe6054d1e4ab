"""A quick pass trusts a file by its whole stamp, mtime, size, ctime and inode: an edit of the
same size made while no sidecar runs, its mtime put back (`cp -p`, `rsync -a`, `tar x`,
`touch -r`), was never read again, and search kept the old text until the file was touched
again or the index rebuilt. A file whose ctime alone moved (a chmod) is read and hashed again,
its stamp recorded, nothing embedded; and so is every file once, a ledger from before the
stamp had a ctime and inode."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from sidecar.index import plan
from sidecar.index.ledger import FileRow, Ledger, stamp_of

from .conftest import OpenIndex, note, write

PLAN = "Plans/Plan.md"


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The notes the planner reads from now on."""
    seen: list[Path] = []
    read = plan.read_regular

    def spy(path: Path, limit: int | None = None) -> bytes:
        seen.append(path)
        return read(path, limit)

    monkeypatch.setattr(plan, "read_regular", spy)
    return seen


def _found(index: object, words: str) -> list[str]:
    hits = index.bm25_search(words, 5, private=False)  # type: ignore[attr-defined]
    return [cid for cid, _ in hits]


def test_a_same_size_edit_with_its_mtime_put_back_is_indexed_by_the_next_quick_pass(
    tmp_path: Path, open_idx: OpenIndex
) -> None:
    root = tmp_path / "vault"
    path = write(root, PLAN, note("engram", "Call the bank about the mortgage."))
    index = open_idx(root)
    index.reconcile()
    before = path.stat()
    path.write_text(note("engram", "Call the plumber about the boiler"), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # as `cp -p` leaves it
    after = path.stat()
    assert (after.st_mtime_ns, after.st_size) == (before.st_mtime_ns, before.st_size)
    assert after.st_ctime_ns != before.st_ctime_ns  # what tells the edit now
    result = index.reconcile()
    assert result["embedded"] == 1
    assert _found(index, "plumber boiler") and not _found(index, "bank mortgage")
    assert index.ledger.rows("default")[PLAN].stamp == (
        after.st_mtime_ns, after.st_size, after.st_ctime_ns, after.st_ino)


def test_a_file_whose_ctime_alone_moved_is_hashed_again_and_nothing_is_embedded(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "vault"
    path = write(root, PLAN, note("engram", "Call the bank about the mortgage."))
    index = open_idx(root)
    index.reconcile()
    os.chmod(path, path.stat().st_mode)  # the same mode: only the ctime moves
    reads = _reads(monkeypatch)
    assert index.reconcile()["embedded"] == 0
    assert reads == [path]  # read and hashed once, its new stamp recorded...
    assert index.ledger.rows("default")[PLAN].ctime_ns == path.stat().st_ctime_ns
    reads.clear()
    index.reconcile()
    assert reads == []  # ...so the next quick pass trusts it again


def test_a_ledger_from_before_the_ctime_and_inode_reads_each_file_once_and_embeds_nothing(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "vault"
    path = write(root, PLAN, note("engram", "Call the bank about the mortgage."))
    data = tmp_path / "data"
    first = open_idx(root, data=data)
    first.reconcile()
    first.close()
    _as_version_3(data / "ledger.sqlite")
    reads = _reads(monkeypatch)
    again = open_idx(root, data=data)
    assert again.reconcile()["embedded"] == 0
    assert reads == [path]
    st = path.stat()
    assert again.ledger.rows("default")[PLAN].stamp == (
        st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino)


def _as_version_3(ledger: Path) -> None:
    """The ledger as version 3 wrote it: no ctime or inode columns."""
    with sqlite3.connect(ledger, isolation_level=None) as conn:
        conn.execute("ALTER TABLE files DROP COLUMN ctime_ns")
        conn.execute("ALTER TABLE files DROP COLUMN inode")
        conn.execute("PRAGMA user_version = 3")
    conn.close()


@pytest.mark.parametrize("inode", [2**63, 2**64 - 1, 2**70 + 5])
def test_an_inode_number_past_sqlites_integers_is_kept_folded_into_them(
    tmp_path: Path, inode: int
) -> None:
    """Review: an inode of 2**63 or more (unsigned; some file systems' ids are wider) failed
    every reconcile with OverflowError when the ledger stored it."""
    st = os.stat_result((0o100644, inode, 0, 1, 0, 0, 5, 1, 2, 3),
                        {"st_atime_ns": 1, "st_mtime_ns": 2, "st_ctime_ns": 3})
    stamp = stamp_of(st)
    assert -(2**63) <= stamp[3] < 2**63 and stamp == stamp_of(st)
    ledger = Ledger(tmp_path / "ledger.sqlite")
    row = FileRow(path="a.md", hash="h", mtime_ns=stamp[0], size=stamp[1], ctime_ns=stamp[2],
                  inode=stamp[3], model="m", type="engram", tags=(), title="a", private=False,
                  chunk_ids=(), declared_cluster=None, cluster=None, decays=False,
                  decay_date="", centroid=None, error=None)
    ledger.put("ns", [row], [])
    assert ledger.rows("ns", ["a.md"])["a.md"].stamp == stamp
