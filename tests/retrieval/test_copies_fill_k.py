"""Copies count once, yet k is filled: a daily template's task list and log line, stamped into
every day, neither leave a search short of k distinct texts nor make a related list shorter as
k grows, nor hide the days that hold them behind one result."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from sidecar.index import Index, open_index
from sidecar.models.embedder import Embedder
from sidecar.retrieval.copies import copy_key
from sidecar.retrieval.fusion import fusion_settings
from sidecar.retrieval.related import RelatedOptions, related
from sidecar.settings import make_config
from tests.notes import write_notes

from .conftest import SearchVault

MOODS = ["tired", "cheerful", "anxious", "calm", "focused"]
WEATHER = ["rainy", "sunny", "foggy", "windy", "snowy"]
DAYS = 14
OTHERS = {
    "Notes/Dup A.md": "# Weekly review checklist\n\n- [ ] Clear inbox\n- [ ] Review calendar\n",
    "Notes/Dup B.md": "# Weekly review checklist\n\n- [ ] Clear inbox\n- [ ] Review calendar\n",
    "Recipes/Shakshuka.md": "# Shakshuka\n\nEggs poached in a spiced tomato sauce.\n",
    "Projects/Garden.md": "# Garden plan\n\nRaised beds for tomatoes and basil by May.\n",
}


def _daily_notes() -> dict[str, str]:
    """Days from one template: a distinct heading and mood, the same tasks and log line."""
    out = {}
    for i in range(DAYS):
        day = dt.date(2024, 3, 1) + dt.timedelta(days=i)
        out[f"Daily/{day.isoformat()}.md"] = (
            f"# {day.strftime('%A %d %B %Y')}\n\nMood:: {MOODS[i % 5]}\n"
            f"Weather:: {WEATHER[i * 3 % 5]}\n\n## Tasks\n- [ ] Water the plants\n"
            "- [ ] Check inbox\n- [x] Stretch for ten minutes\n\n## Log\n"
            "Nothing else notable today.\n")
    return out


@pytest.fixture
def template_vault(tmp_path: Path, embedder: Embedder) -> Iterator[tuple[Path, Index]]:
    vault = tmp_path / "vault"
    write_notes(vault, {**_daily_notes(), **OTHERS})
    index = open_index(make_config(vault), writer=True, embedder=embedder)
    index.reconcile()
    yield vault, index
    index.close()


async def test_a_larger_k_never_gives_fewer_related_notes_and_copies_hide_none(
    template_vault: tuple[Path, Index], embedder: Embedder
) -> None:
    _vault, index = template_vault
    # every note but the one related to, Dup A and Dup B (one text, whole) counting once
    notes = DAYS + len(OTHERS) - 2
    found = {k: (await related(index, embedder, "Daily/2024-03-04.md", RelatedOptions(k=k)))
             ["results"] for k in (3, 5, 10, 20, 40)}
    for k, results in found.items():
        paths = [r["path"] for r in results]
        assert len(paths) == min(k, notes), k
        assert len(set(paths)) == len(paths)
        # a note is listed once: a result is never also named among another's copies
        assert not {p for r in results for p in r["duplicates"]} & set(paths)
    # At the largest k every other note is listed, the days beside the shared task list too.
    listed = {p for r in found[40] for p in [r["path"], *r["duplicates"]]}
    assert listed == (set(_daily_notes()) | set(OTHERS)) - {"Daily/2024-03-04.md"}


async def test_related_to_a_note_copied_whole_fills_k(
    template_vault: tuple[Path, Index], embedder: Embedder
) -> None:
    _vault, index = template_vault
    results = (await related(index, embedder, "Notes/Dup A.md", RelatedOptions(k=5)))["results"]
    assert len(results) == 5 and results[0]["path"] == "Notes/Dup B.md"


async def test_search_fills_k_with_distinct_texts_when_copies_collapse(
    template_vault: tuple[Path, Index], embedder: Embedder
) -> None:
    vault, index = template_vault
    # A pool as small as the vault's copies: collapsing them inside it left fewer than k.
    fusion = replace(fusion_settings(embedder.model_id), pool=10)
    search = SearchVault(make_config(vault), index, embedder).search
    for k in (5, 10, 15):
        results = (await search("daily tasks water plants check inbox nothing notable",
                                k=k, rerank=False, fusion=fusion))["results"]
        assert len(results) == k, k
        assert len({copy_key(str(r["text"])) for r in results}) == k


async def test_what_a_caller_leaves_out_is_left_out_before_the_top_k_and_k_is_still_filled(
    template_vault: tuple[Path, Index], embedder: Embedder
) -> None:
    vault, index = template_vault
    # The days fill a pool of 10; leaving them out, the deeper passes find the other notes.
    fusion = replace(fusion_settings(embedder.model_id), pool=10)
    search = SearchVault(make_config(vault), index, embedder).search
    results = (await search("daily tasks water plants check inbox nothing notable", k=3,
                            rerank=False, fusion=fusion,
                            leave_out=lambda chunk: chunk.path.startswith("Daily/")))["results"]
    paths = {r["path"] for r in results}  # Dup A and Dup B are one text: one of them
    assert len(results) == 3 and paths - {"Notes/Dup A.md", "Notes/Dup B.md"} == {
        "Recipes/Shakshuka.md", "Projects/Garden.md"}
    assert not [p for r in results for p in r["duplicates"] if p.startswith("Daily/")]
