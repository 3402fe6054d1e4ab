"""Search and related requests at the edges: dates at the calendar's edge are bounds (never a
500), a value too long is refused saying so, related results list relationships."""

from __future__ import annotations

from typing import Any

import pytest

from sidecar.errors import BadRequest
from sidecar.server.openapi import validate

pytestmark = pytest.mark.asyncio(loop_scope="module")

EDGES = [
    {"until": "9999-12-31"},
    {"since": "0001-01-01T00:00:00+01:00"},
    {"until": "9999-12-31T23:00:00-05:00"},
]


async def _paths(api: Any, route: str, body: dict[str, Any]) -> list[str]:
    answer = await api.post(route, body)
    assert answer.status == 200, answer.json
    return [r["path"] for r in answer.json["results"]]


@pytest.mark.parametrize("edge", EDGES, ids=lambda e: next(iter(e.values())))
async def test_a_date_filter_at_the_calendars_edge_bounds_nothing_instead_of_a_500(
    shared_api: Any, edge: dict[str, str]
) -> None:
    await shared_api.wait_reconciled()
    search = {"query": "memory", "rerank": False}
    assert await _paths(shared_api, "/v1/search", {**search, "filters": edge}) == \
        await _paths(shared_api, "/v1/search", search)
    note = {"path": "Engrams/Spaced repetition.md"}
    assert await _paths(shared_api, "/v1/related", {**note, "filters": edge}) == \
        await _paths(shared_api, "/v1/related", note)


@pytest.mark.parametrize("edge", [{"since": "9999-12-31T23:00:00-05:00"},
                                  {"until": "0001-01-01T00:00:00+01:00"}])
async def test_a_date_bound_past_the_calendars_edge_the_other_way_admits_nothing(
    shared_api: Any, edge: dict[str, str]
) -> None:
    await shared_api.wait_reconciled()
    assert await _paths(shared_api, "/v1/search", {"query": "memory", "filters": edge}) == []


@pytest.mark.parametrize(("body", "field", "length", "limit"), [
    ({"query": "x" * 2001}, "query", "2,001", "2,000"),
    ({"query": "memory", "filters": {"tags": ["a" * 300]}}, "filters/tags/0", "300", "256"),
], ids=["query", "tag"])
async def test_a_400_for_a_value_too_long_says_it_is_too_long(
    shared_api: Any, body: dict[str, Any], field: str, length: str, limit: str
) -> None:
    answer = await shared_api.post("/v1/search", body)
    assert answer.status == 400
    message = answer.json["error"]["message"]
    assert message.startswith(f"{field}: ")
    assert message.endswith(f"is too long: {length} characters, at most {limit}")
    assert len(message) < 200  # the value is echoed shortened


async def test_related_results_list_their_notes_relationships(shared_api: Any) -> None:
    await shared_api.wait_reconciled()
    answer = await shared_api.post("/v1/related", {"path": "Engrams/Forgetting curve.md"})
    assert answer.status == 200 and answer.json["results"]
    assert all(isinstance(r["relationships"], dict) for r in answer.json["results"])


def test_a_400_naming_a_key_the_caller_chose_stays_short() -> None:
    """Review: the field's path holds a key of a free-form object (an edit's proposal id), which
    was echoed whole: a 20,000-character key made a 20,033-character message."""
    with pytest.raises(BadRequest) as refused:
        validate("ExtractAcceptRequest", {"conversation": "c1", "accept": "all",
                                          "edits": {"k" * 20_000: 5}})
    assert len(str(refused.value)) < 400
