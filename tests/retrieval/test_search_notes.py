"""Search lifts a candidate by its whole note's BM25 score in a vault not in English: the note
whose sections share a question's words between them climbs over a note whose one chunk holds
two of them; an English vault keeps its ranking."""

from __future__ import annotations

import sys
from dataclasses import replace

import pytest

from sidecar.language import languages

from .conftest import IndexVault, NoteSpec

# Each section of the note holds one of the question's words; two other notes hold two each.
SPREAD = ("# Herstellen\n\n"
          "## Geschiedenis\n\nVan elke notitie wordt een oude kopie bewaard in de map van de "
          "plug-in.\n\n"
          "## Lijst\n\nIn de lijst zie je elke versie met de tijd waarop die is gemaakt.\n\n"
          "## Prullenbak\n\nEen verwijderd bestand komt eerst in de prullenbak van het systeem."
          "\n\n## Terugzetten\n\nKies in de lijst wat je wilt terughalen en klik op de knop.")
NOTES = [
    NoteSpec("Herstellen.md", "resource", SPREAD),
    NoteSpec("App.md", "resource", "# App bijwerken\n\nEen oude versie van de app kun je niet "
             "meer krijgen: de app werkt zichzelf bij."),
    NoteSpec("Importeren.md", "resource", "# Importeren\n\nEen bestand terughalen uit een "
             "andere app gaat met de knop importeren.\n\n## Formaten\n\nMarkdown, tekst en "
             "tabellen worden gelezen; afbeeldingen en geluid komen mee als bijlagen bij de "
             "notities die ernaar verwijzen, in dezelfde map als die notities."),
    NoteSpec("Thema.md", "resource", "# Thema\n\nHet thema van de app kies je in de "
             "instellingen, met de kleuren die je wilt."),
]
QUERY = "een oude versie van een bestand terughalen"


def _first(document: dict[str, object]) -> str:
    return document["results"][0]["path"]  # type: ignore[index,no-any-return]


@pytest.mark.parametrize(("weight", "first"), [(0.0, "Importeren.md"), (0.5, "Herstellen.md")])
async def test_a_note_sharing_the_words_between_its_sections_is_lifted_by_its_note_score(
    index_vault: IndexVault, monkeypatch: pytest.MonkeyPatch, weight: float, first: str,
) -> None:
    # A larger lift than the default's, to see it turn the order here.
    # (`sidecar.retrieval.search` names the function in the package: the module, by its name.)
    monkeypatch.setattr(sys.modules["sidecar.retrieval.search"], "language_spec",
                        lambda: replace(languages.spec(), note_weight=weight))
    vault = index_vault(NOTES)
    document = await vault.search(QUERY, rerank=False)
    assert _first(document) == first
    assert all(0 < r["why"]["fused"] <= 1 for r in document["results"])


async def test_an_english_vault_is_not_lifted(index_vault: IndexVault) -> None:
    vault = index_vault([NoteSpec("Restore.md", "resource", "# Restore\n\n## History\n\n"
                                  "An old copy of each note is kept.\n\n## List\n\nEach "
                                  "version is listed.")])
    assert vault.index.bm25_notes("old version", 10, private=False) == {}
