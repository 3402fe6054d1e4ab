"""Who may call the API: token, Origin, Host, CORS — in-process through `init_app`."""

from __future__ import annotations

import stat
from typing import Any

import pytest

from sidecar.server.state import CONFIG

OBSIDIAN = "app://obsidian.md"
pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_the_app_creates_the_token_in_the_data_folder(shared_api: Any) -> None:
    path = shared_api.app[CONFIG].data / "token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text().strip() == shared_api.token


async def test_health_needs_no_token(shared_api: Any) -> None:
    answer = await shared_api.get("/v1/health", token=None)
    assert answer.status == 200
    assert answer.json["status"] == "ok"


@pytest.mark.parametrize("path", ["/v1/status", "/v1/openapi.json", "/v1/events/stream"])
@pytest.mark.parametrize("token", [None, "wrong-token", ""])
async def test_routes_refuse_a_missing_or_wrong_token(
    shared_api: Any, path: str, token: str | None
) -> None:
    headers = {"Authorization": "Bearer "} if token == "" else None
    answer = await shared_api.get(path, token=token if token else None, headers=headers)
    assert answer.status == 401
    assert answer.json["error"]["code"] == "unauthorized"
    assert answer.headers["WWW-Authenticate"] == "Bearer"


async def test_post_routes_check_the_token_before_the_body(shared_api: Any) -> None:
    answer = await shared_api.request("POST", "/v1/search", data=b"{not json", token="nope")
    assert answer.status == 401


async def test_the_token_scheme_is_case_insensitive(shared_api: Any) -> None:
    headers = {"Authorization": f"bearer {shared_api.token}"}
    answer = await shared_api.get("/v1/status", headers=headers)
    assert answer.status == 200


@pytest.mark.parametrize("origin", ["https://evil.example", "http://localhost:3000", "null"])
@pytest.mark.parametrize("path", ["/v1/health", "/v1/status"])
async def test_a_foreign_origin_is_forbidden(shared_api: Any, origin: str, path: str) -> None:
    answer = await shared_api.get(path, headers={"Origin": origin})
    assert answer.status == 403
    assert answer.json["error"]["code"] == "forbidden"
    assert "Access-Control-Allow-Origin" not in answer.headers


async def test_the_obsidian_origin_is_allowed_and_may_read_answers(shared_api: Any) -> None:
    answer = await shared_api.get("/v1/status", headers={"Origin": OBSIDIAN})
    assert answer.status == 200
    assert answer.headers["Access-Control-Allow-Origin"] == OBSIDIAN
    refused = await shared_api.get("/v1/status", headers={"Origin": OBSIDIAN}, token="wrong")
    assert refused.status == 401
    assert refused.headers["Access-Control-Allow-Origin"] == OBSIDIAN


@pytest.mark.parametrize(
    "host",
    ["evil.example:{port}", "evil.example", "127.0.0.1:1", "localhost", "127.0.0.2:{port}",
     "localhost.evil.example:{port}", ""],
)
async def test_a_rebinding_host_is_forbidden(shared_api: Any, host: str) -> None:
    answer = await shared_api.get("/v1/health", headers={"Host": host.format(port=shared_api.port)})
    assert answer.status == 403
    assert answer.json["error"]["code"] == "forbidden"


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "LOCALHOST", "[::1]"])
async def test_loopback_host_names_with_the_right_port_are_accepted(
    shared_api: Any, name: str
) -> None:
    answer = await shared_api.get("/v1/status", headers={"Host": f"{name}:{shared_api.port}"})
    assert answer.status == 200


async def test_cors_preflight_from_obsidian_gets_allow_headers(shared_api: Any) -> None:
    answer = await shared_api.request(
        "OPTIONS", "/v1/search", token=None,
        headers={"Origin": OBSIDIAN, "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "authorization, content-type"},
    )
    assert answer.status == 204
    assert answer.headers["Access-Control-Allow-Origin"] == OBSIDIAN
    assert "POST" in answer.headers["Access-Control-Allow-Methods"]
    assert "Authorization" in answer.headers["Access-Control-Allow-Headers"]


@pytest.mark.parametrize("origin", ["https://evil.example", None])
async def test_cors_preflight_from_elsewhere_gets_no_allow_headers(
    shared_api: Any, origin: str | None
) -> None:
    headers = {"Access-Control-Request-Method": "POST"}
    if origin:
        headers["Origin"] = origin
    answer = await shared_api.request("OPTIONS", "/v1/search", token=None, headers=headers)
    assert answer.status in (403, 405)
    assert not any(h.startswith("Access-Control-Allow") for h in answer.headers)
