"""Every status a route can answer is in openapi.json: a body too slow (408) and an unexpected
failure (500) on any operation, and 422 `invalid_frontmatter` where a route edits a note's
frontmatter. Answers are checked against the document by `Api` (tests/server/contract.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from sidecar.server.openapi import openapi_document
from tests.notes import write_notes

OLD, NEW = "Engrams/Vitamin C and colds.md", "Engrams/Vitamin C revisited.md"
NOTES = {
    OLD: ("---\ntype: engram\nnexus: []\ntags:\n  - health\ndate created: 2021-03-04\n---\n"
          "# Vitamin C and colds\n\nTaking vitamin C every day prevents the common cold.\n"),
    # `relationships` a plain string (a hand edit): Ora will not add a relationship to it.
    NEW: ("---\ntype: engram\nnexus: []\ntags: [health]\ndate created: 2024-06-01\n"
          "relationships: see the study\n---\n"
          "Large trials show that taking vitamin C every day does not prevent the common cold.\n"),
}


def test_every_operation_lists_the_timeout_and_internal_errors() -> None:
    # Before: no operation listed 408 `request_timeout` (any request whose body is slower
    # than body_timeout) nor 500 `internal`.
    for path, item in openapi_document()["paths"].items():
        for method, op in item.items():
            missing = {"408", "500"} - set(op["responses"])
            assert not missing, f"{method.upper()} {path} lacks {sorted(missing)}"


async def test_a_resolution_refused_for_invalid_frontmatter_is_a_documented_422(
    tmp_path: Path, configure: Callable[..., Any], api_for: Callable[..., Awaitable[Any]],
) -> None:
    # Before: answered 422 `invalid_frontmatter`, which openapi.json did not list for resolve.
    config = configure(write_notes(tmp_path / "vault", NOTES), tmp_path / "data")
    api = await api_for(config)
    await api.wait_reconciled()
    scan = await api.post("/v1/contradictions/scan", {})
    (pair,) = [p for p in scan.json["pairs"] if p["kind"] == "engram"]
    answer = await api.post(f"/v1/contradictions/{pair['id']}/resolve",
                            {"action": "changed-mind", "newer": NEW})
    assert answer.status == 422
    assert answer.json["error"]["code"] == "invalid_frontmatter"
    assert (tmp_path / "vault" / NEW).read_text(encoding="utf-8") == NOTES[NEW]
