"""Related results list their note's relationships as search results do (docs/http-api.md,
"Related document": "as a search result"), a private note named in private mode only."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sidecar.cli import main
from sidecar.retrieval.related import RelatedOptions, related

from .conftest import IndexVault, NoteSpec, SearchVault

SOURCE = "Engrams/Tea.md"
GREEN = "Engrams/Green tea.md"
OOLONG = "Engrams/Oolong.md"
SECRET = "Engrams/Tea diary.md"

NOTES = [
    NoteSpec(SOURCE, "engram", "# Tea\n\nSteeping green tea at 80 degrees keeps it sweet."),
    NoteSpec(GREEN, "engram", "# Green tea\n\nGreen tea steeped at 80 degrees stays sweet.",
             extra={"relationships": {"extends": ["[[Oolong]]"],
                                      "qualifies": ["[[Tea diary]]"]}}),
    NoteSpec(OOLONG, "engram", "# Oolong\n\nOolong tea is steeped hotter than green tea."),
    NoteSpec(SECRET, "engram", "# Tea diary\n\nMy private green tea steeping ritual.",
             tags=["private"]),
]


async def _results(vault: SearchVault, *, private: bool) -> dict[str, dict[str, Any]]:
    document = await related(vault.index, vault.embedder, SOURCE,
                             RelatedOptions(k=10, private=private))
    return {r["path"]: r for r in document["results"]}


async def test_related_results_list_their_relationships_private_notes_in_private_mode_only(
    index_vault: IndexVault,
) -> None:
    vault = index_vault(NOTES)
    public = await _results(vault, private=False)
    assert all("relationships" in r for r in public.values())
    # the private note is neither a result nor named in a relationship outside private mode
    assert public[GREEN]["relationships"] == {"extends": [OOLONG]}
    assert SECRET not in public and public[OOLONG]["relationships"] == {}
    private = await _results(vault, private=True)
    assert private[GREEN]["relationships"] == {"extends": [OOLONG], "qualifies": [SECRET]}
    assert private[SECRET]["relationships"] == {}


def test_ora_related_json_lists_relationships(
    index_vault: IndexVault, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")  # the embedder the index was built with
    vault = index_vault(NOTES)
    assert main(["related", str(vault.config.vault), SOURCE, "--json"]) == 0
    results = {r["path"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    assert results[GREEN]["relationships"] == {"extends": [OOLONG]}
