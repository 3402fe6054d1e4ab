"""A query not in English is expanded by feedback once per search and store, shared by the chunk
search and the note-level search (`bm25_query.Bm25Query`); the ranking is the one each search gave
when it expanded the query on its own."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from sidecar.index.bm25_engine import Bm25Engine, Terms

from .conftest import IndexVault, NoteSpec
from .test_search_notes import NOTES, QUERY

VAULT = [
    *NOTES,
    NoteSpec("Privé.md", "resource", "# Privé\n\nEen oude versie van mijn dagboek bewaar ik "
             "in een aparte map die niemand ziet.", tags=("private",)),
    NoteSpec("Es/Copias.md", "resource", "# Copias de seguridad\n\nCada nota guarda una copia "
             "antigua en la carpeta del complemento.\n\n## Recuperar\n\nElige la versión que "
             "quieres recuperar y pulsa el botón."),
    NoteSpec("Es/Tema.md", "resource", "# Tema\n\nEl tema de la aplicación se elige en los "
             "ajustes, con los colores que quieras."),
    NoteSpec("De/Sicherung.md", "resource", "# Sicherung\n\nJede Notiz hat eine alte Kopie im "
             "Ordner des Plugins.\n\n## Wiederherstellen\n\nWähle die Version aus der Liste."),
    NoteSpec("En/Backup.md", "resource", "# Backup\n\nEach note keeps an old copy in the "
             "plugin's folder; pick the version to restore from the list."),
]
QUERIES = [QUERY, "cómo recupero una versión antigua de una nota",
           "alte Version einer Notiz wiederherstellen", "restore an old version of a note",
           "tema de la app"]


def _count_feedback(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = Bm25Engine.feedback

    def counted(self: Bm25Engine, terms: Terms, texts: Any) -> Terms:
        calls.append(1)
        return real(self, terms, texts)

    monkeypatch.setattr(Bm25Engine, "feedback", counted)
    return calls


@pytest.mark.parametrize(("private", "stores"), [(False, 1), (True, 2)])
async def test_a_query_is_expanded_once_per_store_not_once_per_search(
    index_vault: IndexVault, monkeypatch: pytest.MonkeyPatch, private: bool, stores: int,
) -> None:
    # Before: the chunk search and the note-level search each expanded it (2 and 4 here).
    vault = index_vault(VAULT)
    calls = _count_feedback(monkeypatch)
    document = await vault.search(QUERY, rerank=False, private=private)
    assert document["results"] and len(calls) == stores


async def test_sharing_the_expansion_leaves_every_ranking_as_it_was(
    index_vault: IndexVault, monkeypatch: pytest.MonkeyPatch,
) -> None:
    vault = index_vault(VAULT)

    async def ranked() -> list[list[tuple[str, float, float]]]:
        out = []
        for query in QUERIES:
            for private in (False, True):
                document = await vault.search(query, rerank=False, private=private)
                out.append([(r["path"], r["score"], r["why"]["fused"])
                            for r in document["results"]])
        return out

    shared = await ranked()
    # Each search expanding the query on its own, as before (no `prepared` handed to them).
    monkeypatch.setattr(sys.modules["sidecar.retrieval.search"], "Bm25Query", lambda _: None)
    assert shared == await ranked()
    assert any(shared) and len({tuple(r) for r in shared}) > 2
