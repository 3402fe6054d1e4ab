"""One writer at a time; namespaces are physically separate; unknown namespaces are empty."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from sidecar.errors import BadRequest, IndexLocked
from sidecar.index import open_index
from sidecar.index.names import check_namespace
from sidecar.models.embedder import Embedder
from sidecar.settings import make_config

from .conftest import OpenIndex


def test_second_writer_is_refused_while_the_first_is_open(
    vault: Path, tmp_path: Path, embedder: Embedder
) -> None:
    config = make_config(vault, tmp_path / "data")
    with open_index(config, embedder=embedder):
        with pytest.raises(IndexLocked, match="being written by process"):
            open_index(config, embedder=embedder)
        reader = open_index(config, writer=False)  # readers never need the lock
        reader.close()
    open_index(config, embedder=embedder).close()  # released on close


def test_lock_is_held_across_processes_and_freed_when_the_holder_dies(
    vault: Path, tmp_path: Path, embedder: Embedder
) -> None:
    data = tmp_path / "data"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, time
            from sidecar.index.lock import WriterLock
            lock = WriterLock(__import__("pathlib").Path({str(data)!r}))
            print("held", flush=True)
            time.sleep(60)
        """)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(IndexLocked, match=f"process {holder.pid}"):
            open_index(make_config(vault, data), embedder=embedder)
    finally:
        holder.kill()
        holder.wait()
    open_index(make_config(vault, data), embedder=embedder).close()


def test_deleting_the_lock_file_by_hand_lets_no_second_writer_in(
    vault: Path, tmp_path: Path, embedder: Embedder
) -> None:
    """A user who thinks `.ora/lock` stale and deletes it: the first writer still holds the
    index, and the refusal still names it."""
    config = make_config(vault, tmp_path / "data")
    with open_index(config, embedder=embedder):
        (tmp_path / "data" / "lock").unlink()
        with pytest.raises(IndexLocked, match="being written by another process"):
            open_index(config, embedder=embedder)
    open_index(config, embedder=embedder).close()


def test_namespaces_do_not_see_each_other(
    vault: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    index = open_idx(vault, namespace="alice")
    index.reconcile()
    vector = embedder.embed(["kettle limescale"])[0]
    assert index.bm25_search("limescale", 5, private=True)
    assert index.dense_search(vector, 5, private=True)
    for other in ("bob", "default"):
        assert index.bm25_search("limescale", 5, private=True, namespace=other) == []
        assert index.dense_search(vector, 5, private=True, namespace=other) == []
        assert index.get_chunks(["anything"], private=True, namespace=other) == {}


def test_unknown_namespace_reads_as_empty_without_creating_it(vault: Path, tmp_path: Path) -> None:
    config = make_config(vault, tmp_path / "data", namespace="ghost")
    with open_index(config, writer=False) as reader:
        vector = np.ones(384, dtype=np.float32) / np.sqrt(384)
        assert reader.dense_search(vector, 5, private=True) == []
        assert reader.bm25_search("anything", 5, private=True) == []
        assert reader.stats() == {"files": 0, "chunks": 0}
        assert reader.chroma.client.list_collections() == []


def test_namespace_names_are_validated(vault: Path, open_idx: OpenIndex) -> None:
    with pytest.raises(BadRequest, match="namespace"):
        open_idx(vault, namespace="../../etc")
    index = open_idx(vault)
    with pytest.raises(BadRequest, match="namespace"):
        index.bm25_search("x", 5, private=False, namespace='a"; DROP TABLE files; --')


def test_reader_cannot_write(vault: Path, tmp_path: Path) -> None:
    config = make_config(vault, tmp_path / "data")
    with open_index(config, writer=False) as reader, pytest.raises(BadRequest, match="read-only"):
        reader.reconcile()


@pytest.mark.parametrize("namespace", ["mem", "a__b", "mem__vault"])
def test_namespaces_that_could_collide_with_memory_collections_are_refused(
    namespace: str,
) -> None:
    with pytest.raises(BadRequest, match="namespace"):
        check_namespace(namespace)
