"""Searches run while the writer works; a rebuild from nothing gives the same index."""

from __future__ import annotations

import threading
from pathlib import Path

from sidecar.index import Index
from sidecar.models.embedder import Embedder

from .conftest import OpenIndex, note, write

TOPICS = ["kettle limescale", "green tea", "sourdough starter", "bicycle chain", "tax return"]


def _vault(root: Path, n: int) -> None:
    for i in range(n):
        topic = TOPICS[i % len(TOPICS)]
        tags = ["private"] if i % 7 == 0 else ["archived"] if i % 11 == 0 else []
        body = f"# Note {i}\n\nThoughts on {topic}, part {i}.\n\n## More\n\nDetails about {topic}."
        write(root, f"Engrams/Note {i}.md", note("engram", body, tags))


def _snapshot(index: Index, embedder: Embedder) -> dict[str, object]:
    out: dict[str, object] = {}
    for topic in TOPICS:
        for private in (False, True):
            vector = embedder.embed([topic])[0]
            dense = index.dense_search(vector, 8, private=private, include_archived=True)
            sparse = index.bm25_search(topic, 8, private=private)
            out[f"{topic}/{private}"] = ([d[0] for d in dense], [s[0] for s in sparse])
    out["chroma"] = {p: index.chroma.ids(index.namespace, p) for p in (False, True)}
    out["bm25"] = {p: index.bm25.ids(index.namespace, p) for p in (False, True)}
    return out


def test_readers_search_while_the_writer_reconciles(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    root = tmp_path / "v"
    _vault(root, 40)
    index = open_idx(root)
    vector = embedder.embed(["green tea"])[0]
    failures: list[BaseException] = []
    done = threading.Event()
    # Each reader's own counts: one reader's count read before another's may be appended after
    # it, so a shared list is out of order without any reader seeing uncommitted progress.
    counts: list[list[int]] = [[], [], []]

    def reader(seen: list[int]) -> None:
        while not done.is_set():
            try:
                ids = [h[0] for h in index.dense_search(vector, 5, private=True)]
                ids += [h[0] for h in index.bm25_search("green tea", 5, private=False)]
                index.get_chunks(ids, private=True)
                seen.append(index.stats()["chunks"])
            except BaseException as exc:  # any error in a reader fails the test
                failures.append(exc)
                return

    threads = [threading.Thread(target=reader, args=(seen,)) for seen in counts]
    for t in threads:
        t.start()
    try:
        result = index.reconcile()
    finally:
        done.set()
        for t in threads:
            t.join()
    assert failures == []
    assert all(seen and seen == sorted(seen) for seen in counts)  # only committed progress
    assert result["chunks"] == 80


def test_rebuilding_from_nothing_gives_the_same_index(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    root = tmp_path / "v"
    _vault(root, 25)
    first = open_idx(root)
    first.reconcile()
    write(root, "Engrams/Note 3.md", note("engram", "Rewritten: green tea again.", ["private"]))
    (root / "Engrams/Note 4.md").unlink()
    first.reconcile()
    fresh = open_idx(root, data=tmp_path / "fresh")
    fresh.reconcile()
    assert _snapshot(first, embedder) == _snapshot(fresh, embedder)
    rebuilt = first.rebuild()
    assert rebuilt["embedded"] == rebuilt["chunks"]
    assert _snapshot(first, embedder) == _snapshot(fresh, embedder)
