"""New notes Ora writes under a name of their own (a saved web page, a kept engram).

A note is named for its title, in the folder the vault settings type for it. Obsidian resolves a
link by the note's name wherever it is, so a second note of a name would make the vault's links
to the first ambiguous: the name gets a number (`Name 2`) while any note of the vault has it.
Names are compared as Obsidian and the file systems of macOS and Windows compare them: case
aside, and composed (NFC), so a title typed decomposed (`Cafe` + U+0301) is not a second `Café`
next to the first (`folded`). A name is written composed.
"""

from __future__ import annotations

import re
from collections.abc import Container
from pathlib import Path, PurePosixPath

from sidecar.errors import BadRequest, Conflict, OraError
from sidecar.vault.inert import encodable
from sidecar.vault.note import read_note
from sidecar.vault.scan import as_saved, composed_name, folded, is_ignored, iter_note_paths
from sidecar.vault.vault_settings import (
    VaultSettings,
    folder_for_type,
    load_vault_settings,
    note_private,
)
from sidecar.vault.write import create_note

_UNSAFE = re.compile(r'[\\/:*?"<>|#^\[\]\x00-\x1f]+')
# Names Windows keeps for devices, with any extension (`CON.md`): a vault synced there breaks.
_DEVICE = re.compile(r"(?:CON|PRN|AUX|NUL|COM[0-9¹²³]|LPT[0-9¹²³])(?:\..*)?", re.I)
_NAME_MAX = 255  # bytes of one file name (ext4, APFS, and most others)
_WRITER_ROOM = len("..01234567.ora-tmp")  # the writer's temporary copy: `.NAME.xxxxxxxx.ora-tmp`
_NAME_CHARS = 100  # a title cut for a file name: enough to tell notes apart
_NOTE = ".md"
_SUFFIX_ROOM = len(" 999")  # the numbered names create_named tries


def safe_name(*candidates: str, fallback: str, reserve: int = 0) -> str:
    """The first candidate that makes a file name (no character a path or a wikilink cannot
    hold, no leading dot, short enough in UTF-8 bytes for the numbered names create_named
    tries, and `reserve` bytes more the caller adds), else `fallback`."""
    room = _NAME_MAX - _WRITER_ROOM - len(_NOTE) - _SUFFIX_ROOM - reserve

    def safe(candidate: str) -> str:
        # one space for each run of unsafe characters and spaces (`a: b` is `a b`, not `a  b`)
        name = " ".join(_UNSAFE.sub(" ", composed_name(encodable(candidate))).split()).strip(" .")
        name = name[:_NAME_CHARS].encode("utf-8")[:room].decode("utf-8", "ignore").strip(" .")
        return f"{name} note" if _DEVICE.fullmatch(name) else name

    return next((name for name in map(safe, candidates) if name), fallback)


def type_folder(settings: VaultSettings, type_name: str, default: str) -> str:
    """The folder the vault settings type as `type_name` (the shortest such rule), else
    `default`; BadRequest when it is a hidden folder (Ora never writes into a dot-folder)."""
    folder = folder_for_type(settings, type_name) or default
    if is_ignored(f"{folder}/note{_NOTE}"):
        raise BadRequest(f"the {type_name} folder {folder!r} (a `{type_name}` folder rule of "
                         "ora.yaml) is hidden or not a folder Obsidian shows: Ora never writes "
                         "into a dot-folder; change the rule")
    return folder


class public_names(Container[str]):
    """The names (`folded`s) that non-private notes of the vault hold. The name a new note
    gets must not depend on private notes, or it would tell a non-private request that a
    private note of that name exists; a note that cannot be read counts as private (its tag
    cannot be seen). Notes are read only for the names asked about."""

    def __init__(self, vault: str | Path, max_bytes: int, *, data: Path | None) -> None:
        self.vault, self.max_bytes, self.data = vault, max_bytes, data
        self._settings: VaultSettings | None = None  # read once a name is asked about
        self.by_stem: dict[str, list[str]] = {}
        for rel in iter_note_paths(vault):
            self.by_stem.setdefault(folded(PurePosixPath(rel).stem), []).append(rel)

    def __contains__(self, stem: object) -> bool:
        return isinstance(stem, str) and any(
            self._public(rel) for rel in self.by_stem.get(folded(stem), []))

    def add(self, rel: str) -> None:
        """Count a note just written as holding its name."""
        self.by_stem.setdefault(folded(PurePosixPath(rel).stem), []).insert(0, rel)

    def _public(self, rel: str) -> bool:
        if self._settings is None:
            self._settings = load_vault_settings(self.vault, self.data)
        try:
            return not note_private(read_note(self.vault, rel, self.max_bytes), self._settings)
        except (OSError, OraError):
            return False


def create_named(vault: str | Path, folder: str, name: str, text: str,
                 taken: Container[str]) -> tuple[str, str]:
    """Write `text` as a new note `folder/name.md` (numbered while the name is `taken` or the
    file exists, composed or decomposed, or is a symbolic link); its vault path and hash."""
    for n in range(1, 1000):
        stem = name if n == 1 else f"{name} {n}"
        if stem in taken:  # a Container of names compares them by `folded`
            continue
        rel = f"{folder}/{stem}.md" if folder else f"{stem}.md"
        if as_saved(vault, rel) != rel:  # saved decomposed (NFD), or the reverse
            continue
        if (Path(vault) / rel).is_symlink():  # holds the name as a file would; never written
            continue
        try:
            return rel, create_note(vault, rel, text)
        except Conflict:
            continue
    raise Conflict(f"no free file name for {name!r} in {folder or 'the vault'}")
