"""One error shape for the library, the CLI and the HTTP API.

Every failure a user can cause or fix is an `OraError` subclass carrying a stable `code`, an HTTP
`status`, and a message that says what to do. The CLI prints `message`; the server returns
`error_body(err)`.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from pathlib import Path
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
# Some stores say only that they failed: SQLite's "disk I/O error" (it could not size its
# shared-memory file) or "unable to open database file" (nor create it), Chroma's "Error in
# compaction". Such an error is a full disk when the folder it wrote in has less room left than
# this, and an unwritable one when its file system is mounted read-only (`disk_state`).
NEARLY_FULL = 1 << 20


def _full() -> StorageUnavailable:
    return StorageUnavailable(
        "the disk holding Ora's data folder is full: free some space, then try again. "
        "Nothing was lost: notes are written whole or not at all, and the index resumes "
        "where it stopped")


def _read_only() -> StorageUnavailable:
    return StorageUnavailable(
        "Ora's data folder is on a read-only disk or cannot be written: give it a "
        "writable place (`--data DIR`), then try again", status=503)


def _maybe_full(folder: Path) -> StorageUnavailable:
    return StorageUnavailable(
        f"Ora could not write its search index in {folder}: the disk holding Ora's data folder "
        "may be full, or the folder cannot be written. Free some space (or give Ora a writable "
        "place, `--data DIR`), then try again. Nothing was lost: the index resumes where it "
        "stopped")


def _causes(exc: BaseException) -> list[BaseException]:
    """`exc` and the errors it was raised from (bounded)."""
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and len(chain) < 8:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    return chain


def disk_state(folder: Path) -> str | None:
    """"full" when the disk under `folder` (or its nearest existing parent) has less than
    NEARLY_FULL bytes free, "read-only" when it is mounted read-only or cannot be written, else
    None."""
    where = folder
    while not where.exists() and where.parent != where:
        where = where.parent
    statvfs = getattr(os, "statvfs", None)  # not on Windows
    try:
        if statvfs is not None and statvfs(where).f_flag & os.ST_RDONLY:
            return "read-only"
        if not os.access(where, os.W_OK):
            return "read-only"
        if shutil.disk_usage(where).free < NEARLY_FULL:
            return "full"
    except OSError:
        return None
    return None


def _a_store_s(exc: BaseException) -> bool:
    """An error a store raised about its files: SQLite's, the OS's, Chroma's (never a bug of
    ours such as a KeyError, whatever the disk's state)."""
    return isinstance(exc, sqlite3.Error | OSError) or type(exc).__module__.startswith("chromadb")


def storage_error(exc: BaseException, folder: Path | None = None) -> StorageUnavailable | None:
    """The StorageUnavailable that `exc` (or an error it was raised from) amounts to, or None.

    With `folder` (where the failing store keeps its files), a store's error that names no cause
    is judged by that disk's state (`disk_state`). The message names the cause only, never the
    file: it may be a private note's."""
    chain = _causes(exc)
    for seen in chain:
        text = str(seen).lower()
        number = seen.errno if isinstance(seen, OSError) else None
        if number in _FULL_ERRNOS or any(marker in text for marker in _FULL):
            return _full()
        if number in _READ_ONLY_ERRNOS or any(marker in text for marker in _READ_ONLY):
            return _read_only()
    if folder is not None and any(map(_a_store_s, chain)):
        state = disk_state(folder)
        if state == "full":
            return _full()
        if state == "read-only":
            return _read_only()
    return None


# tantivy's errors about its own files. A killed writer (its worker thread failed, an io::Error
# most likely) says no more, and tantivy removes what it was writing, so the disk may show room
# again by the time `disk_state` looks: a full tmpfs was seen with 11 MB free afterwards.
_ENGINE_IO = ("index writer was killed", "an io error occurred", "failed to open file for write")


def engine_storage_error(exc: BaseException, folder: Path) -> StorageUnavailable | None:
    """The StorageUnavailable that a failed write of the tantivy index in `folder` amounts to:
    `storage_error`'s when the error names the cause; for another I/O failure of tantivy's, the
    disk's state (`disk_state`) or, when it shows room, one saying the disk may be full or the
    folder unwritable, naming the folder (Ora's, never a note's). None for any other error."""
    found = storage_error(exc, folder)
    if found is not None:
        return found
    if not any(marker in str(seen).lower() for seen in _causes(exc) for marker in _ENGINE_IO):
        return None
    state = disk_state(folder)
    if state == "full":
        return _full()
    if state == "read-only":
        return _read_only()
    return _maybe_full(folder)


def error_body(err: OraError) -> dict[str, Any]:
    """The JSON body every error response carries: {"error": {"code", "message"}}."""
    return {"error": {"code": err.code, "message": err.message}}
