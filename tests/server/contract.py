"""Every response the server tests see is checked against sidecar/server/openapi.json.

`check_response` is called by the `Api` wrapper on each answer, in-process or from a live
`ora serve`, so a route that drifts from its documented shape fails the test that exercised it.
Answers to requests the document has no operation for (unknown path, wrong method, refused
before routing) must still be the one error shape.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from multidict import CIMultiDictProxy

from sidecar.server.openapi import openapi_document

DOC = openapi_document()


def _template_regex(template: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template)) + "$")


_PATHS = [(_template_regex(t), item) for t, item in DOC["paths"].items()]


def operation(method: str, path: str) -> dict[str, Any] | None:
    for regex, item in _PATHS:
        if regex.match(path):
            op: dict[str, Any] | None = item.get(method.lower())
            return op
    return None


def _schema_validator(schema: dict[str, Any]) -> Draft202012Validator:
    return Draft202012Validator({**schema, "components": DOC["components"]})


def _resolve(spec: dict[str, Any]) -> dict[str, Any]:
    ref = spec.get("$ref")
    if ref is None:
        return spec
    node: Any = DOC
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return _resolve(node)


ERROR = {"$ref": "#/components/schemas/Error"}


@dataclass
class Answer:
    status: int
    headers: CIMultiDictProxy[str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


def check_response(method: str, path: str, answer: Answer) -> None:
    """Assert that `answer` is what the OpenAPI document promises for `method path`."""
    media = answer.headers.get("Content-Type", "").split(";")[0].strip()
    if method == "OPTIONS" and answer.status == 204:
        assert answer.body == b""
        return
    op = operation(method, path)
    if op is None:
        assert answer.status >= 400, f"{method} {path} is undocumented yet answered {answer.status}"
        schema, wanted = ERROR, "application/json"
    else:
        spec = op["responses"].get(str(answer.status)) or op["responses"].get("default")
        assert spec is not None, (
            f"{method} {path} answered {answer.status}, which openapi.json does not list: "
            f"{answer.body[:300]!r}"
        )
        content = _resolve(spec)["content"]
        assert media in content, f"{method} {path} answered {media}, documented {list(content)}"
        schema, wanted = content[media]["schema"], media
    assert media == wanted, f"{method} {path} answered {media}, expected {wanted}"
    if media == "application/json":
        errors = sorted(_schema_validator(schema).iter_errors(json.loads(answer.body)), key=str)
        assert not errors, f"{method} {path} {answer.status}: {errors[0].message}"
