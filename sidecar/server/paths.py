"""Vault-relative paths from request bodies, checked before they reach the file system.

A name longer than file systems allow would surface as an OS error deep in the library, so it is
refused here with a 400 that says why (text that is not valid Unicode is refused earlier, by
`openapi.read_json`).
"""

from __future__ import annotations

from sidecar.errors import BadRequest
from sidecar.vault.scan import is_ignored, normalise_rel

# The longest file or folder name the common file systems (ext4, APFS, NTFS) accept, in bytes.
_NAME_BYTES = 255


def request_path(raw: str) -> str:
    """`raw` as a clean vault-relative path (BadRequest if it leaves the vault or cannot exist)."""
    rel = normalise_rel(raw)
    if any(len(part.encode("utf-8")) > _NAME_BYTES for part in rel.split("/")):
        raise BadRequest(f"a name in {raw!r} is longer than {_NAME_BYTES} bytes")
    return rel


def note_path(raw: str) -> str:
    """`request_path`, and it must name a note (`.md`, outside dot-folders)."""
    rel = request_path(raw)
    if is_ignored(rel):
        raise BadRequest(f"{rel} is not a note: notes are .md files outside dot-folders")
    return rel
