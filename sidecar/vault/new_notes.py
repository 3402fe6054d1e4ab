"""New notes Ora writes under a name of their own (a saved web page, a kept engram).

A note is named for its title, in the folder the vault settings type for it. Obsidian resolves a
link by the note's name wherever it is, so a second note of a name would make the vault's links
to the first ambiguous: the name gets a number (`Name 2`) while any note of the vault has it.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path, PurePosixPath

from sidecar.errors import Conflict
from sidecar.vault.edit import create_note
from sidecar.vault.scan import iter_note_paths
from sidecar.vault.vault_settings import VaultSettings

_UNSAFE = re.compile(r'[\\/:*?"<>|#^\[\]\x00-\x1f]+')
_MAX_NAME = 100


def safe_name(title: str, fallback: str) -> str:
    """`title` as a file name: no characters a path or a wikilink cannot hold."""
    return _UNSAFE.sub(" ", title).strip(" .")[:_MAX_NAME].strip(" .") or fallback


def type_folder(settings: VaultSettings, type_name: str, default: str) -> str:
    """The folder the vault settings type as `type_name` (the shortest such rule), else
    `default`."""
    folders = sorted((p for p, t in settings.folders if t == type_name), key=len)
    return folders[0].strip("/") if folders else default


def taken_names(vault: str | Path) -> set[str]:
    """The note names of the vault, case-folded."""
    return {PurePosixPath(rel).stem.casefold() for rel in iter_note_paths(vault)}


def create_named(vault: str | Path, folder: str, name: str, text: str,
                 taken: Collection[str]) -> tuple[str, str]:
    """Write `text` as a new note `folder/name.md` (numbered while the name is `taken` or the
    file exists); its vault path and hash."""
    for n in range(1, 1000):
        stem = name if n == 1 else f"{name} {n}"
        if stem.casefold() in taken:
            continue
        rel = f"{folder}/{stem}.md" if folder else f"{stem}.md"
        try:
            return rel, create_note(vault, rel, text)
        except Conflict:
            continue
    raise Conflict(f"no free file name for {name!r} in {folder or 'the vault'}")
