"""One error shape for the library, the CLI and the HTTP API.

Every failure a user can cause or fix is an `OraError` subclass carrying a stable `code`, an HTTP
`status`, and a message that says what to do. The CLI prints `message`; the server returns
`error_body(err)`.
"""

from __future__ import annotations

from typing import Any


class OraError(Exception):
    """Base class: a failure with a stable code and a message meant for a person."""

    code = "ora_error"
    status = 500

    def __init__(self, message: str, *, code: str | None = None, status: int | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status


class BadRequest(OraError):
    """The request or command-line input is malformed."""

    code = "bad_request"
    status = 400


class NotFound(OraError):
    """A named note, pair, route or resource does not exist."""

    code = "not_found"
    status = 404


class Conflict(OraError):
    """The file changed since it was read, or the action no longer applies."""

    code = "conflict"
    status = 409


class IndexLocked(OraError):
    """Another process is writing this index."""

    code = "index_locked"
    status = 423


class ModelUnavailable(OraError):
    """A model's files are missing; the message says how to add them."""

    code = "model_unavailable"
    status = 503


class SchemaDataError(OraError):
    """A file under schema/ is missing or malformed."""

    code = "schema_data"
    status = 500


class UnreadableNote(OraError):
    """A note file is binary, not UTF-8, or larger than the size limit; `code` says which."""

    code = "unreadable_note"
    status = 422


class IndexDamaged(OraError):
    """An index file is damaged or missing; a writer rebuilds it, a reader names the command."""

    code = "index_damaged"
    status = 503


class InvalidFrontmatter(OraError):
    """A note's frontmatter cannot be edited safely because its YAML is invalid."""

    code = "invalid_frontmatter"
    status = 422


class InvalidSettings(OraError):
    """The vault's settings file (ora.yaml) cannot be edited safely: invalid YAML or shape."""

    code = "invalid_settings"
    status = 422


class NoteNotWritable(OraError):
    """A note is read-only (no write permission) or immutable: Ora refuses to write it."""

    code = "note_not_writable"
    status = 409


class RerankerFailed(OraError):
    """A re-ranker (the Cohere API or a local model) could not score this request."""

    code = "reranker_failed"
    status = 502


class LlmFailed(OraError):
    """The OpenAI-compatible chat endpoint (`llm_url`) failed, timed out or answered nonsense."""

    code = "llm_failed"
    status = 502


def error_body(err: OraError) -> dict[str, Any]:
    """The JSON body every error response carries: {"error": {"code", "message"}}."""
    return {"error": {"code": err.code, "message": err.message}}
