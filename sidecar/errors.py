"""One error shape for the library, the CLI and the HTTP API.

Every failure a user can cause or fix is an `OraError` subclass carrying a stable `code`, an HTTP
`status`, and a message that says what to do. The CLI prints `message`; the server returns
`error_body(err)`.
"""

from __future__ import annotations

import errno
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


class PrivateWithheld(LlmFailed):
    """Private text was not sent: the endpoint is not on this machine and not trusted with it
    (`private_remote_ok`, docs/privacy.md)."""

    code = "private_withheld"
    status = 409


class StorageUnavailable(OraError):
    """The disk under Ora's data folder is full or cannot be written (SQLite's, tantivy's,
    Chroma's or the OS's own error, recognised by `storage_error`)."""

    code = "storage_unavailable"
    status = 507


# What full and unwritable disks look like in the messages of the stores' own errors (SQLite,
# tantivy's "(os error N)", Chroma's wrapped ones), which carry no errno.
_FULL = ("no space left on device", "os error 28", "database or disk is full",
         "disk quota exceeded", "os error 122")
_READ_ONLY = ("read-only file system", "os error 30", "readonly database")
_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT}
_READ_ONLY_ERRNOS = {errno.EROFS}


def storage_error(exc: BaseException) -> StorageUnavailable | None:
    """The StorageUnavailable that `exc` (or an error it was raised from) amounts to, or None.

    The message names the cause only, never the file: it may be a private note's."""
    seen: BaseException | None = exc
    for _ in range(8):  # the chain of causes, bounded
        if seen is None:
            return None
        text = str(seen).lower()
        number = seen.errno if isinstance(seen, OSError) else None
        if number in _FULL_ERRNOS or any(marker in text for marker in _FULL):
            return StorageUnavailable(
                "the disk holding Ora's data folder is full: free some space, then try again. "
                "Nothing was lost: notes are written whole or not at all, and the index resumes "
                "where it stopped")
        if number in _READ_ONLY_ERRNOS or any(marker in text for marker in _READ_ONLY):
            return StorageUnavailable(
                "Ora's data folder is on a read-only disk or cannot be written: give it a "
                "writable place (`--data DIR`), then try again", status=503)
        seen = seen.__cause__ or seen.__context__
    return None


def error_body(err: OraError) -> dict[str, Any]:
    """The JSON body every error response carries: {"error": {"code", "message"}}."""
    return {"error": {"code": err.code, "message": err.message}}
