"""A private note never changes which cluster a public note is in, so outside private mode the
decay, score, order and `why` of every result are what they would be without it (privacy.md:
'Answers to a request outside private mode do not differ because a private note exists').

QA repro: a private web note whose text lies between two public ones (kombucha, beer) founded or
fed the centroid they were compared with, and pulled them into one cluster: the kombucha note
then counted the beer note as newer in its cluster and decayed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

from .conftest import IndexVault, NoteSpec, SearchVault

KOMBUCHA = "Kombucha fermentation takes a week with a scoby in sweet tea."
BEER = "Beer fermentation takes a week with yeast."
BRIDGE = "Fermentation takes a week: kombucha with a scoby, beer with yeast."
PUBLIC = (
    NoteSpec("Web/A kombucha.md", "web", KOMBUCHA, extra={"date created": "2024-02-01"}),
    NoteSpec("Web/B beer.md", "web", BEER, extra={"date created": "2024-03-01"}),
    NoteSpec("Web/C cider.md", "web", "Cider fermentation takes a month with apple juice.",
             extra={"date created": "2024-03-15"}),
    NoteSpec("Web/D sourdough.md", "web", "Sourdough bread rises overnight in a warm kitchen.",
             extra={"date created": "2024-04-01"}),
)
QUERIES = ("kombucha", "beer fermentation", "fermentation takes a week", "sourdough bread")


def _private(date: str, body: str = BRIDGE, **extra: Any) -> NoteSpec:
    return NoteSpec("Web/P mine.md", "web", body, tags=["private"],
                    extra={"date created": date, **extra})


# Where the private note stands among the public ones, and what it is like.
ARRANGEMENTS: Mapping[str, tuple[NoteSpec, ...]] = {
    "oldest, founding the cluster": (_private("2024-01-01"),),
    "between the two it bridges": (_private("2024-02-15"),),
    "newest": (_private("2024-05-01"),),
    "oldest, close to the kombucha note": (
        _private("2024-01-01", "Kombucha and beer: a scoby or yeast, a week of fermentation."),),
    "oldest, declaring a cluster": (_private("2024-01-01", cluster="fermentation"),),
    "two, both bridging": (_private("2024-01-01"), NoteSpec(
        "Web/Q mine too.md", "web", "Beer and kombucha both ferment for about a week.",
        tags=["private"], extra={"date created": "2024-02-20"})),
}


def _public_view(vault: SearchVault) -> dict[str, Any]:
    """Every public note's cluster in the ledger, and each query's non-private search document."""
    rows = vault.index.ledger.rows(vault.index.namespace)
    clusters = {path: row.cluster for path, row in rows.items() if not row.private}
    documents = {q: asyncio.run(vault.search(q, rerank=False, k=20)) for q in QUERIES}
    return {"clusters": clusters, "documents": documents}


def _decays(view: dict[str, Any]) -> dict[str, tuple[str, int, float]]:
    return {r["path"]: (r["why"]["cluster"], r["why"]["newer_in_cluster"], r["why"]["decay"])
            for document in view["documents"].values() for r in document["results"]}


@pytest.mark.parametrize("arrangement", list(ARRANGEMENTS))
def test_public_clusters_and_search_ignore_private_notes(
    index_vault: IndexVault, arrangement: str
) -> None:
    without = _public_view(index_vault(PUBLIC))
    vault = index_vault([*PUBLIC, *ARRANGEMENTS[arrangement]])
    with_private = _public_view(vault)
    # The private notes are assigned too (private mode decays them).
    assert all(row.cluster for row in vault.index.ledger.rows(vault.index.namespace).values())
    assert with_private["clusters"] == without["clusters"]
    assert _decays(with_private) == _decays(without)
    assert with_private["documents"] == without["documents"]
    # The repro's public facts: kombucha and beer are different topics, nothing decays.
    assert without["clusters"]["Web/A kombucha.md"] == "auto:a-kombucha"
    assert without["clusters"]["Web/B beer.md"] != "auto:a-kombucha"
