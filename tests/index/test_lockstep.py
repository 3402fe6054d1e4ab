"""The index follows every kind of vault change, embedding only text it has not embedded before."""

from __future__ import annotations

import copy
import os
from pathlib import Path

from sidecar.index import Index, open_index
from sidecar.models.embedder import Embedder
from sidecar.settings import make_config

from .conftest import FERMENT, KETTLE, SPACED, OpenIndex, note, write


def _bm25_paths(index: Index, query: str, *, private: bool = False) -> set[str]:
    hits = index.bm25_search(query, 10, private=private)
    return {r.path for r in index.get_chunks([h[0] for h in hits], private=True).values()}


def _dense_paths(
    index: Index, embedder: Embedder, query: str, *, private: bool = False
) -> set[str]:
    hits = index.dense_search(embedder.embed([query])[0], 10, private=private)
    return {r.path for r in index.get_chunks([h[0] for h in hits], private=True).values()}


def test_first_reconcile_indexes_retrievable_notes_and_tracks_all(
    vault: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    index = open_idx(vault)
    result = index.reconcile()
    assert result["files"] == 4  # the matrix note is tracked too
    assert result["chunks"] == result["embedded"] > 0
    assert result["removed"] == 0 and result["errors"] == []
    assert _bm25_paths(index, "limescale") == {"Engrams/Kettle.md"}
    assert "Engrams/Kettle.md" in _dense_paths(index, embedder, "remove limescale from a kettle")
    assert "Matrices/Home.md" not in _bm25_paths(index, "links everything")


def test_reconcile_of_an_unchanged_vault_embeds_nothing(vault: Path, open_idx: OpenIndex) -> None:
    index = open_idx(vault)
    first = index.reconcile()
    again = index.reconcile()
    assert (again["embedded"], again["removed"]) == (0, 0)
    assert (again["files"], again["chunks"]) == (first["files"], first["chunks"])


def test_body_edit_embeds_only_the_changed_chunk(vault: Path, open_idx: OpenIndex) -> None:
    index = open_idx(vault)
    index.reconcile()
    edited = SPACED.replace("strengthens the memory trace", "consolidates the engram quokka")
    write(vault, "Engrams/Spaced repetition.md", edited)
    result = index.reconcile()
    assert result["embedded"] == 1
    assert _bm25_paths(index, "quokka") == {"Engrams/Spaced repetition.md"}
    assert _bm25_paths(index, "trace") == set()


def test_tag_only_edit_embeds_nothing_and_updates_metadata(
    vault: Path, open_idx: OpenIndex
) -> None:
    index = open_idx(vault)
    index.reconcile()
    write(vault, "Engrams/Kettle.md", KETTLE.replace("tags: []", 'tags: ["health"]'))
    result = index.reconcile()
    assert result["embedded"] == 0
    hits = index.bm25_search("limescale", 5, private=False)
    (record,) = index.get_chunks([h[0] for h in hits], private=False).values()
    assert record.tags == ("health",)


def test_archived_chunks_are_filtered_inside_the_stores(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    root = tmp_path / "v"
    for i in range(6):
        tags = ["archived"] if i < 3 else []
        write(root, f"Engrams/Tea {i}.md", note("engram", f"Green tea brewing note {i}.", tags))
    index = open_idx(root)
    index.reconcile()
    vector = embedder.embed(["brewing green tea"])[0]
    dense = index.dense_search(vector, 3, private=False)
    sparse = index.bm25_search("green tea", 3, private=False)
    for hits in (dense, sparse):
        assert len(hits) == 3  # k results even though half the matches are archived
        paths = {r.path for r in index.get_chunks([h[0] for h in hits], private=False).values()}
        assert paths == {f"Engrams/Tea {i}.md" for i in (3, 4, 5)}
    assert len(index.dense_search(vector, 6, private=False, include_archived=True)) == 6
    assert len(index.bm25_search("green tea", 6, private=False, include_archived=True)) == 6


def test_moving_a_note_to_another_folder_embeds_nothing(vault: Path, open_idx: OpenIndex) -> None:
    index = open_idx(vault)
    before = index.reconcile()
    (vault / "Archive").mkdir()
    (vault / "Engrams/Kettle.md").rename(vault / "Archive/Kettle.md")
    result = index.reconcile()
    assert result["embedded"] == 0
    assert result["chunks"] == before["chunks"]
    assert _bm25_paths(index, "limescale") == {"Archive/Kettle.md"}


def test_renamed_event_moves_chunks_without_embedding(vault: Path, open_idx: OpenIndex) -> None:
    index = open_idx(vault)
    index.reconcile()
    (vault / "Archive").mkdir()
    (vault / "Resources/Sourdough.md").rename(vault / "Archive/Sourdough.md")
    event = {
        "kind": "renamed",
        "path": "Archive/Sourdough.md",
        "old_path": "Resources/Sourdough.md",
    }
    result = index.apply_events([event])
    assert (result["accepted"], result["deduplicated"], result["embedded"]) == (1, 0, 0)
    assert _bm25_paths(index, "starter ferments") == {"Archive/Sourdough.md"}


def test_renaming_a_note_with_an_h1_embeds_nothing(vault: Path, open_idx: OpenIndex) -> None:
    """The H1 is the title the chunks embed, so a new file name changes no embedded text."""
    index = open_idx(vault)
    index.reconcile()
    (vault / "Engrams/Kettle.md").rename(vault / "Engrams/Descaling.md")
    result = index.reconcile()
    assert result["embedded"] == 0
    assert _bm25_paths(index, "limescale") == {"Engrams/Descaling.md"}


def test_renaming_a_note_without_h1_reembeds_because_its_file_name_is_its_title(
    vault: Path, open_idx: OpenIndex
) -> None:
    write(vault, "Engrams/Untitled.md", note("engram", "Vinegar also cleans a coffee machine."))
    index = open_idx(vault)
    index.reconcile()
    (vault / "Engrams/Untitled.md").rename(vault / "Engrams/Coffee machine.md")
    result = index.reconcile()
    assert result["embedded"] == 1
    assert _bm25_paths(index, "vinegar coffee") >= {"Engrams/Coffee machine.md"}


def test_deleting_a_note_removes_its_chunks(vault: Path, open_idx: OpenIndex) -> None:
    index = open_idx(vault)
    before = index.reconcile()
    (vault / "Engrams/Spaced repetition.md").unlink()
    result = index.reconcile()
    assert result["files"] == before["files"] - 1
    assert result["removed"] == before["chunks"] - result["chunks"] > 0
    assert _bm25_paths(index, "retention") == set()


def test_private_tag_moves_chunks_to_the_private_store_without_embedding(
    vault: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    index = open_idx(vault)
    index.reconcile()
    write(vault, "Engrams/Kettle.md", KETTLE.replace("tags: []", 'tags: ["private"]'))
    result = index.reconcile()
    assert result["embedded"] == 0
    assert _bm25_paths(index, "limescale") == set()
    assert _bm25_paths(index, "limescale", private=True) == {"Engrams/Kettle.md"}
    query = "remove limescale from a kettle"
    assert "Engrams/Kettle.md" not in _dense_paths(index, embedder, query)
    assert "Engrams/Kettle.md" in _dense_paths(index, embedder, query, private=True)
    assert index.chroma.count(index.namespace, True) == 1
    hits = index.bm25_search("limescale", 5, private=True)
    assert index.get_chunks([h[0] for h in hits], private=False) == {}
    (record,) = index.get_chunks([h[0] for h in hits], private=True).values()
    assert record.private

    write(vault, "Engrams/Kettle.md", KETTLE)
    result = index.reconcile()
    # public again: embedded in a call of public texts, never taken from the private store
    # (tests/index/test_private_vector_reuse.py)
    assert result["embedded"] == 1
    assert _bm25_paths(index, "limescale") == {"Engrams/Kettle.md"}
    assert index.chroma.count(index.namespace, True) == 0
    assert index.bm25.count(index.namespace, True) == 0


def test_model_change_reembeds_everything(vault: Path, tmp_path: Path, embedder: Embedder) -> None:
    config = make_config(vault, tmp_path / "data")
    with open_index(config, embedder=embedder) as index:
        first = index.reconcile()
    other = copy.copy(embedder)  # the same weights under another id: a different model to the index
    other.model_id = embedder.model_id + ":other"
    with open_index(config, embedder=other) as index:
        result = index.reconcile()
        assert (result["embedded"], result["chunks"]) == (first["chunks"], first["chunks"])
    with open_index(config, embedder=other) as index:
        assert index.reconcile()["embedded"] == 0


def test_other_edits_never_reembed_unchanged_notes(vault: Path, open_idx: OpenIndex) -> None:
    index = open_idx(vault)
    index.reconcile()
    write(vault, "Resources/Sourdough.md", FERMENT.replace("wild yeast", "wild yeast and bacteria"))
    write(vault, "Engrams/New.md", note("engram", "A brand new idea about kites."))
    result = index.reconcile()
    assert result["embedded"] == 2


def test_events_for_unchanged_or_unknown_files_are_deduplicated(
    vault: Path, open_idx: OpenIndex
) -> None:
    index = open_idx(vault)
    index.reconcile()
    write(vault, "Engrams/Kettle.md", KETTLE.replace("Vinegar", "Citric acid"))
    events = [
        {"kind": "modified", "path": "Engrams/Spaced repetition.md"},
        {"kind": "deleted", "path": "Engrams/Never existed.md"},
        {"kind": "modified", "path": "Engrams/Kettle.md"},
    ]
    result = index.apply_events(events)
    assert (result["accepted"], result["deduplicated"], result["embedded"]) == (1, 2, 1)
    again = index.apply_events(events)
    assert (again["accepted"], again["deduplicated"]) == (0, 3)


def test_get_chunks_accepts_repeated_ids(vault: Path, open_idx: OpenIndex) -> None:
    index = open_idx(vault)
    index.reconcile()
    (cid, _score), *_ = index.bm25_search("limescale", 5, private=False)
    assert list(index.get_chunks([cid, cid, "unknown"], private=True)) == [cid]


def test_removed_properties_leave_the_stored_metadata(tmp_path: Path, open_idx: OpenIndex) -> None:
    root = tmp_path / "v"
    rich = note("web", "Kites fly on steady wind.", ["learning"], subtype="fact", cluster="kites",
                source_file="kites.pdf")  # fmt: skip
    write(root, "Web/Kites.md", rich)
    index = open_idx(root)
    index.reconcile()
    write(root, "Web/Kites.md", note("web", "Kites fly on steady wind."))
    assert index.reconcile()["embedded"] == 0
    (cid, _), *_ = index.bm25_search("kites", 5, private=False)
    record = index.get_chunks([cid], private=False)[cid]
    assert (record.tags, record.subtype) == ((), None)
    assert record.cluster is not None and record.cluster.startswith("auto:")
    _doc, meta = index.chroma.get(index.namespace, False, [cid])[cid]
    assert "source_file" not in meta


def test_a_touched_undated_note_gets_its_new_mtime_as_date(
    vault: Path, open_idx: OpenIndex
) -> None:
    index = open_idx(vault)
    index.reconcile()
    os.utime(vault / "Engrams/Kettle.md", (2_000_000_000, 2_000_000_000))
    assert index.reconcile()["embedded"] == 0
    (cid, _), *_ = index.bm25_search("limescale", 5, private=False)
    assert index.get_chunks([cid], private=False)[cid].date == "2033-05-18T03:33:20"
