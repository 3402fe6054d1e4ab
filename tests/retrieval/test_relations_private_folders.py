"""Relationships never name a note private by where it lies (ora.yaml `private:` folders)
outside private mode, exactly as they never name a `#private` one: not as a target, not as the
note superseding a result. They follow ora.yaml when it changes (the note's hash does not)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sidecar.index import Index, open_index
from sidecar.models.embedder import Embedder
from sidecar.retrieval.relations import search_related
from sidecar.retrieval.search import SearchOptions
from sidecar.settings import make_config

from .conftest import NoteSpec, write_vault

GARDEN, BLOOD, THERAPY = "Notes/Public gardening.md", "Health/Bloodwork.md", "Health/Therapy.md"
NOTES = [
    NoteSpec(GARDEN, "resource", "# Public gardening\n\nTomatoes need deep watering in summer.",
             extra={"relationships": {"supports": ["[[Bloodwork]]"]}}),
    NoteSpec(BLOOD, "resource", "# Bloodwork\n\nMy ferritin was low in March."),
    NoteSpec(THERAPY, "resource", "# Therapy\n\nWatering the tomatoes calms me down.",
             extra={"relationships": {"supersedes": ["[[Public gardening]]"]}}),
]
QUERY = "watering tomatoes in summer"


@pytest.fixture
def index(tmp_path: Path, embedder: Embedder) -> Iterator[Index]:
    vault = tmp_path / "vault"
    vault.mkdir()
    write_vault(vault, NOTES)
    (vault / "ora.yaml").write_text("private:\n  - Health/\n", encoding="utf-8")
    opened = open_index(make_config(vault, tmp_path / "data"), writer=True, embedder=embedder)
    opened.reconcile()
    yield opened
    opened.close()


async def _garden(index: Index, embedder: Embedder, private: bool) -> dict:
    doc = await search_related(index, embedder, None, QUERY,
                               SearchOptions(k=5, rerank=False, private=private), expand=True)
    assert "Bloodwork" not in str(doc) or private
    return next(r for r in doc["results"] if r["path"] == GARDEN)


async def test_a_folder_private_note_is_named_by_no_public_result(
    index: Index, embedder: Embedder
) -> None:
    public = await _garden(index, embedder, False)
    assert public["relationships"] == {}
    assert "superseded" not in public["flags"] and "superseded_by" not in public
    private = await _garden(index, embedder, True)
    assert private["relationships"] == {"supports": [BLOOD]}
    assert "superseded" in private["flags"] and private["superseded_by"] == ["[[Health/Therapy]]"]


async def test_relationships_follow_the_private_folders(index: Index, embedder: Embedder) -> None:
    await _garden(index, embedder, False)  # the graph is read while Health/ is private
    (index.config.vault / "ora.yaml").write_text("private: []\n", encoding="utf-8")
    index.reconcile()
    doc = await search_related(index, embedder, None, QUERY,
                               SearchOptions(k=5, rerank=False))
    public = next(r for r in doc["results"] if r["path"] == GARDEN)
    assert public["relationships"] == {"supports": [BLOOD]}
    assert public["superseded_by"] == ["[[Health/Therapy]]"]
    (index.config.vault / "ora.yaml").write_text("private: [Health/]\n", encoding="utf-8")
    index.reconcile()
    public = await _garden(index, embedder, False)
    assert public["relationships"] == {} and "superseded_by" not in public
