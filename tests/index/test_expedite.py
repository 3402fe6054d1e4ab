"""`Index.expedite`: paths asked for during a long write are applied at its next embedding
slice when they embed nothing (a private flip), ahead of the rest of the write (issue 10 #6)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sidecar.index.embed_pass import EMBED_SLICE
from sidecar.models.embedder import Embedder

from .conftest import OpenIndex, note, write

FLIP = "Engrams/Flip.md"


def wait_for(done: Callable[[], bool], seconds: float = 10.0) -> None:
    """Until `done()`, or `seconds` have passed."""
    end = time.monotonic() + seconds
    while not done() and time.monotonic() < end:
        time.sleep(0.01)


class Hooked:
    """The real embedder; `hook` runs before every embed call (in the writer's thread)."""

    def __init__(self, inner: Embedder, hook: Callable[[int], None]) -> None:
        self.inner, self.hook, self.calls = inner, hook, 0
        self.model_id, self.tokenizer, self.dim = inner.model_id, inner.tokenizer, inner.dim

    def embed(self, texts: Sequence[str]) -> Any:
        self.calls += 1
        self.hook(self.calls)
        return self.inner.embed(texts)


def test_a_private_flip_is_applied_between_the_slices_of_a_long_write(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    root = tmp_path / "v"
    write(root, FLIP, note("engram", "# Flip\n\nThe flipped note's own words."))
    seen: list[bool] = []  # the flip's ledger privacy as each embedding slice starts
    index_box: list[Any] = []

    def hook(call: int) -> None:
        index = index_box[0]
        if call == 2:  # the user tags the note private while the paste is being embedded
            write(root, FLIP, note("engram", "# Flip\n\nThe flipped note's own words.",
                                   tags=["private"]))
            index.expedite([FLIP])
        if call > 2:  # the writer's thread polls while this slice waits: a loaded machine's may
            # not have run yet, and the slices of a fast model can all end within one poll
            wait_for(lambda: index.ledger.rows(index.namespace, [FLIP])[FLIP].private)
        if call >= 2:
            seen.append(index.ledger.rows(index.namespace, [FLIP])[FLIP].private)

    hooked = Hooked(embedder, hook)
    index = open_idx(root, emb=hooked)
    index_box.append(index)
    index.reconcile()
    paste = [f"Pasted/Note {n:03d}.md" for n in range(4 * EMBED_SLICE)]
    for n, rel in enumerate(paste):
        write(root, rel, note("engram", f"# Pasted {n}\n\nPasted note number {n} about orbit {n}."))
    result = index.apply_paths(paste)
    assert seen[0] is False and seen[-1] is True  # flipped before the paste's last slice
    assert result["embedded"] == len(paste)  # the flip itself embedded nothing
    assert index.bm25_search("flipped", 5, private=False) == []
    assert len(index.bm25_search("flipped", 5, private=True)) == 1
    assert index.stats()["files"] == len(paste) + 1


def test_a_note_made_private_while_its_own_batch_is_embedded_is_not_written_public(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    root = tmp_path / "v"
    paste = [f"Pasted/Note {n:03d}.md" for n in range(2 * EMBED_SLICE)]
    flip = paste[0]  # in the first batch, embedded while the second is planned
    body = "# Flip\n\nThe flipped note's own words."
    index_box: list[Any] = []

    def hook(call: int) -> None:  # on the embedding thread, before the first batch's vectors
        if call == 1:
            write(root, flip, note("engram", body, tags=["private"]))
            index_box[0].expedite([flip])  # it needs embedding: left to the caller's apply

    index = open_idx(root, emb=Hooked(embedder, hook))
    index_box.append(index)
    index.reconcile()
    for n, rel in enumerate(paste[1:], 1):
        write(root, rel, note("engram", f"# Pasted {n}\n\nPasted note number {n} about orbit {n}."))
    write(root, flip, note("engram", body))
    index.apply_paths(paste)
    assert index.bm25_search("flipped", 5, private=False) == []  # its plan was made public
    index.apply_paths([flip])  # the caller's own apply of the path it asked for
    assert index.bm25_search("flipped", 5, private=False) == []
    assert len(index.bm25_search("flipped", 5, private=True)) == 1
