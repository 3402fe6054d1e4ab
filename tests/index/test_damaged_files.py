"""Damaged index files (issue 10 item 9): found at open, rebuilt by a writer, named to a reader.

Each case damages a copy of a good data folder the way a crash, a full disk or a careless sync
tool would, then runs the commands a user runs: `ora search` (a reader) must not print a
traceback nor silently answer nothing; `ora index` (a writer) rebuilds; then search works again.
Every copy lives at a new path, so no Chroma client cached in this process has seen it before.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

import pytest

from sidecar.cli import main
from sidecar.index import open_index
from sidecar.models.embedder import Embedder
from sidecar.settings import make_config

from .conftest import write

ORA = str(Path(sys.executable).with_name("ora"))


def _truncate_half(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def _garbage(path: Path) -> None:
    path.write_bytes(bytes(range(256)) * 400)


def _empty(path: Path) -> None:
    path.write_bytes(b"")
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)


DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "half-truncated-ledger": (lambda d: _truncate_half(d / "ledger.sqlite"), "ledger"),
    "garbage-bm25": (lambda d: _garbage(d / "bm25.sqlite"), "BM25 store"),
    "zero-byte-bm25": (lambda d: _empty(d / "bm25.sqlite"), "BM25 store"),
    "deleted-chroma": (lambda d: shutil.rmtree(d / "chroma"), "vector store"),
    "garbage-chroma": (lambda d: _garbage(d / "chroma" / "chroma.sqlite3"), "vector store"),
}


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(vault, data) indexed once by a real `ora index` process, then never opened here."""
    root = tmp_path_factory.mktemp("good")
    vault = root / "vault"
    for n in range(12):
        write(vault, f"Engrams/Kettle {n}.md",
              f"---\ntype: engram\nnexus: []\ntags: []\n---\n# Kettle {n}\n\n"
              f"Vinegar dissolves limescale in kettle number {n}.\n")
    write(vault, "Engrams/Secret.md",
          "---\ntype: engram\nnexus: []\ntags: [private]\n---\nA private kettle note.\n")
    env = {**os.environ, "ORA_EMBED_MODEL": "int8", "ORA_MODELS_DIR": str(root / "models")}
    subprocess.run([ORA, "index", str(vault), "--data", str(root / "data"), "--json"],
                   check=True, capture_output=True, env=env, timeout=300)
    return vault, root / "data"


def _search(capsys: pytest.CaptureFixture[str], vault: Path, data: Path,
            *more: str) -> tuple[int, Any]:
    code = main(["search", str(vault), "kettle limescale", "--data", str(data), "--json",
                 "--no-rerank", *more])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, (json.loads(captured.out) if code == 0 else captured.err)


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_damaged_index_files_are_reported_to_readers_and_rebuilt_by_writers(
    case: str, good: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))
    vault, clean = good
    data = tmp_path / "data"
    shutil.copytree(clean, data)
    damage, what = DAMAGE[case]
    damage(data)

    code, err = _search(capsys, vault, data)  # a reader: the one command to run, no results
    assert code != 0
    assert what in err and f"run `ora index {vault}`" in err

    assert main(["index", str(vault), "--data", str(data), "--json"]) == 0  # a writer rebuilds
    rebuilt = json.loads(capsys.readouterr().out)
    assert (rebuilt["files"], rebuilt["chunks"]) == (13, 13)

    code, doc = _search(capsys, vault, data)
    assert code == 0 and len(doc["results"]) == 10


class _WordsOnly:
    """The real embedder, except that embedding notes fails: an index run stops after its words
    pass (every note in BM25 and the ledger, its chunks waiting to be embedded), which is what a
    search in another process finds while a cold `ora index` or `--rebuild` is still embedding."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id, self.tokenizer, self.dim = inner.model_id, inner.tokenizer, inner.dim

    def embed(self, texts: Sequence[str]) -> Any:
        raise RuntimeError("still embedding")

    def embed_queries(self, queries: Sequence[str]) -> Any:
        return self.inner.embed_queries(queries)


@pytest.mark.parametrize("run", ["cold", "rebuild"])
def test_a_search_while_the_index_is_still_being_embedded_answers_from_its_words(
    run: str, good: tuple[Path, Path], tmp_path: Path, embedder: Embedder,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))
    vault, clean = good
    data = tmp_path / "data"
    if run == "rebuild":
        shutil.copytree(clean, data)
    index = open_index(make_config(vault, data), writer=True,
                       embedder=cast(Embedder, _WordsOnly(embedder)))
    try:
        with pytest.raises(RuntimeError, match="still embedding"):
            index.rebuild() if run == "rebuild" else index.reconcile()
        assert index.ledger.embedding_counts(index.namespace) == (0, 13)  # words only, so far
    finally:
        index.close()

    code, doc = _search(capsys, vault, data)  # the store being filled is not damaged
    assert code == 0, doc
    assert len(doc["results"]) == 10 and all("Kettle" in r["path"] for r in doc["results"])
    code, doc = _search(capsys, vault, data, "--private")
    assert code == 0 and "Engrams/Secret.md" in {r["path"] for r in doc["results"]}

    shutil.rmtree(data / "chroma")  # with vectors in the ledger, an empty store is damage again
    assert main(["index", str(vault), "--data", str(data), "--json"]) == 0
    capsys.readouterr()
    shutil.rmtree(data / "chroma")
    code, err = _search(capsys, vault, data)
    assert code != 0 and "vector store" in err and f"run `ora index {vault}`" in err
