"""Relationships in retrieval: superseded notes rank below their successor and say so, results
list their relationships, `expand` follows supports/extends/qualifies one hop."""

from __future__ import annotations

from sidecar.retrieval.relations import search_related
from sidecar.retrieval.search import SearchOptions

from .conftest import IndexVault, NoteSpec, SearchVault

OLD, NEW = "Engrams/Green tea old.md", "Engrams/Green tea new.md"
BACKGROUND, SECRET = "Engrams/Water temperature.md", "Engrams/Diary.md"
NOTES = [
    NoteSpec(OLD, "engram", "# Green tea old\n\nSteep green tea for three minutes."),
    NoteSpec(NEW, "engram", "# Green tea new\n\nI now brew green leaves for ninety seconds.",
             extra={"relationships": {"supersedes": ["[[Green tea old]]"],
                                      "extends": ["[[Water temperature]]"],
                                      "qualifies": ["[[Diary]]"]}}),
    NoteSpec(BACKGROUND, "engram",
             "# Water temperature\n\nWater just off the boil scorches delicate leaves."),
    NoteSpec(SECRET, "engram", "# Diary\n\nMy private tea ritual.", tags=["private"]),
    NoteSpec("Engrams/Bicycles.md", "engram", "# Bicycles\n\nChains wear out."),
]
QUERY = "how long should I steep green tea"


async def _search(v: SearchVault, *, expand: bool = False, private: bool = False,
                  k: int = 2) -> list[dict]:
    doc = await search_related(v.index, v.embedder, None, QUERY,
                               SearchOptions(k=k, rerank=False, private=private), expand=expand)
    return list(doc["results"])


async def test_a_superseded_note_ranks_below_its_successor_and_is_flagged(
    index_vault: IndexVault,
) -> None:
    v = index_vault(NOTES)
    plain = await v.search(QUERY, k=2, rerank=False)
    assert [r["path"] for r in plain["results"]] == [OLD, NEW]  # what ranking alone says

    results = await _search(v)
    assert [r["path"] for r in results] == [NEW, OLD]
    old, new = results[1], results[0]
    assert old["flags"] == ["superseded"] and old["superseded_by"] == ["[[Engrams/Green tea new]]"]
    assert old["score"] <= new["score"]
    assert "superseded" not in new["flags"]
    # Relationships are listed; the private note is named only in private mode.
    assert new["relationships"] == {"supersedes": [OLD], "extends": [BACKGROUND]}
    private = await _search(v, private=True)
    assert next(r for r in private if r["path"] == NEW)["relationships"]["qualifies"] == [SECRET]


async def test_expand_follows_one_hop_and_says_which_link_brought_each_result(
    index_vault: IndexVault,
) -> None:
    v = index_vault(NOTES)
    direct = [r["path"] for r in await _search(v)]
    assert BACKGROUND not in direct
    results = await _search(v, expand=True)
    assert [r["path"] for r in results[:2]] == [NEW, OLD]
    (extra,) = results[2:]  # the private note stays out outside private mode
    assert extra["path"] == BACKGROUND
    assert extra["expanded_from"] == {"path": NEW, "kind": "extends",
                                      "link": "[[Engrams/Water temperature]]"}
    private = await _search(v, expand=True, private=True)
    assert {r["path"]: r["expanded_from"]["kind"] for r in private[2:]} == {
        BACKGROUND: "extends", SECRET: "qualifies"}


async def test_an_answer_shows_the_superseded_flag_on_the_older_passage(
    index_vault: IndexVault,
) -> None:
    from sidecar.answers import answer

    v = index_vault(NOTES)
    doc = await answer(v.config.with_values(llm_url=""), v.index, v.embedder, None, QUERY,
                       SearchOptions(k=2, rerank=False))
    old = next(c for c in doc["citations"] if c["path"] == OLD)
    assert old["flags"] == ["superseded"] and old["n"] == 2
    assert f"[2] {OLD}:{old['line_start']}-{old['line_end']} (superseded)" in doc["answer"]
