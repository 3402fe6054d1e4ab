"""The vault on disk: which files are notes, how a note parses, links and the one writer.

Writing goes through `sidecar.vault.write` only (note edits through `sidecar.vault.edit`, moves
to the trash and back through `sidecar.vault.trash`).
This package reads nothing of Ora's later stages: chunking and lint read it, never the reverse
(tests/test_code_quality.py checks the direction).
"""

from sidecar.vault.links import NameIndex, parse_wikilink
from sidecar.vault.note import Note, parse_note, read_note
from sidecar.vault.scan import is_ignored, iter_note_paths

__all__ = [
    "NameIndex",
    "Note",
    "is_ignored",
    "iter_note_paths",
    "parse_note",
    "parse_wikilink",
    "read_note",
]
