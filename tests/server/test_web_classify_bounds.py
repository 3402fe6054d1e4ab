"""`POST /v1/web/classify` is bounded: at most `maxItems` results per request (the comparison of
findings is quadratic), and its work stops when the server begins to shut down."""

from __future__ import annotations

from typing import Any

import pytest

from sidecar.models.embedder import Embedder
from sidecar.server.openapi import openapi_document
from sidecar.web.classify import ClassifyStopped, classify
from sidecar.web.registry import Registry

MOST = openapi_document()["components"]["schemas"]["ClassifyRequest"]["properties"]["results"][
    "maxItems"]


def _rows(n: int) -> list[dict[str, str]]:
    """`n` results on as many sites, all carrying the same finding (the costliest case)."""
    return [{"url": f"https://site{i}.example/a", "title": "Coffee",
             "text": "Coffee shortens sleep."} for i in range(n)]


async def test_classify_refuses_more_results_than_the_document_allows(api: Any) -> None:
    # Before: no bound; 200 results took 14 s and 800 over two minutes of CPU.
    answer = await api.post("/v1/web/classify", {"results": _rows(MOST + 1)})
    assert answer.status == 400
    assert answer.json["error"]["code"] == "bad_request"
    assert answer.json["error"]["message"].startswith("results: ")
    assert answer.json["error"]["message"].endswith(f"{MOST + 1} items, at most {MOST}")
    answer = await api.post("/v1/web/classify", {"results": _rows(MOST)})
    assert answer.status == 200 and len(answer.json["results"]) == MOST


async def test_classify_stops_once_the_server_is_shutting_down(api: Any) -> None:
    # Before: the comparisons ran to the end in their thread however long they took, and the
    # process could not exit until they were done (SIGTERM: still running 60 s later).
    assert api.app is not None
    await api.app.shutdown()  # what `ora serve` runs first on SIGTERM (on_shutdown)
    answer = await api.post("/v1/web/classify", {"results": _rows(3)})
    assert answer.status == 503
    assert answer.json["error"]["code"] == "shutting_down"


def test_classify_stops_at_the_next_result_when_asked(embedder: Embedder) -> None:
    asked: list[int] = []

    def should_stop() -> bool:
        asked.append(1)
        return len(asked) > 2  # two results compared, then the stop

    with pytest.raises(ClassifyStopped):
        classify(_rows(10), Registry(), embedder, should_stop)
    assert len(asked) == 3
