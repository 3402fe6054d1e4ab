"""Editing a vault's `ora.yaml` on the user's explicit action: an entry added to `lint.ignore`
(lint's "ignore this folder"), a folder added to or removed from `exclude` (the excluded-folders
picker). Round-trip YAML keeps every other byte's meaning, comments and order; the one
compare-and-swap writer (`vault/write.py`) refuses a file an editor is saving.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from sidecar.errors import InvalidSettings
from sidecar.vault.frontmatter_edit import has_anchors
from sidecar.vault.scan import NotRegularFile, normalise_rel, read_regular
from sidecar.vault.vault_settings import (
    VaultSettings,
    load_vault_settings,
    settings_defaults,
    settings_path,
    yaml_error_line,
    yaml_problem,
)
from sidecar.vault.write import atomic_write, check_not_empty, content_hash, create_file

__all__ = ["add_lint_ignore", "set_excluded"]


def _round_trip() -> YAML:
    y = YAML()  # round-trip: comments, order and quoting survive
    y.preserve_quotes = True
    y.indent(mapping=2, sequence=4, offset=2)
    return y


def _ignore_entry(path: str) -> str:
    """A lint-ignore entry for a note or folder path (a trailing `/` keeps meaning a folder)."""
    entry = normalise_rel(path.strip())
    return entry + "/" if path.strip().endswith("/") else entry


def _dump(y: YAML, doc: CommentedMap, crlf: bool) -> bytes:
    out = io.StringIO()
    y.dump(doc, out)
    return (out.getvalue().replace("\n", "\r\n") if crlf else out.getvalue()).encode("utf-8")


def _settings_doc(file: Path, y: YAML, data: bytes) -> CommentedMap:
    """ora.yaml's bytes as a round-trip mapping, refused (nothing written) when an edit could not
    keep every other setting: empty (most often an editor between its truncate and its write),
    not YAML, not a mapping, or using anchors and aliases (`*ex` would carry an edit of one
    list into another)."""
    check_not_empty(data, file.name)
    try:
        text = data.decode("utf-8").replace("\r\n", "\n")
        doc = y.load(text)
    except UnicodeDecodeError as exc:
        raise InvalidSettings(f"{file.name} is not UTF-8 text ({exc.reason} at byte "
                              f"{exc.start}); fix it by hand first") from exc
    except YAMLError as exc:
        # ruamel's own text spans several lines (the first alone was cut mid-parenthesis); the
        # reader's wording names the key given twice and its lines, as `problems` does.
        problem = yaml_problem(text) or yaml_error_line(exc)
        raise InvalidSettings(f"{file.name} is not valid YAML: {problem}. Fix it by hand "
                              "first; Ora has not changed it") from exc
    if doc is None:
        doc = CommentedMap()  # comments only
    if not isinstance(doc, CommentedMap):
        raise InvalidSettings(f"{file.name} is not a mapping of settings; fix it by hand first")
    if has_anchors(y, text):
        raise InvalidSettings(
            f"{file.name} uses YAML anchors or aliases (&name, *name): an edit through them "
            "would change other settings too, so Ora leaves it alone; edit it by hand")
    return doc


def _edit_list(vault: str | Path, keys: tuple[str, ...],
               edit: Callable[[list[Any]], bool]) -> VaultSettings:
    """Apply `edit` to the list at `keys` in ora.yaml (`("lint", "ignore")`), creating the file,
    the mappings and the list as needed (an absent list starts from its default); `edit` changes
    the list in place and says whether it did. Every other byte's meaning, comments and order are
    kept; nothing is written when nothing changed.

    Written through the one compare-and-swap writer (`vault/write.py`) with the refusals note
    edits have: Conflict when the file is empty or changes between the read and the swap (an
    editor saving it), or appeared meanwhile; InvalidSettings when it cannot be edited safely.
    """
    name = ".".join(keys)
    file = settings_path(vault)
    if file.is_symlink():  # the atomic write would replace the link with a plain file
        raise InvalidSettings(f"{file.name} is a symbolic link, which Ora will not replace with "
                              f"a file; edit `{name}` in the file it points to")
    default: Any = settings_defaults()
    for key in keys:
        default = default[key]
    y = _round_trip()
    try:
        data = read_regular(file)
    except FileNotFoundError:
        entries = list(default)
        if edit(entries):
            doc: Any = CommentedSeq(entries)
            for key in reversed(keys):
                doc = CommentedMap({key: doc})
            create_file(file, _dump(y, doc, False))
        return load_vault_settings(vault)
    except NotRegularFile as exc:
        raise InvalidSettings(f"{file.name} is not a regular file (a pipe, socket or device); "
                              "Ora will not write it") from exc
    parent = root = _settings_doc(file, y, data)
    for depth, key in enumerate(keys[:-1]):
        child = parent.get(key)
        if child is None:
            child = parent[key] = CommentedMap()
        if not isinstance(child, CommentedMap):
            where = ".".join(keys[:depth + 1])
            raise InvalidSettings(f"`{where}` in {file.name} is not a mapping; "
                                  "fix it by hand first")
        parent = child
    entries = parent.get(keys[-1])
    if entries is None:
        entries = CommentedSeq(default)
    elif isinstance(entries, str):
        entries = CommentedSeq([entries])
    if not isinstance(entries, list):
        raise InvalidSettings(f"`{name}` in {file.name} is not a list; fix it by hand first")
    if edit(entries):
        parent[keys[-1]] = entries
        crlf = b"\r\n" in data  # written on Windows: the lines ruamel writes get "\r\n" too
        atomic_write(file, _dump(y, root, crlf), content_hash(data), file.name)
    return load_vault_settings(vault)


def add_lint_ignore(vault: str | Path, path: str) -> VaultSettings:
    """Add `path` (a note, a folder ending in `/`, or a glob) to `lint.ignore` in ora.yaml
    (`_edit_list`: round-trip, compare-and-swap, the file created if needed)."""
    entry = _ignore_entry(path)

    def add(entries: list[Any]) -> bool:
        if entry in entries:
            return False
        entries.append(entry)
        return True

    return _edit_list(vault, ("lint", "ignore"), add)


def _folder_key(entry: Any) -> str:
    """An `exclude` entry as it matches: `/Scratch/`, `Scratch/` and `Scratch` are one folder."""
    return str(entry).strip().strip("/")


def set_excluded(vault: str | Path, path: str, excluded: bool) -> VaultSettings:
    """Add `path` (a folder, ending in `/`, a note or a glob) to `exclude` in ora.yaml, or remove
    every entry that names it (`Scratch`, `Scratch/` and `/Scratch/` alike); `_edit_list` writes.
    Removing an entry names only that entry: a glob or Obsidian's Excluded files may still cover
    the folder. The index follows the file as it follows an edit by hand (the server re-plans)."""
    entry = _ignore_entry(path)
    key = _folder_key(entry)

    def change(entries: list[Any]) -> bool:
        if excluded:
            if any(_folder_key(e) == key for e in entries):
                return False
            entries.append(entry)
            return True
        gone = [i for i, e in enumerate(entries) if _folder_key(e) == key]
        for i in reversed(gone):  # one by one: CommentedSeq moves the items' comments along
            del entries[i]
        return bool(gone)

    return _edit_list(vault, ("exclude",), change)
