"""Issue 29: a note is findable by its words as soon as it is read, before its vectors exist.

The embedding here is held back (a gate in front of the real model), so what is asserted is what
a search finds while it waits: the note by its words, through BM25 and the whole hybrid search,
its privacy in force; then, once the gate opens, its vectors, with nothing embedded twice.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from sidecar.index import Index
from sidecar.models.embedder import Embedder
from sidecar.retrieval.related import RelatedOptions, related
from sidecar.retrieval.search import SearchOptions, search

from .conftest import OpenIndex, note, write
from .test_watcher import _paths, _until, _watching


class Gated:
    """The real embedder, whose note embedding waits for `gate` (queries pass: a search runs)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.gate = inner, threading.Event()
        self.model_id, self.tokenizer, self.dim = inner.model_id, inner.tokenizer, inner.dim
        self.embedded: list[str] = []
        self.patience = 60.0

    def embed(self, texts: Sequence[str]) -> Any:
        if not self.gate.wait(self.patience):
            raise RuntimeError("the test never opened the gate")
        self.embedded += texts
        return self.inner.embed(texts)

    def embed_queries(self, queries: Sequence[str]) -> Any:
        return self.inner.embed_queries(queries)


def _waiting(index: Index, rel: str) -> bool:
    row = index.ledger.rows(index.namespace, [rel]).get(rel)
    return row is not None and not row.embedded


def _by_words_only(
    open_idx: OpenIndex, root: Path, data: Path, embedder: Embedder, rels: list[str]
) -> Index:
    """The index opened again with an embedder that fails on notes, `rels` applied: findable by
    their words, their chunks waiting for the embedding pass."""
    gated = Gated(embedder)
    gated.patience = 0.1
    waiting = open_idx(root, data=data, emb=gated)
    with pytest.raises(RuntimeError, match="never opened"):
        waiting.apply_paths(rels)
    assert all(_waiting(waiting, rel) for rel in rels)
    return waiting


async def _found(index: Index, query: str, want: set[str], private: bool = True) -> None:
    for _ in range(400):
        if _paths(index, query, private) == want:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{query!r} never found {want}")


async def test_the_watcher_makes_new_and_edited_notes_findable_by_their_words_first(
    vault: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    gated = Gated(embedder)
    gated.gate.set()
    index = open_idx(vault, emb=gated, debounce_ms=100)
    index.reconcile()
    gated.gate.clear()
    gated.embedded.clear()
    async with _watching(index) as changes:
        write(vault, "Engrams/New.md", note("engram", "# Marsupials\n\nA quokka smiles."))
        write(vault, "Engrams/Kettle.md", note("engram", "# Kettle\n\nZanzibar vinegar works."))
        await _found(index, "quokka", {"Engrams/New.md"})
        await _found(index, "zanzibar", {"Engrams/Kettle.md"})
        assert not gated.gate.is_set() and _waiting(index, "Engrams/New.md")
        # The whole hybrid search finds it too, first, though it has no dense score yet.
        found = await search(index, gated, None, "quokka", SearchOptions(k=3))
        assert found["results"][0]["path"] == "Engrams/New.md"
        assert found["results"][0]["why"]["dense_rank"] is None

        gated.gate.set()
        await _until(changes, "Engrams/New.md")
        while _waiting(index, "Engrams/Kettle.md") or _waiting(index, "Engrams/New.md"):
            await asyncio.wait_for(changes.get(), timeout=20)
    vector = embedder.embed_queries(["a smiling quokka"])[0]
    dense = index.get_chunks([c for c, _ in index.dense_search(vector, 1, private=False)],
                             private=False)
    assert [r.path for r in dense.values()] == ["Engrams/New.md"]
    assert len(gated.embedded) == len(set(gated.embedded)) == 2  # each new text once


class Failing(Gated):
    """Never gets to embed a note (the embedding pass fails at once)."""

    def embed(self, texts: Sequence[str]) -> Any:
        raise RuntimeError("no vectors today")


def test_a_private_note_waiting_for_its_vectors_is_found_in_private_mode_only(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    root = tmp_path / "v"
    write(root, "Notes/Secret.md", note("engram", "The wombat code is zqxsecret.", ["private"]))
    write(root, "Notes/Open.md", note("engram", "A wombat is a marsupial."))
    index = open_idx(root, emb=Failing(embedder))
    with pytest.raises(RuntimeError, match="no vectors"):
        index.reconcile()
    assert _waiting(index, "Notes/Secret.md") and _waiting(index, "Notes/Open.md")
    assert _paths(index, "wombat zqxsecret", private=False) == {"Notes/Open.md"}
    assert _paths(index, "zqxsecret", private=True) == {"Notes/Secret.md"}
    public = asyncio.run(search(index, embedder, None, "zqxsecret wombat", SearchOptions()))
    assert "zqxsecret" not in str(public["results"]) and public["results"]
    private = asyncio.run(search(index, embedder, None, "zqxsecret", SearchOptions(private=True)))
    assert [r["path"] for r in private["results"]] == ["Notes/Secret.md"]
    assert private["results"][0]["private"] is True
    # Asked for by id, a waiting private chunk is not handed to a public reader either.
    row = index.ledger.rows("default", ["Notes/Secret.md"])["Notes/Secret.md"]
    assert index.get_chunks(list(row.chunk_ids), private=False) == {}


def test_notes_related_to_a_note_waiting_for_its_vectors_come_from_its_text(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    root = tmp_path / "v"
    write(root, "Notes/Kettle.md", note("engram", "Vinegar dissolves limescale in a kettle."))
    write(root, "Notes/Descale.md", note("engram", "Descale the kettle with citric acid."))
    write(root, "Notes/Tides.md", note("engram", "The moon pulls the tides twice a day."))
    index = open_idx(root)
    index.reconcile()
    write(root, "Notes/New.md", note("engram", "Limescale builds up inside an old kettle."))
    index.close()
    waiting = _by_words_only(open_idx, root, tmp_path / "data", embedder, ["Notes/New.md"])
    found = asyncio.run(related(waiting, embedder, "Notes/New.md", RelatedOptions(k=2)))
    assert found["results"][0]["path"] in {"Notes/Kettle.md", "Notes/Descale.md"}


def test_a_ledger_of_an_older_sidecar_gains_the_embedded_column_its_rows_embedded(
    tmp_path: Path, open_idx: OpenIndex
) -> None:
    root = tmp_path / "v"
    write(root, "Notes/Kettle.md", note("engram", "Vinegar dissolves limescale."))
    index = open_idx(root)
    index.reconcile()
    index.close()
    with sqlite3.connect(tmp_path / "data" / "ledger.sqlite") as conn:  # as a sidecar before #29
        conn.execute("ALTER TABLE files DROP COLUMN embedded")
        conn.execute("PRAGMA user_version = 1")
    again = open_idx(root, data=tmp_path / "data")
    assert [r.embedded for r in again.ledger.rows("default").values()] == [True]
    assert again.reconcile()["embedded"] == 0  # nothing waits, nothing is embedded again


def test_a_note_waiting_for_its_new_vectors_keeps_its_last_mean_and_a_new_one_has_none(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    root = tmp_path / "v"
    write(root, "Notes/Kettle.md", note("resource", "Vinegar dissolves limescale in a kettle."))
    write(root, "Notes/Tides.md", note("resource", "The moon pulls the tides twice a day."))
    index = open_idx(root)
    index.reconcile()
    before = index.note_vectors(["Notes/Kettle.md", "Notes/Tides.md"], private=False)
    assert set(before) == {"Notes/Kettle.md", "Notes/Tides.md"}
    write(root, "Notes/Kettle.md", note("resource", "Citric acid descales a kettle too."))
    write(root, "Notes/New.md", note("resource", "Limescale builds up inside an old kettle."))
    index.close()
    waiting = _by_words_only(open_idx, root, tmp_path / "data", embedder,
                             ["Notes/Kettle.md", "Notes/New.md"])
    # Search and clusters read the edited note's last mean until its new one is written.
    now = waiting.note_vectors(["Notes/Kettle.md", "Notes/New.md"], private=False)
    assert set(now) == {"Notes/Kettle.md"}
    assert (now["Notes/Kettle.md"] == before["Notes/Kettle.md"]).all()
