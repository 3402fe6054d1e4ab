"""A test vault written from a mapping of note paths to their text (or raw bytes)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def write_notes(root: Path, notes: Mapping[str, str | bytes]) -> Path:
    """Write each note at `root / path`, making its folders; text is written as UTF-8."""
    for rel, text in notes.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return root
