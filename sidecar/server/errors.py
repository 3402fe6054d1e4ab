"""The one error middleware: every failure leaves as `{"error": {"code", "message"}}`.

Library errors keep their code and status; aiohttp's own (404, 405, 413) get a stable code; anything
unexpected is logged with its traceback and answered with a plain 500, never the traceback itself.
"""

from __future__ import annotations

import asyncio
import logging

from aiohttp import web
from aiohttp.typedefs import Handler

from sidecar.errors import OraError, error_body, storage_error

log = logging.getLogger("sidecar.server")

# Codes for the HTTP errors aiohttp raises itself, by status.
_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
}


def error_response(err: OraError, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response(error_body(err), status=err.status, headers=headers)


def _from_http(exc: web.HTTPException) -> web.Response:
    code = _HTTP_CODES.get(exc.status, "http_error")
    message = exc.text if exc.text and not exc.text.startswith(f"{exc.status}:") else exc.reason
    if exc.status == 404:
        message = "no such route; see GET /v1/openapi.json"
    keep = {k: v for k, v in exc.headers.items() if k in ("Allow", "WWW-Authenticate")}
    return error_response(OraError(message, code=code, status=exc.status), keep)


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return _from_http(exc)
    except OraError as err:
        headers = {"WWW-Authenticate": "Bearer"} if err.status == 401 else None
        return error_response(err, headers)
    except (asyncio.CancelledError, ConnectionResetError):
        raise
    except Exception as exc:
        storage = storage_error(exc)
        if storage is not None:  # a full or read-only disk: say so, not "internal error"
            log.error("%s %s: %s (%s)", request.method, request.path, storage.message, exc)
            return error_response(storage)
        log.exception("unhandled error in %s %s", request.method, request.path)
        return error_response(
            OraError("internal error; the sidecar's log has the details", code="internal")
        )
