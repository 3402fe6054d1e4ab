"""The OpenAPI document is the contract: it is served as is and it validates every request body.

Request schemas live in `components/schemas` of `openapi.json`; handlers name the one they expect,
so a field added to the document is a field the server accepts, and nothing else is.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from aiohttp import web
from jsonschema import Draft202012Validator, validators

from sidecar.errors import BadRequest

# jsonschema quotes the offending value: a long one is shown shortened, so the error stays
# readable and still says what is wrong; a message still longer keeps its start and its end.
_MAX_MESSAGE = 300
_MAX_SHOWN = 40


@functools.cache
def openapi_document() -> dict[str, Any]:
    text = resources.files("sidecar.server").joinpath("openapi.json").read_text("utf-8")
    doc: dict[str, Any] = json.loads(text)
    return doc


def _is_int(_checker: object, instance: object) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


# JSON Schema counts 10.0 as an integer; Python code slicing or counting with it would fail, so
# the API asks for integers written as integers.
_Validator = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_int),
)


def field_range(schema_name: str, field: str) -> tuple[int, int]:
    """(minimum, maximum) of an integer field of a request schema: the one bound the API
    validates, which the CLI's options take too (`--k` of search, ask and related)."""
    prop = openapi_document()["components"]["schemas"][schema_name]["properties"][field]
    return int(prop["minimum"]), int(prop["maximum"])


def field_max_length(schema_name: str, field: str) -> int:
    """`maxLength` of a string field of a request schema: the one limit the API validates,
    which the CLI's arguments take too (the query of `ora search`, the question of `ora ask`)."""
    prop = openapi_document()["components"]["schemas"][schema_name]["properties"][field]
    return int(prop["maxLength"])


def too_long(length: int, limit: int, unit: str = "characters") -> str:
    """Why a value over its limit is refused, as the API and the CLI both say it."""
    return f"is too long: {length:,} {unit}, at most {limit:,}"


def _shown(value: Any) -> str:
    quoted = repr(value)
    return quoted if len(quoted) <= _MAX_SHOWN else f"{quoted[:_MAX_SHOWN]}…"


def _message(error: Any) -> str:
    """jsonschema's message for `error` (a ValidationError) with the value it quotes shortened,
    so a long value never crowds out the reason; a value too long says its length and limit."""
    if error.validator in ("maxLength", "maxItems") and isinstance(error.instance, str | list):
        unit = "characters" if error.validator == "maxLength" else "items"
        why = too_long(len(error.instance), int(error.validator_value), unit)
        return f"{_shown(error.instance)} {why}"
    message = str(error.message)
    quoted = repr(error.instance)
    if len(quoted) > _MAX_SHOWN and quoted in message:
        message = message.replace(quoted, _shown(error.instance))
    if len(message) > _MAX_MESSAGE:
        half = _MAX_MESSAGE // 2
        message = f"{message[:half]}…{message[-half:]}"
    return message


@functools.cache
def _validator(schema_name: str) -> Any:
    doc = openapi_document()
    if schema_name not in doc["components"]["schemas"]:
        raise KeyError(f"openapi.json has no components/schemas/{schema_name}")
    # The components ride along so that "#/components/schemas/..." references resolve.
    schema = {"$ref": f"#/components/schemas/{schema_name}", "components": doc["components"]}
    return _Validator(schema)


def validate(schema_name: str, value: Any) -> None:
    """Raise BadRequest naming the first field that breaks components/schemas/<schema_name>."""
    error = next(iter(_validator(schema_name).iter_errors(value)), None)
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "body"
        if len(where) > _MAX_SHOWN:  # a key the caller chose (an edit's id) is part of the path
            where = f"{where[:_MAX_SHOWN]}…"
        raise BadRequest(f"{where}: {_message(error)}")


def query_flag(request: web.Request, name: str) -> bool:
    """A boolean query parameter, `true` or `false` (absent is false; anything else is 400)."""
    raw = request.query.get(name, "false")
    if raw not in ("true", "false"):
        raise BadRequest(f"{name} must be true or false, got {raw!r}")
    return raw == "true"


async def read_json(request: web.Request, schema_name: str) -> dict[str, Any]:
    """The request's JSON body, checked against the document (400 if malformed, 413 if large)."""
    raw = await request.read()
    try:
        value = json.loads(raw or b"{}")
        # JSON may escape lone surrogates (\ud800), which no file, database or tokenizer accepts.
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise BadRequest("the body holds text that is not Unicode (a lone surrogate)") from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(f"the body is not valid JSON: {exc}") from exc
    except RecursionError as exc:  # `[[[[…` 100,000 deep: no request of ours nests so
        raise BadRequest("the body is nested too deeply to be a request") from exc
    try:
        validate(schema_name, value)
    except RecursionError as exc:
        raise BadRequest("the body is nested too deeply to be a request") from exc
    if not isinstance(value, dict):
        raise BadRequest("the body must be a JSON object")
    return value
