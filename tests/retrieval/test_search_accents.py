"""A query typed without its accents is embedded as the vault writes it: keyword search folds
accents, an embedder reads "creer" and "créer" as two words, so the dense half searches again
with the words written as the chunks keyword search found write them."""

from __future__ import annotations

from collections.abc import Sequence

from sidecar.models.embedder import Embedder, FloatArray
from sidecar.retrieval.search import SearchOptions, search

from .conftest import IndexVault, NoteSpec

NOTES = [
    NoteSpec("Encadrés.md", "resource", "# Encadrés\n\nPour créer un encadré coloré, commencez "
             "une citation par le type de l'encadré, comme un avertissement ou une astuce."),
    NoteSpec("Modèles.md", "resource", "# Modèles\n\nUn modèle insère un texte réutilisable "
             "dans la note ouverte: la date du jour, une liste de tâches."),
]


class Recorder:
    """The real embedder, with the queries it was asked to embed."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.queries: list[str] = []

    def embed_queries(self, queries: Sequence[str]) -> FloatArray:
        self.queries += queries
        return self.embedder.embed_queries(queries)


async def test_a_query_typed_plain_is_embedded_again_as_the_notes_write_it(
    index_vault: IndexVault, embedder: Embedder,
) -> None:
    vault = index_vault(NOTES)
    recorder = Recorder(embedder)
    document = await search(vault.index, recorder, None, "creer un encadre colore",
                            SearchOptions(rerank=False))
    assert recorder.queries == ["creer un encadre colore", "créer un encadré coloré"]
    assert document["results"][0]["path"] == "Encadrés.md"
    # The dense ranks shown are those of the query as the notes write it.
    restored = await search(vault.index, embedder, None, "créer un encadré coloré",
                            SearchOptions(rerank=False))
    assert [r["why"]["dense_rank"] for r in document["results"]] == [
        r["why"]["dense_rank"] for r in restored["results"]]


async def test_a_query_typed_with_its_accents_or_in_english_is_embedded_once(
    index_vault: IndexVault, embedder: Embedder,
) -> None:
    vault = index_vault(NOTES)
    for query in ("créer un encadré coloré", "colored box for a warning"):
        recorder = Recorder(embedder)
        await search(vault.index, recorder, None, query, SearchOptions(rerank=False))
        assert recorder.queries == [query]


async def test_a_private_note_never_spells_the_query_sent_to_the_embedder(
    index_vault: IndexVault, embedder: Embedder,
) -> None:
    # Only the private note writes "encadré"; what is embedded may go to an embeddings server.
    vault = index_vault([
        NoteSpec("Journal.md", "resource", "# Journal\n\nJ'ai voulu créer un encadré coloré "
                 "pour mes rêves, un avertissement à moi-même.", tags=["private"]),
        NoteSpec("Notes.md", "resource", "# Notes\n\nUne note sur les couleurs de la maison, "
                 "le jardin et la cuisine, écrite un dimanche."),
    ])
    recorder = Recorder(embedder)
    document = await search(vault.index, recorder, None, "creer un encadre colore",
                            SearchOptions(rerank=False, private=True))
    assert document["results"][0]["path"] == "Journal.md"  # found, in private mode
    assert recorder.queries == ["creer un encadre colore"]


async def test_a_folder_just_made_private_lends_no_accents_to_the_embedded_query(
    index_vault: IndexVault, embedder: Embedder,
) -> None:
    # Its chunks are still filed as public until the index plans them again; their spelling of
    # a word is the note's, and the query rewritten with it may go to an embeddings server.
    vault = index_vault(NOTES)
    (vault.config.vault / "ora.yaml").write_text("private: [Encadrés.md]\n", encoding="utf-8")
    recorder = Recorder(embedder)
    await search(vault.index, recorder, None, "creer un encadre colore",
                 SearchOptions(rerank=False))
    assert recorder.queries == ["creer un encadre colore"]
