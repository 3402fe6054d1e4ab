"""`POST /v1/related` and the `filters` of `POST /v1/search`, in-process (contract-checked)."""

from __future__ import annotations

import json
from typing import Any


async def test_related_follows_links_and_vectors_never_the_note_itself(api: Any) -> None:
    await api.wait_reconciled()
    answer = await api.post("/v1/related", {"path": "Engrams/Spaced repetition.md", "k": 3})
    assert answer.status == 200
    paths = [r["path"] for r in answer.json["results"]]
    assert answer.json["path"] == "Engrams/Spaced repetition.md"
    assert paths[0] == "Engrams/Forgetting curve.md" and "Engrams/Spaced repetition.md" not in paths
    assert answer.json["results"][0]["why"]["linked"] is True


async def test_related_refuses_unknown_and_private_notes_outside_private_mode(
    api: Any, config: Any
) -> None:
    (config.vault / "Engrams/Diary.md").write_text(
        "---\nnexus: []\ntype: engram\ntags: [private]\n---\nRecall decays over days.\n",
        encoding="utf-8")
    await api.wait_reconciled()
    missing = await api.post("/v1/related", {"path": "Engrams/Nope.md"})
    assert missing.status == 404 and missing.json["error"]["code"] == "not_found"
    # A private note outside private mode is answered exactly as a missing one: no oracle.
    private = await api.post("/v1/related", {"path": "Engrams/Diary.md"})
    assert (private.status, json.dumps(private.json).replace("Diary", "Nope")) == (
        missing.status, json.dumps(missing.json))
    allowed = await api.post("/v1/related", {"path": "Engrams/Diary.md", "private": True})
    assert allowed.status == 200 and allowed.json["results"]
    outside = await api.post("/v1/related", {"path": "../etc/passwd.md"})
    assert outside.status == 400


async def test_search_filters_restrict_results_and_bad_values_are_400(api: Any) -> None:
    await api.wait_reconciled()
    query = {"query": "memory recall bread", "k": 10, "rerank": False}
    tagged = await api.post("/v1/search", {**query, "filters": {"tags": ["memory"]}})
    assert {r["path"] for r in tagged.json["results"]} == {
        "Engrams/Spaced repetition.md", "Engrams/Forgetting curve.md"}
    typed = await api.post("/v1/search", {**query, "filters": {"types": ["resource"]}})
    assert [r["path"] for r in typed.json["results"]] == ["Resources/Sourdough.md"]
    dated = await api.post("/v1/search", {**query, "filters": {
        "since": "2024-01-03", "until": "2024-12-31", "folders": ["Engrams"]}})
    assert [r["path"] for r in dated.json["results"]] == ["Engrams/Forgetting curve.md"]
    for bad in ({"types": ["engrams"]}, {"since": "2024-13-01"}, {"colour": "red"}):
        answer = await api.post("/v1/search", {**query, "filters": bad})
        assert answer.status == 400, bad


async def test_search_and_related_filter_by_cluster_and_conversation(
    api: Any, config: Any
) -> None:
    await api.wait_reconciled()
    (config.vault / "Chats").mkdir()
    for name, extra in (("Recall", 'conversation: "cli:recall"\ncluster: Memory\n'),
                        ("Bread", 'conversation: "cli:bread"\n')):
        (config.vault / f"Chats/{name}.md").write_text(
            f"---\nnexus: []\ntype: chat\ntags: []\n{extra}---\n# {name}\n\n"
            f"We talked about memory recall and bread.\n", encoding="utf-8")
    await api.post("/v1/events", {"events": [
        {"kind": "created", "path": f"Chats/{name}.md"} for name in ("Recall", "Bread")]})
    query = {"query": "memory recall bread", "k": 10, "rerank": False}
    talk = await api.post("/v1/search", {**query, "filters": {"conversations": ["cli:bread"]}})
    assert [r["path"] for r in talk.json["results"]] == ["Chats/Bread.md"]
    topic = await api.post("/v1/search", {**query, "filters": {"clusters": ["memory"]}})
    assert [r["path"] for r in topic.json["results"]] == ["Chats/Recall.md"]
    related = await api.post("/v1/related", {"path": "Engrams/Spaced repetition.md",
                                             "filters": {"conversations": ["cli:recall"]}})
    assert [r["path"] for r in related.json["results"]] == ["Chats/Recall.md"]
    empty = await api.post("/v1/search", {**query, "filters": {"clusters": [""]}})
    assert empty.status == 400


async def test_search_collapses_copies_naming_only_notes_the_request_may_see(
    api: Any, config: Any
) -> None:
    await api.wait_reconciled()
    footer = "## Footer\nReviewed with the household budget spreadsheet, shared folder.\n"
    paths = []
    for name, head in (("Budget", ""), ("Trip", ""), ("Secret", "tags: [private]\n")):
        paths.append(f"Resources/{name}.md")
        (config.vault / paths[-1]).write_text(
            f"---\nnexus: []\ntype: resource\n{head}---\n# {name}\n\nAbout {name}.\n\n{footer}",
            encoding="utf-8")
    events = [{"kind": "created", "path": path} for path in paths]
    assert (await api.post("/v1/events", {"events": events})).status == 200
    query = {"query": "household budget spreadsheet", "k": 10, "rerank": False}

    def copies(answer: Any) -> list[tuple[str, list[str]]]:
        assert answer.status == 200
        return [(r["path"], sorted(r["duplicates"])) for r in answer.json["results"]
                if "spreadsheet" in r["text"]]

    (kept,) = copies(await api.post("/v1/search", query))
    assert {kept[0], *kept[1]} == {"Resources/Budget.md", "Resources/Trip.md"}
    (kept,) = copies(await api.post("/v1/search", {**query, "private": True}))
    assert {kept[0], *kept[1]} == {f"Resources/{n}.md" for n in ("Budget", "Trip", "Secret")}
    every = copies(await api.post("/v1/search", {**query, "collapse": False}))
    assert sorted(every) == [("Resources/Budget.md", []), ("Resources/Trip.md", [])]
