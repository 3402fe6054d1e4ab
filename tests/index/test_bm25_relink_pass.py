"""Incoming-link text in a pass over many files: a note whose links change in several batches is
indexed again once, at the end of the pass, and the documents then equal a rebuild's, even after
a process killed before that end (`sidecar/index/relinks.py`)."""

from __future__ import annotations

import dataclasses
import os
import random
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sidecar.index import Index, bm25_engine
from sidecar.index import bm25 as bm25_module
from sidecar.index.bm25 import Bm25Store
from sidecar.index.bm25_engine import Bm25Engine
from sidecar.index.embed_pass import EMBED_SLICE
from sidecar.index.names import store_name
from sidecar.models.embedder import Embedder
from sidecar.schema import get_schema

from .conftest import OpenIndex, note, write
from .test_expedite import Hooked

LINKERS = 34  # under the anchor cap (40): every linker's words reach the hub
TARGETS = 4


def _word(i: int) -> str:
    return f"zz{chr(97 + i // 26)}{chr(97 + i % 26)}"


def _linker(i: int, word: str) -> str:
    tags = ["private"] if i == 5 else []  # its links lend no words to a public note
    body = f"The {word} side of [[Hub]] and [[Target {i % TARGETS}]]."
    return note("resource", f"# Link {i}\n\n{body}\n\nNothing else here about {i}.", tags)


def _vault(root: Path) -> Path:
    """A hub and a few targets, newest (taken first by a reconcile), then linkers in an order
    unlike their paths', several batches of them (`sync.FIRST_BATCH` 8, doubling)."""
    write(root, "Hub.md", note("resource", "# Hub\n\nThe note everything links to."))
    for k in range(TARGETS):
        write(root, f"Target {k}.md", note("resource", f"# Target {k}\n\nA target note.",
                                           ["private"] if k == 3 else []))
    order = list(range(LINKERS))
    random.Random(4).shuffle(order)
    for i in order:
        write(root, f"Links/Link {i:02}.md", _linker(i, _word(i)))
    stamp = 1_700_000_000
    for n, rel in enumerate(["Hub.md", *(f"Target {k}.md" for k in range(TARGETS)),
                             *(f"Links/Link {i:02}.md" for i in order)]):
        os.utime(root / rel, (stamp - n, stamp - n))  # newest first
    return root


def _found(index: Index, word: str, *, private: bool = False) -> set[str]:
    hits = index.bm25_search(word, 50, private=private)
    return {c.path for c in index.get_chunks([i for i, _ in hits], private=True).values()}


def _spy_relinks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The notes `Bm25Store._relink` indexes again, with the store never compacted instead
    (tests/index/test_bm25_compaction.py): this small vault's relinks would rewrite most of it."""
    schema = get_schema()
    monkeypatch.setattr(bm25_module, "get_schema",
                        lambda: dataclasses.replace(schema, bm25_max_deleted=1.0))
    relinked: list[str] = []
    real = Bm25Store._relink
    monkeypatch.setattr(Bm25Store, "_relink", lambda self, engine, name, public, paths: (
        relinked.extend(paths), real(self, engine, name, public, paths))[1])
    return relinked


def test_a_hub_linked_from_every_batch_of_a_pass_is_indexed_again_once(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: the hub, written in the pass's first batch, was indexed again at each later batch
    # holding one of its linkers (twice here; on a heavily linked vault, 12-26 % more CPU).
    relinked = _spy_relinks(monkeypatch)
    index = open_idx(_vault(tmp_path / "vault"))
    index.reconcile()
    assert relinked.count("Hub.md") == 1
    assert relinked.count("Target 0.md") == 1 and relinked.count("Target 3.md") == 1
    assert all(_found(index, _word(i)) == {f"Links/Link {i:02}.md", "Hub.md",
                                           f"Target {i % TARGETS}.md"} - {"Target 3.md"}
               for i in range(LINKERS) if i != 5)
    assert _found(index, _word(5)) == set()
    assert _found(index, _word(3), private=True) == {"Links/Link 03.md", "Hub.md", "Target 3.md"}


def test_a_saved_note_changes_what_the_notes_it_links_to_are_found_by_at_once(
    tmp_path: Path, open_idx: OpenIndex,
) -> None:
    vault = _vault(tmp_path / "vault")
    index = open_idx(vault)
    index.reconcile()
    write(vault, "Links/Link 07.md", _linker(7, "zzfresh"))
    index.apply_paths(["Links/Link 07.md"])
    assert _found(index, "zzfresh") == {"Links/Link 07.md", "Hub.md"}  # Target 3 is private
    assert _found(index, "zzfresh", private=True) == {"Links/Link 07.md", "Hub.md", "Target 3.md"}
    assert _found(index, _word(7), private=True) == set()


def _edit(vault: Path) -> None:
    """Edits a second pass takes: words around a link, a link removed, a linker deleted, a
    target renamed (its links dangle), a new linker, a linker made public."""
    write(vault, "Links/Link 01.md", _linker(1, "zzedited"))
    write(vault, "Links/Link 02.md", note("resource", "# Link 2\n\nNo links any more."))
    (vault / "Links/Link 04.md").unlink()
    (vault / "Target 1.md").rename(vault / "Target 1b.md")
    write(vault, "Links/Link 99.md", note("resource", "# New\n\nThe zznew way to [[Target 0]]."))
    write(vault, "Links/Link 05.md", _linker(6, "zzpublic"))


def test_after_passes_and_edits_every_document_equals_a_rebuilds(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What each chunk engine holds, by rowid, as the writes give it (the real engines write too).
    held: dict[str, dict[int, tuple[bool, str, str]]] = {}
    real_add, real_delete = Bm25Engine.add, Bm25Engine.delete

    def store(engine: Bm25Engine) -> str:  # each generation of the store's engine counts as it
        return re.sub(r"\.\d+$", "", engine.folder.name)

    def add(self: Bm25Engine, docs: list[bm25_engine.Doc]) -> None:
        docs = list(docs)
        held.setdefault(store(self), {}).update((r, (a, body, lang)) for r, a, body, lang in docs)
        real_add(self, docs)

    def delete(self: Bm25Engine, rowids: list[int]) -> None:
        for rowid in rowids:
            held.get(store(self), {}).pop(rowid, None)
        real_delete(self, rowids)

    monkeypatch.setattr(Bm25Engine, "add", add)
    monkeypatch.setattr(Bm25Engine, "delete", delete)
    vault = _vault(tmp_path / "vault")
    index = open_idx(vault)
    index.reconcile()
    _edit(vault)
    index.reconcile()
    write(vault, "Links/Link 08.md", _linker(8, "zzsaved"))
    index.apply_paths(["Links/Link 08.md"])
    stores = [store_name(index.namespace, private) for private in (False, True)]
    incremental = {name: dict(held[name]) for name in stores}
    assert any("zzsaved" in body for _, body, _ in incremental[stores[0]].values())
    index.close()
    held.clear()
    monkeypatch.setattr(bm25_module, "VERSION", bm25_engine.VERSION + "; next")
    open_idx(vault)  # rebuilds both engines from their tables
    assert {name: held[name] for name in stores} == incremental


KILLED = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from sidecar.index import open_index, relinks
    from sidecar.index.bm25 import Bm25Store
    from sidecar.index.names import store_name
    from sidecar.models.embedder import open_embedder
    from sidecar.settings import make_config

    real = Bm25Store.relink_owed

    def killed(self, namespace):  # the process dies where the pass would index its hubs
        conn = self._db.get()
        if any(relinks.owed(conn, store_name(namespace, p)) for p in (False, True)):
            os._exit(9)
        return real(self, namespace)

    Bm25Store.relink_owed = killed
    vault, data, models = map(Path, sys.argv[1:])
    index = open_index(make_config(vault, data), writer=True,
                       embedder=open_embedder("int8", models, defer=True))
    index.reconcile()
""")


def test_a_pass_killed_before_its_relinks_converges_on_the_next_open(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch,
) -> None:
    vault = _vault(tmp_path / "vault")
    data = tmp_path / "data"
    run = subprocess.run([sys.executable, "-c", KILLED, str(vault), str(data),
                          str(tmp_path / "models")], timeout=300, capture_output=True)
    assert run.returncode == 9, run.stderr.decode()[-2000:]
    index = open_idx(vault, data=data)  # every note was written: the open owes the hubs
    words = [_word(i) for i in range(LINKERS)]
    got = {word: _found(index, word, private=True) for word in words}
    assert got[_word(0)] == {"Links/Link 00.md", "Hub.md", "Target 0.md"}
    index.reconcile()  # nothing left to write
    assert got == {word: _found(index, word, private=True) for word in words}
    index.close()
    monkeypatch.setattr(bm25_module, "VERSION", bm25_engine.VERSION + "; next")
    rebuilt = open_idx(vault, data=data)  # both engines rebuilt from their tables
    assert got == {word: _found(rebuilt, word, private=True) for word in words}


def test_a_note_saved_during_a_long_write_changes_the_notes_it_links_to_at_once(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder,
) -> None:
    # A save applied in the middle of another write's pass (`Index.expedite`) indexes the notes
    # its links name at once, not at the end of that pass.
    vault = tmp_path / "vault"
    write(vault, "Hub.md", note("resource", "# Hub\n\nThe note everything links to."))
    write(vault, "Link.md", note("resource", "# Link\n\nThe zzbefore side of [[Hub]]."))
    seen: list[set[str]] = []  # what the new words find as each embedding slice starts
    box: list[Index] = []

    def hook(call: int) -> None:
        if call == 2:
            write(vault, "Link.md", note("resource", "# Link\n\nThe zzurgent side of [[Hub]]."))
            box[0].expedite(["Link.md"])
        if call >= 2:
            seen.append(_found(box[0], "zzurgent"))

    index = open_idx(vault, emb=Hooked(embedder, hook))
    box.append(index)
    index.reconcile()
    paste = [f"Pasted/Note {n:03d}.md" for n in range(4 * EMBED_SLICE)]
    for n, rel in enumerate(paste):
        write(vault, rel, note("resource", f"# Pasted {n}\n\nPasted note {n} about orbit {n}."))
    index.apply_paths(paste)
    assert seen[0] == set() and {"Link.md", "Hub.md"} in seen[1:-1]
