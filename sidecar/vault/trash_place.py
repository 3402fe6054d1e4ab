"""Where files taken out of a note go: the trash the note is moved to (VAULT/.trash/, or a private
folder's own `.trash/`: `trash_of`), found from a folder too (`trash_of_folder`), and where a
write keeps a file that may hold another program's save (`Trash`).
"""

from __future__ import annotations

import contextlib
from pathlib import Path, PurePosixPath

from sidecar.vault.held_open import keep
from sidecar.vault.vault_settings import VaultSettings, is_private_path, load_vault_settings

TRASH_FOLDER = ".trash"


def trash_of(settings: VaultSettings, rel: str) -> str:
    """The trash folder a note goes to: VAULT/.trash/ as Obsidian's, but for a note of a folder
    ora.yaml's `private` covers, the `.trash/` at the top of that folder (`Health/.trash/`):
    its text never leaves where the private rule covers it."""
    name = PurePosixPath(rel).name
    for folder in reversed(PurePosixPath(rel).parents[:-1]):  # the shallowest first
        trash = f"{folder.as_posix()}/{TRASH_FOLDER}"
        if is_private_path(settings, f"{trash}/{name}"):
            return trash
    return TRASH_FOLDER


# What marks a vault's top folder (`trash_of_folder`): Obsidian's settings, Ora's vault settings,
# Ora's undo journals.
_VAULT_MARKS = (".obsidian", "ora.yaml", ".ora-journal")


def trash_of_folder(folder: Path, vault: Path | None, settings: VaultSettings | None = None,
                    name: str = "note.md") -> Path:
    """The trash the note `name` of `folder` goes to (`trash_of`: the vault's `.trash/`, or the
    one at the top of a private folder, so a private note's text stays where its rule covers
    it), by `settings`, else by the vault's ora.yaml. The vault is `vault`, else the nearest
    folder above with a `_VAULT_MARKS` entry; with none, `folder`'s own `.trash/`, which lies
    inside any private folder that covers it."""
    here = folder.absolute()
    root = vault.absolute() if vault is not None else next(
        (p for p in (here, *here.parents) if any((p / m).exists() for m in _VAULT_MARKS)), None)
    if root is None or not here.is_relative_to(root):
        return here / TRASH_FOLDER
    rel = here.relative_to(root).as_posix()
    note = name if rel == "." else f"{rel}/{name}"
    known = settings if settings is not None else load_vault_settings(root, None)
    return root / trash_of(known, note)


class Trash:
    """Where a write keeps a file it takes out of the note `path` that may hold another
    program's save (`write.py`'s `_keep_other`, `_keep_removed`, `_clear_temp`): the trash
    that note goes to, as every trash move (`trash_of_folder`: a private folder's own
    `.trash/`, so its text never leaves the folder). Found only when something is kept: it
    reads the vault's settings, and most writes keep nothing."""

    def __init__(self, path: Path, vault: Path | None) -> None:
        self.path, self.vault = path, vault

    def keep(self, file: Path, name: str) -> str:
        """Move `file` into the trash under `name` (`held_open.keep`); where it went, from the
        vault when known (`Health/.trash/n.md`)."""
        # A file not named from a vault (Ora's journal, the manifest) keeps its copy beside it.
        trash = (trash_of_folder(self.path.parent, self.vault, name=self.path.name)
                 if self.vault is not None else self.path.parent / TRASH_FOLDER)
        kept = keep(file, trash, name)
        if self.vault is None or not kept.startswith(f"{trash.name}/"):
            return kept  # the trash would not take it: beside the note, by that name
        with contextlib.suppress(ValueError):
            return f"{trash.relative_to(self.vault.absolute()).as_posix()}/{Path(kept).name}"
        return kept
