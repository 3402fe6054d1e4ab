"""Notes tagged private in a batch leave non-private answers as soon as their change is seen,
before the index has moved their vectors one note at a time (`index/flips.py`); private mode
still finds them, flagged private. A hold ends only with a write that began after it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sidecar.index import flips
from sidecar.models.embedder import Embedder
from sidecar.retrieval.search import SearchOptions, search
from sidecar.vault.vault_settings import load_vault_settings

from .conftest import OpenIndex, note, write

NOTES = {f"Journal/Day {n}.md": f"# Day {n}\n\nWalked the heron marsh at dawn, day {n}."
         for n in range(6)}


def _found(index: object, embedder: Embedder, *, private: bool) -> dict[str, bool]:
    document = asyncio.run(search(index, embedder, None, "heron marsh dawn",  # type: ignore[arg-type]
                                  SearchOptions(k=20, rerank=False, private=private)))
    return {r["path"]: r["private"] for r in document["results"] if r["path"] in NOTES}


def test_notes_tagged_private_leave_non_private_search_before_they_are_applied(
    vault: Path, open_idx: OpenIndex, embedder: Embedder,
) -> None:
    for rel, body in NOTES.items():
        write(vault, rel, note("resource", body))
    index = open_idx(vault)
    index.reconcile()
    tagged = sorted(NOTES)[:4]
    for rel in tagged:  # as a tag renamed across the vault saves them
        write(vault, rel, note("resource", NOTES[rel] + " #private"))
    write(vault, sorted(NOTES)[4], note("resource", NOTES[sorted(NOTES)[4]] + " Edited."))

    # Before: findable outside private mode until each note's vectors had moved.
    index.hold_flips([*NOTES, "Papers/Report.pdf"])
    assert set(_found(index, embedder, private=False)) == set(NOTES) - set(tagged)
    seen = _found(index, embedder, private=True)
    assert set(seen) == set(NOTES) and all(seen[rel] for rel in tagged)

    index.apply_paths(NOTES)
    assert flips.held_private(vault) is None  # filed private now, by the index itself
    assert set(_found(index, embedder, private=False)) == set(NOTES) - set(tagged)


def test_a_hold_placed_while_a_write_runs_outlives_that_write(tmp_path: Path) -> None:
    for name in ("Later.md", "Earlier.md"):
        (tmp_path / name).write_text("Words. #private\n", encoding="utf-8")
    settings = load_vault_settings(tmp_path, None)

    def held() -> set[str]:
        still = flips.held_private(tmp_path)
        return set() if still is None else {n for n in ("Later.md", "Earlier.md") if still(n)}

    began = flips.sequence()  # a write begins, and may read the note before its change
    flips.hold(tmp_path, ["Later.md"], settings, 10_000)
    flips.hold(tmp_path, ["Earlier.md"], settings, 10_000)
    flips.release(tmp_path, ["Later.md", "Earlier.md"], before=began)
    assert held() == {"Later.md", "Earlier.md"}
    flips.release(tmp_path, ["Later.md"], before=flips.sequence())  # a write that began after
    assert held() == {"Earlier.md"}
    flips.release(tmp_path, ["Earlier.md"], before=flips.sequence())
    assert held() == set()


def test_a_held_note_made_public_again_is_not_hidden_any_more(tmp_path: Path) -> None:
    # Before: it stayed hidden until the index applied it (a contradiction pair flagged on it
    # was missing from the list, which reads the note as it is now).
    note = tmp_path / "Flip.md"
    note.write_text("Words. #private\n", encoding="utf-8")
    flips.hold(tmp_path, ["Flip.md"], load_vault_settings(tmp_path, None), 10_000)
    still = flips.held_private(tmp_path)
    assert still is not None and still("Flip.md")
    note.write_text("Words, public again, and longer.\n", encoding="utf-8")
    assert not still("Flip.md")
