"""The OpenAPI document, the routes and docs/http-api.md describe the same API."""

from __future__ import annotations

from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from sidecar.server.app import init_app
from sidecar.server.openapi import openapi_document
from sidecar.settings import Config

ROOT = Path(__file__).resolve().parents[2]
DOC = openapi_document()
OPERATIONS = sorted(
    (method.upper(), path) for path, item in DOC["paths"].items() for method in item
)


def _routes(config: Config) -> set[tuple[str, str]]:
    app = init_app(config)
    return {
        (route.method, route.resource.canonical)
        for route in app.router.routes()
        if route.method != "HEAD" and route.resource is not None
    }


def test_every_route_is_documented_and_every_operation_is_served(config: Config) -> None:
    assert _routes(config) == set(OPERATIONS)


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_every_operation_is_in_http_api_md(method: str, path: str) -> None:
    text = (ROOT / "docs" / "http-api.md").read_text(encoding="utf-8")
    assert f"`{method} {path}" in text


@pytest.mark.parametrize("name", sorted(DOC["components"]["schemas"]))
def test_every_schema_is_valid_json_schema(name: str) -> None:
    Draft202012Validator.check_schema(DOC["components"]["schemas"][name])


def test_every_operation_documents_its_auth_errors() -> None:
    for method, path in OPERATIONS:
        responses = DOC["paths"][path][method.lower()]["responses"]
        assert "403" in responses, f"{method} {path}"
        public = DOC["paths"][path][method.lower()].get("security") == []
        assert public or "401" in responses, f"{method} {path}"
