"""Search over a real indexed vault: provenance weights, decay, tag filters, result shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.errors import BadRequest
from sidecar.models.reranker import OnnxCrossEncoder, rerank_limits
from sidecar.retrieval.fusion import FUSION_METHODS, FusionSettings
from sidecar.schema import get_schema

from .conftest import IndexVault, NoteSpec

PASSAGE = (
    "Spaced repetition schedules each review at a growing interval, just before the memory "
    "would fade, so every retrieval strengthens long-term retention."
)
QUERY = "spaced repetition review intervals long-term retention"


def _paths(document: dict[str, object]) -> list[str]:
    return [r["path"] for r in document["results"]]  # type: ignore[attr-defined,index]


@pytest.mark.parametrize("method", sorted(FUSION_METHODS))
@pytest.mark.parametrize("local_model", [False, True], ids=["fused", "cross-encoder"])
async def test_same_passage_ranks_by_provenance(
    index_vault: IndexVault, tiny_reranker_dir: Path, local_model: bool, method: str
) -> None:
    # Same file name, so the same title: only the type differs between these notes.
    folders = {"engram": "Engrams", "resource": "Resources", "chat": "Chats",
               "transcript": "Transcripts", "web": "Web"}
    vault = index_vault([NoteSpec(f"{d}/Spacing.md", t, PASSAGE) for t, d in folders.items()])
    reranker = OnnxCrossEncoder(tiny_reranker_dir) if local_model else None
    # Copies of one passage on purpose (only the type differs): every copy is shown.
    document = await vault.search(QUERY, reranker, fusion=FusionSettings(method=method),
                                  collapse=False)
    assert (document["rerank"] != "none") is local_model
    types = [r["type"] for r in document["results"]]
    assert types[0] == "engram" and types[1] == "resource"
    assert set(types[2:4]) == {"chat", "transcript"} and types[4] == "web"
    scores = [r["score"] for r in document["results"]]
    assert scores == sorted(scores, reverse=True) and scores[1] < scores[0]
    weights = {t: get_schema().type_weight(t) for t in folders}
    for result in document["results"]:
        why = result["why"]
        assert why["type_weight"] == weights[result["type"]]
        assert result["score"] == pytest.approx(
            why["similarity"] * why["type_weight"] * why["decay"], abs=1e-5
        )


async def test_non_retrievable_types_are_never_returned(index_vault: IndexVault) -> None:
    hidden = ["framework", "mode", "reference", "paper", "working", "matrix", "supervision"]
    notes = [NoteSpec(f"Other/{t}.md", t, PASSAGE + " " + QUERY) for t in hidden]
    vault = index_vault([*notes, NoteSpec("Engrams/Kept.md", "engram", "Interleaving topics.")])
    document = await vault.search(QUERY, k=50, include_archived=True, private=True)
    assert _paths(document) == ["Engrams/Kept.md"] or _paths(document) == []
    assert all(r["type"] in get_schema().retrievable_types for r in document["results"])


async def test_archived_is_excluded_unless_asked_for_then_flagged(index_vault: IndexVault) -> None:
    vault = index_vault([
        NoteSpec("Engrams/Old.md", "engram", PASSAGE, tags=["archived"]),
        NoteSpec("Engrams/Current.md", "engram", "Interleaving mixes practice topics."),
    ])
    assert "Engrams/Old.md" not in _paths(await vault.search(QUERY))
    included = await vault.search(QUERY, include_archived=True)
    old = next(r for r in included["results"] if r["path"] == "Engrams/Old.md")
    assert old["flags"] == ["archived"]


async def test_incubating_is_returned_and_flagged(index_vault: IndexVault) -> None:
    vault = index_vault([NoteSpec("Engrams/Draft.md", "engram", PASSAGE, tags=["incubating"])])
    (result,) = (await vault.search(QUERY))["results"]
    assert result["flags"] == ["incubating"] and result["private"] is False


async def test_private_only_in_private_mode_and_then_marked(index_vault: IndexVault) -> None:
    vault = index_vault([
        NoteSpec("Engrams/Diary.md", "engram", PASSAGE, tags=["private"]),
        NoteSpec("Engrams/Public.md", "engram", "Interleaving mixes practice topics."),
    ])
    public = await vault.search(QUERY)
    assert _paths(public) == ["Engrams/Public.md"]
    assert all(PASSAGE not in r["text"] for r in public["results"])
    private = await vault.search(QUERY, private=True)
    marks = {r["path"]: r["private"] for r in private["results"]}
    assert marks == {"Engrams/Diary.md": True, "Engrams/Public.md": False}


async def test_older_chat_in_a_cluster_decays_below_the_newer(index_vault: IndexVault) -> None:
    def chat(name: str, created: str) -> NoteSpec:
        return NoteSpec(f"Chats/{name}.md", "chat", PASSAGE,
                        extra={"cluster": "memory-research", "date created": created})

    vault = index_vault([chat("Earlier", "2023-03-01"), chat("Later", "2024-05-01")])
    document = await vault.search(QUERY, collapse=False)  # only the dates differ
    assert _paths(document) == ["Chats/Later.md", "Chats/Earlier.md"]
    later, earlier = (r["why"] for r in document["results"])
    schema = get_schema()
    assert later["decay"] == 1.0 and later["newer_in_cluster"] == 0
    assert earlier["newer_in_cluster"] == 1
    assert earlier["decay"] == pytest.approx(max(schema.decay_floor, 1 - schema.decay_per_newer))
    assert earlier["cluster"] == later["cluster"] == "memory-research"


async def test_filters_still_return_k_when_k_exist(index_vault: IndexVault) -> None:
    hidden = [NoteSpec(f"Engrams/Gone {i}.md", "engram", PASSAGE, tags=["archived"])
              for i in range(8)]
    hidden += [NoteSpec(f"Engrams/Secret {i}.md", "engram", PASSAGE, tags=["private"])
               for i in range(8)]
    kept = [NoteSpec(f"Engrams/Kept {i}.md", "engram", f"Note {i} on review intervals.")
            for i in range(5)]
    vault = index_vault([*hidden, *kept])
    document = await vault.search(QUERY, k=5)
    assert sorted(_paths(document)) == sorted(n.path for n in kept)


async def test_result_document_has_the_documented_shape(index_vault: IndexVault) -> None:
    vault = index_vault([NoteSpec("Engrams/Spacing.md", "engram", "# Why\n\n" + PASSAGE)])
    document = await vault.search(QUERY)
    assert set(document) == {"query", "namespace", "rerank", "rerank_reason", "results"}
    assert document["rerank"] == "none" and document["namespace"] == "default"
    (result,) = document["results"]
    assert set(result) == {"path", "title", "type", "type_inferred", "score", "flags", "private",
                           "text", "heading_path", "line_start", "line_end", "block_ids",
                           "duplicates", "why"}
    assert result["duplicates"] == []
    assert result["type_inferred"] is False
    assert set(result["why"]) == {"dense_rank", "bm25_rank", "fused", "rerank", "similarity",
                                  "type_weight", "decay", "cluster", "newer_in_cluster", "phrase"}
    assert result["why"]["phrase"] is False
    assert result["why"]["dense_rank"] == 1 and result["why"]["bm25_rank"] == 1
    # First in both lists: the top fused score any method gives, so similarity 1.
    assert result["why"]["rerank"] is None and result["why"]["similarity"] == 1.0
    assert result["title"] == "Spacing" and result["line_start"] <= result["line_end"]
    assert "retention" in result["text"]


async def test_unknown_namespace_gives_empty_results(index_vault: IndexVault) -> None:
    vault = index_vault([NoteSpec("Engrams/Spacing.md", "engram", PASSAGE)])
    document = await vault.search(QUERY, namespace="agent-7")
    assert document["results"] == [] and document["namespace"] == "agent-7"


@pytest.mark.parametrize("query, k", [("   ", 10), (QUERY, 0)])
async def test_empty_query_or_zero_k_is_a_bad_request(
    index_vault: IndexVault, query: str, k: int
) -> None:
    vault = index_vault([NoteSpec("Engrams/Spacing.md", "engram", PASSAGE)])
    with pytest.raises(BadRequest):
        await vault.search(query, k=k)


async def test_only_the_best_of_the_fused_pool_is_re_ranked(
    index_vault: IndexVault, tiny_reranker_dir: Path
) -> None:
    pool = rerank_limits().pool
    notes = [NoteSpec(f"Engrams/Note {i}.md", "engram", f"{PASSAGE} Variation {i}.")
             for i in range(pool + 8)]
    vault = index_vault(notes)
    reranker = OnnxCrossEncoder(tiny_reranker_dir)
    document = await vault.search(QUERY, reranker, k=5)
    assert document["rerank"] == reranker.name
    assert len(reranker._cache) == pool  # one score per re-ranked (query, passage)
    wide = await vault.search(QUERY, reranker, k=pool + 4)
    assert len(wide["results"]) == pool + 4  # k above the pool re-ranks k
    assert all(r["why"]["rerank"] is not None for r in wide["results"])
