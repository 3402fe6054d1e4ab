"""Every failure is `{"error": {"code", "message"}}` with the right status, never a traceback."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_an_unknown_route_is_404(shared_api: Any) -> None:
    answer = await shared_api.get("/v1/nothing-here")
    assert answer.status == 404
    assert answer.json["error"]["code"] == "not_found"


async def test_an_unknown_route_without_token_is_401_not_404(shared_api: Any) -> None:
    assert (await shared_api.get("/v1/nothing-here", token=None)).status == 401


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/v1/search"), ("DELETE", "/v1/status"), ("PUT", "/v1/lint"), ("POST", "/v1/health")],
)
async def test_a_wrong_method_is_405_with_allow(shared_api: Any, method: str, path: str) -> None:
    answer = await shared_api.request(method, path)
    assert answer.status == 405
    assert answer.json["error"]["code"] == "method_not_allowed"
    assert answer.headers["Allow"]


@pytest.mark.parametrize("body", [b"{not json", b"\xff\xfe", b"[1, 2", b"nul"])
async def test_malformed_json_is_400(shared_api: Any, body: bytes) -> None:
    answer = await shared_api.request("POST", "/v1/search", data=body,
                               headers={"Content-Type": "application/json"})
    assert answer.status == 400
    assert answer.json["error"]["code"] == "bad_request"
    assert "JSON" in answer.json["error"]["message"]


@pytest.mark.parametrize(
    ("path", "body", "names"),
    [
        ("/v1/search", {}, "query"),
        ("/v1/search", {"query": "x", "k": 0}, "k"),
        ("/v1/search", {"query": "x", "k": 10.0}, "k"),
        ("/v1/search", {"query": "\ud800 lone surrogate"}, "Unicode"),
        ("/v1/search", {"query": "x", "surprise": 1}, "surprise"),
        ("/v1/search", [], "object"),
        ("/v1/lint", {"path": "a.md"}, "text"),
        ("/v1/events", {"events": [{"kind": "touched", "path": "a.md"}]}, "kind"),
    ],
)
async def test_a_body_that_breaks_the_schema_is_400_naming_the_field(
    shared_api: Any, path: str, body: Any, names: str
) -> None:
    answer = await shared_api.post(path, body)
    assert answer.status == 400
    assert names in answer.json["error"]["message"]


@pytest.mark.parametrize(
    "path",
    ["../outside.md", "/etc/passwd.md", "a/../../b.md", "bad\udc00name.md", "é" * 200 + ".md"],
)
async def test_paths_that_cannot_name_a_file_in_the_vault_are_400(
    shared_api: Any, path: str
) -> None:
    for route, body in (("/v1/lint", {"path": path, "text": ""}),
                        ("/v1/lint/fix", {"path": path}),
                        ("/v1/events", {"events": [{"kind": "modified", "path": path}]})):
        answer = await shared_api.post(route, body)
        assert answer.status == 400, route


async def test_a_library_error_keeps_its_code_and_status(shared_api: Any) -> None:
    answer = await shared_api.post("/v1/lint/fix", {"path": "Missing/note.md"})
    assert answer.status == 404
    assert answer.json["error"]["code"] == "not_found"

