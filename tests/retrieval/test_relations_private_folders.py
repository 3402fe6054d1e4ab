"""Relationships never name a note private by where it lies (ora.yaml `private:` folders)
outside private mode, exactly as they never name a `#private` one: not as a target, not as the
note superseding a result. They follow ora.yaml when it changes (the note's hash does not)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sidecar.index import Index, open_index
from sidecar.models.embedder import Embedder
from sidecar.retrieval.private_now import PrivatePaths
from sidecar.retrieval.relations import RelationGraph, search_related
from sidecar.retrieval.search import SearchOptions
from sidecar.settings import make_config
from tests.settled_save import settle

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
    # it drops `Health/`: trusted only once settled (a save read halfway drops it too)
    settle(index.config.vault / "ora.yaml")
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


PUBLIC_PLAN = "Zed/long-public-name.md"
LINKS_PLAN = "a.md"


def _plan_graph(tmp_path: Path, private_note: str, text: str) -> RelationGraph:
    vault, data = tmp_path / "vault", tmp_path / "data"
    for rel, body in [(private_note, text), (LINKS_PLAN, (
            '---\nrelationships:\n  supports: ["[[Plan]]"]\n---\nlinks\n')),
            (PUBLIC_PLAN, "---\naliases: [Plan]\n---\npublic plan\n")]:
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(body, encoding="utf-8")
    data.mkdir()
    return RelationGraph(data, vault, "default", 10**6)


@pytest.mark.parametrize(("private_note", "text"), [
    ("Health/x.md", "---\naliases: [Plan]\n---\nsecret\n"),  # private by folder, by alias
    ("Plan.md", "#private secret\n"),  # private by tag, by its file name
], ids=["folder-private-alias", "tag-private-file-name"])
def test_a_private_note_takes_no_name_from_a_public_one(
    tmp_path: Path, private_note: str, text: str,
) -> None:
    # Before: outside private mode "Plan" still resolved to the private note, and the public
    # relationship vanished only while that note existed.
    graph = _plan_graph(tmp_path, private_note, text)
    health: PrivatePaths = lambda path: path.startswith("Health/")  # noqa: E731
    hashes = {p: "h" + p for p in (private_note, PUBLIC_PLAN, LINKS_PLAN)}
    graph.refresh(hashes, health)
    assert graph.outgoing(LINKS_PLAN, private=False) == {"supports": [PUBLIC_PLAN]}
    assert graph.outgoing(LINKS_PLAN, private=True) == {"supports": [private_note]}
    graph.close()


def test_the_public_names_follow_a_new_private_folder(tmp_path: Path) -> None:
    graph = _plan_graph(tmp_path, "Health/x.md", "---\naliases: [Plan]\n---\nsecret\n")
    hashes = {p: "h" + p for p in ("Health/x.md", PUBLIC_PLAN, LINKS_PLAN)}
    graph.refresh(hashes, lambda path: False)  # Health/ not private yet
    assert graph.outgoing(LINKS_PLAN, private=False) == {"supports": ["Health/x.md"]}
    graph.refresh(hashes, lambda path: path.startswith("Health/"))  # ora.yaml changed
    assert graph.outgoing(LINKS_PLAN, private=False) == {"supports": [PUBLIC_PLAN]}
    graph.close()
