"""Note edits: a frontmatter change or an appended text, planned from one read and written
through the compare-and-swap writer (`write.py`).

`plan_edit` reads a note once and raises every refusal (gone, changed, empty, read-only,
unreadable, frontmatter it cannot edit) before anything is written; `write_planned` writes a
batch all or none. The text itself is `frontmatter_edit.py`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sidecar.errors import InvalidFrontmatter, OraError, UnreadableNote
from sidecar.vault.frontmatter_edit import Mutation, line_ending, rewrite_frontmatter
from sidecar.vault.scan import normalise_rel, vault_path
from sidecar.vault.write import (
    atomic_write,
    check_hash,
    check_not_empty,
    check_writable,
    content_hash,
    read_bytes,
)


@dataclass(frozen=True)
class PlannedEdit:
    """One frontmatter edit computed but not yet written: the exact bytes it was planned from
    and the bytes that replace them."""

    rel: str
    path: Path
    before: bytes
    after: bytes

    @property
    def before_hash(self) -> str:
        return content_hash(self.before)

    @property
    def after_hash(self) -> str:
        return content_hash(self.after)


def plan_edit(
    vault: str | Path, rel: str, mutate: Mutation, expected_hash: str | None = None
) -> PlannedEdit:
    """Read VAULT/rel once and compute `mutate`'s edit of it, writing nothing.

    Every refusal happens here: NotFound, Conflict (not `expected_hash`, or empty: most often an
    editor between its truncate and its write), NoteNotWritable (read-only), UnreadableNote,
    InvalidFrontmatter (naming the note).
    """
    path = vault_path(vault, rel)
    data = read_bytes(path, rel)
    check_hash(data, expected_hash, rel)
    check_writable(path, rel)
    check_not_empty(data, rel)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableNote(f"{rel} is not UTF-8", code="undecodable_file") from exc
    try:
        new_data = rewrite_frontmatter(text, mutate).encode("utf-8")
    except InvalidFrontmatter as err:  # name the note: the caller may be editing many
        raise InvalidFrontmatter(f"{rel}: {err.message}") from err
    return PlannedEdit(normalise_rel(rel), path, data, new_data)


def write_planned(edits: list[PlannedEdit]) -> None:
    """Write planned edits all or none: each is a compare-and-swap against the bytes it was
    planned from; when one fails, those already written are put back (each only while it
    still holds what was written) and the error is raised, naming any that could not be."""
    written: list[PlannedEdit] = []
    for edit in edits:
        if edit.after == edit.before:
            continue
        try:
            atomic_write(edit.path, edit.after, edit.before_hash, edit.rel)
        except OraError as err:
            kept = []
            for done in reversed(written):
                try:
                    atomic_write(done.path, done.before, done.after_hash, done.rel)
                except OraError:
                    kept.append(done.rel)
            if not kept:
                raise
            message = (f"{err.message} ({', '.join(kept)} changed again meanwhile and keeps "
                       "the edit)")
            raise type(err)(message, code=err.code, status=err.status) from err
        written.append(edit)


def edit_frontmatter(
    vault: str | Path, rel: str, mutate: Mutation, expected_hash: str | None = None
) -> str:
    """Apply `mutate` to the frontmatter of VAULT/rel; returns the file's new content hash.

    The file is read once (`plan_edit`); the write is planned from those bytes and swapped in
    only while the file still holds them. Raises Conflict when the file's hash is not
    `expected_hash` (if given), when it is empty, or when it changes before the swap. Nothing
    is written when the mutation changes nothing.
    """
    edit = plan_edit(vault, rel, mutate, expected_hash)
    write_planned([edit])
    return edit.after_hash


def append_to_note(
    vault: str | Path, rel: str, text: str, mutate: Mutation | None = None,
    expected_hash: str | None = None, *, blank_line: bool = True,
) -> tuple[str, str]:
    """Append `text` (after a blank line unless not `blank_line`) to VAULT/rel, in the file's
    own line endings, with an optional frontmatter `mutate` in the same atomic write;
    (hash read, new hash).

    Every existing byte is kept except frontmatter keys `mutate` changes. Conflict when the file
    is not `expected_hash` (if given), is empty, or changes before the write.
    """
    path = vault_path(vault, rel)
    data = read_bytes(path, rel)
    read_hash = check_hash(data, expected_hash, rel)
    check_not_empty(data, rel)
    try:
        old = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableNote(f"{rel} is not UTF-8", code="undecodable_file") from exc
    nl = line_ending(old)
    new = rewrite_frontmatter(old, mutate) if mutate is not None else old
    if new and not new.endswith(("\n", "\r")):
        new += nl
    new += (nl if blank_line else "") + text.replace("\r\n", "\n").replace("\n", nl)
    new_data = new.encode("utf-8")
    atomic_write(path, new_data, read_hash, rel)
    return read_hash, content_hash(new_data)
