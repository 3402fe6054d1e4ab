"""Vault-relative paths from request bodies, checked before they reach the file system.

JSON can carry text no file name can hold (lone surrogates) and names longer than file systems
allow; both would surface as encoding or OS errors deep in the library, so they are refused here
with a 400 that says why.
"""

from __future__ import annotations

from sidecar.errors import BadRequest
from sidecar.vault.scan import is_ignored, normalise_rel

# The longest file or folder name the common file systems (ext4, APFS, NTFS) accept, in bytes.
_NAME_BYTES = 255


def request_path(raw: str) -> str:
    """`raw` as a clean vault-relative path (BadRequest if it leaves the vault or cannot exist)."""
    rel = normalise_rel(raw)
    try:
        parts = [part.encode("utf-8") for part in rel.split("/")]
    except UnicodeEncodeError as exc:
        raise BadRequest(f"path {raw!r} is not valid Unicode text") from exc
    if any(len(part) > _NAME_BYTES for part in parts):
        raise BadRequest(f"a name in {raw!r} is longer than {_NAME_BYTES} bytes")
    return rel


def note_path(raw: str) -> str:
    """`request_path`, and it must name a note (`.md`, outside dot-folders)."""
    rel = request_path(raw)
    if is_ignored(rel):
        raise BadRequest(f"{rel} is not a note: notes are .md files outside dot-folders")
    return rel
