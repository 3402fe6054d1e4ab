"""`search()` itself follows the vault's settings as they are now (`private_now.py`), for every
caller, not only those that set `private_now`: outside private mode a note of a folder just made
private is left out; in private mode it is found, flagged private."""

from __future__ import annotations

from sidecar.models.embedder import Embedder
from sidecar.retrieval.related import RelatedOptions, related
from sidecar.retrieval.search import SearchOptions, search, search_sync

from .conftest import IndexVault, NoteSpec

NOTES = [
    NoteSpec("Health/Bloodwork.md", "resource", "# Bloodwork\n\nMy ferritin was low in March."),
    NoteSpec("Notes/Iron.md", "resource", "# Iron\n\nFerritin stores iron; low ferritin tires."),
]


def _made_private(index_vault: IndexVault) -> IndexVault:
    vault = index_vault(NOTES)
    (vault.config.vault / "ora.yaml").write_text("private: [Health/]\n", encoding="utf-8")
    return vault


def test_a_direct_search_leaves_out_a_folder_just_made_private(
    index_vault: IndexVault, embedder: Embedder,
) -> None:
    vault = _made_private(index_vault)
    document = search_sync(vault.index, embedder, None, "ferritin", SearchOptions(rerank=False))
    assert [r["path"] for r in document["results"]] == ["Notes/Iron.md"]


async def test_in_private_mode_a_note_of_a_folder_just_made_private_is_flagged_private(
    index_vault: IndexVault, embedder: Embedder,
) -> None:
    vault = _made_private(index_vault)
    document = await search(vault.index, embedder, None, "ferritin",
                            SearchOptions(rerank=False, private=True))
    flags = {r["path"]: r["private"] for r in document["results"]}
    assert flags == {"Health/Bloodwork.md": True, "Notes/Iron.md": False}
    near = await related(vault.index, embedder, "Notes/Iron.md", RelatedOptions(private=True))
    assert [(r["path"], r["private"]) for r in near["results"]] == [
        ("Health/Bloodwork.md", True)]
