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
from collections.abc import Iterable
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
    # (A pass over a store already holding a note: a cold one gathers its anchors first.)
    relinked = _spy_relinks(monkeypatch)
    index = open_idx(_vault(tmp_path / "vault"))
    index.apply_paths(["Hub.md"])
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


Held = dict[str, dict[int, tuple[bool, str, str]]]


def _hold(monkeypatch: pytest.MonkeyPatch) -> tuple[Held, list[str]]:
    """What each chunk engine holds, by rowid, as the writes give it (the real engines write
    too), and the stores each document was added to, in order, whatever the generation of their
    engine (a rebuilt one is a folder of a new generation, `<store>.<n>`)."""
    held: Held = {}
    added: list[str] = []
    real_add, real_delete = Bm25Engine.add, Bm25Engine.delete

    def store(engine: Bm25Engine) -> str:  # each generation of the store's engine counts as it
        return re.sub(r"\.\d+$", "", engine.folder.name)

    def add(self: Bm25Engine, docs: list[bm25_engine.Doc]) -> None:
        docs = list(docs)
        held.setdefault(store(self), {}).update((r, (a, body, lang)) for r, a, body, lang in docs)
        added.extend(store(self) for _ in docs)
        real_add(self, docs)

    def delete(self: Bm25Engine, rowids: list[int]) -> None:
        for rowid in rowids:
            held.get(store(self), {}).pop(rowid, None)
        real_delete(self, rowids)

    monkeypatch.setattr(Bm25Engine, "add", add)
    monkeypatch.setattr(Bm25Engine, "delete", delete)
    return held, added


def _chunk_docs(index: Index, held: Held) -> Held:
    """What each chunk engine of the index holds."""
    return {name: dict(held[name])
            for name in (store_name(index.namespace, private) for private in (False, True))}


def _rebuilt(open_idx: OpenIndex, index: Index, monkeypatch: pytest.MonkeyPatch,
             held: Held) -> Held:
    """What each chunk engine holds after both are rebuilt from their tables."""
    index.close()
    held.clear()
    monkeypatch.setattr(bm25_module, "VERSION", bm25_engine.VERSION + "; next")
    return _chunk_docs(open_idx(index.config.vault), held)


def test_a_cold_pass_writes_each_document_once_with_the_anchors_gathered_first(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: half the linked notes of a newest-first cold pass were written before the notes
    # linking to them, and the store was built once more at its end (docs/benchmarks.md).
    held, added = _hold(monkeypatch)
    gathered: list[str] = []
    real = Bm25Store.gather_anchors

    def gather(self: Bm25Store, namespace: str, notes: Iterable[tuple[str, str]]) -> bool:
        return real(self, namespace, ((gathered.append(path), (path, body))[1]
                                      for path, body in notes))

    monkeypatch.setattr(Bm25Store, "gather_anchors", gather)
    index = open_idx(_vault(tmp_path / "vault"))
    added.clear()
    index.reconcile()
    chunks = _chunk_docs(index, held)
    stores = set(chunks)  # each added once: no engine built again (of any generation)
    assert len([name for name in added if name in stores]) == sum(map(len, chunks.values()))
    # Only public notes' words are gathered (the private linker's, and a private target's, never).
    assert "Links/Link 05.md" not in gathered and "Target 3.md" not in gathered
    assert {f"Links/Link {i:02}.md" for i in range(LINKERS) if i != 5} <= set(gathered)
    assert all(_found(index, _word(i)) == {f"Links/Link {i:02}.md", "Hub.md",
                                           f"Target {i % TARGETS}.md"} - {"Target 3.md"}
               for i in range(LINKERS) if i != 5)
    assert _found(index, _word(5)) == set()
    assert _rebuilt(open_idx, index, monkeypatch, held) == chunks


def test_anchors_gathered_for_a_note_the_pass_does_not_write_are_forgotten_at_its_end(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch,
) -> None:
    held, _ = _hold(monkeypatch)
    vault = _vault(tmp_path / "vault")
    real = Bm25Store.gather_anchors

    def gather(self: Bm25Store, namespace: str, notes: Iterable[tuple[str, str]]) -> bool:
        cold = real(self, namespace, notes)
        (vault / "Links/Link 07.md").unlink()  # gone before the pass reaches it
        return cold

    monkeypatch.setattr(Bm25Store, "gather_anchors", gather)
    index = open_idx(vault)
    index.reconcile()
    assert _found(index, _word(7), private=True) == set()
    assert _found(index, _word(8)) == {"Links/Link 08.md", "Hub.md", "Target 0.md"}
    chunks = _chunk_docs(index, held)
    assert _rebuilt(open_idx, index, monkeypatch, held) == chunks


def test_after_passes_and_edits_every_document_equals_a_rebuilds(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch,
) -> None:
    held, _ = _hold(monkeypatch)
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
    assert _rebuilt(open_idx, index, monkeypatch, held) == incremental


def _killed(script: str, vault: Path, data: Path, models: Path) -> None:
    """Run `script` on the vault in a process of its own, which it kills midway (status 9)."""
    run = subprocess.run([sys.executable, "-c", script, str(vault), str(data), str(models)],
                         timeout=300, capture_output=True)
    assert run.returncode == 9, run.stderr.decode()[-2000:]


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
    index.apply_paths(["Hub.md"])  # the pass is not a cold one (that owes nothing)
    index.reconcile()
""")


def test_a_pass_killed_before_its_relinks_converges_on_the_next_open(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch,
) -> None:
    vault = _vault(tmp_path / "vault")
    data = tmp_path / "data"
    _killed(KILLED, vault, data, tmp_path / "models")
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


KILLED_COLD = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from sidecar.index import open_index
    from sidecar.index.bm25 import Bm25Store
    from sidecar.models.embedder import open_embedder
    from sidecar.settings import make_config

    real = Bm25Store.replace
    writes = []

    def killed(self, *args, **kwargs):  # the process dies once a cold pass's first batch is in
        if writes:
            os._exit(9)
        writes.append(1)
        return real(self, *args, **kwargs)

    Bm25Store.replace = killed
    vault, data, models = map(Path, sys.argv[1:])
    index = open_index(make_config(vault, data), writer=True,
                       embedder=open_embedder("int8", models, defer=True))
    index.reconcile()
""")


def test_a_cold_pass_killed_midway_converges_on_the_next_open(
    tmp_path: Path, open_idx: OpenIndex, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The notes of its first batch were written with the anchors gathered for the whole vault:
    # those of the notes it never wrote are forgotten on the next open, as a rebuild has none.
    vault = _vault(tmp_path / "vault")
    data = tmp_path / "data"
    _killed(KILLED_COLD, vault, data, tmp_path / "models")
    index = open_idx(vault, data=data)
    words = [_word(i) for i in range(LINKERS)]
    written = {word for word in words if _found(index, word, private=True) - {
        "Hub.md", *(f"Target {k}.md" for k in range(TARGETS))}}
    assert 0 < len(written) < LINKERS
    assert all(_found(index, word, private=True) == set() for word in words
               if word not in written)  # the hub's document lost the words never written
    index.reconcile()
    got = {word: _found(index, word, private=True) for word in words}
    assert got[_word(0)] == {"Links/Link 00.md", "Hub.md", "Target 0.md"}
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
