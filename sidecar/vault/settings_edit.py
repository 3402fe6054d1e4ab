"""Editing a vault's `ora.yaml` on the user's explicit action: an entry added to `lint.ignore`
(lint's "ignore this folder"), a folder added to or removed from `exclude` (the excluded-folders
picker). An edit that only adds or only removes entries of a list the file has is spliced in
line by line: every other byte stays as written, comments included, so adding an entry and
removing it again gives the file's bytes back (`settings_text.splice_list`). Else round-trip YAML
keeps every other byte's meaning, comments and order, and the file's layout (`settings_text.py`);
the one compare-and-swap writer (`vault/write.py`) refuses a file an editor is saving. Nothing is
written that the reader would not read as meant: a file it would not use is refused, an entry
YAML would misread is quoted, and the new text is read back first.
"""

from __future__ import annotations

import copy
import io
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, SingleQuotedScalarString

from sidecar.errors import Conflict, InvalidSettings
from sidecar.vault import settings_memory
from sidecar.vault.frontmatter_edit import has_anchors
from sidecar.vault.scan import NotRegularFile, composed_name, normalise_rel, read_regular
from sidecar.vault.settings_patterns import read_pattern
from sidecar.vault.settings_text import (
    Layout,
    ListSpots,
    indents,
    keeps_comments,
    list_spots,
    splice_list,
    split_layout,
)
from sidecar.vault.settings_yaml import (
    BOOL_FIRST,
    BOOL_WORDS,
    yaml_error_line,
    yaml_problem,
)
from sidecar.vault.vault_settings import (
    MAX_SETTINGS_BYTES,
    VaultSettings,
    load_vault_settings,
    missing_settings_recheck,
    read_settings_text,
    settings_defaults,
    settings_path,
    unsettled_drops,
)
from sidecar.vault.write import atomic_write, check_not_empty, content_hash, create_file

__all__ = ["add_lint_ignore", "set_excluded"]

_BOOL = "tag:yaml.org,2002:bool"


class _Resolver(VersionedResolver):
    """ruamel's resolver, but `yes`, `no`, `on`, `off` are words under `%YAML 1.1` too, as the
    reader reads them (settings_yaml.py): `language: no` stays `no`, not `false`."""

    def add_version_implicit_resolver(self, version: Any, tag: Any, regexp: Any,
                                      first: Any) -> None:
        if tag == _BOOL:
            regexp, first = BOOL_WORDS, BOOL_FIRST
        super().add_version_implicit_resolver(version, tag, regexp, first)


def _round_trip() -> YAML:
    y = YAML()  # round-trip: comments, order and quoting survive
    y.Resolver = _Resolver
    y.preserve_quotes = True
    y.width = 1_000_000  # no line the user wrote long is wrapped
    y.indent(mapping=2, sequence=4, offset=2)
    return y


def _ignore_entry(path: str) -> str:
    """A lint-ignore entry for a note or folder path (a trailing `/` keeps meaning a folder),
    quoted in the file when it must be (`_scalar`)."""
    entry = normalise_rel(path.strip())
    return _scalar(entry + "/" if path.strip().endswith("/") else entry)


def _scalar(entry: str) -> str:
    """`entry` as it is written into ora.yaml: plain when it reads back as itself in a list of
    either style, under YAML 1.1 too (`No`, `yes`, `~`, `? q/`, `: x/`, `#tag/` do not); else
    single-quoted, or double-quoted when only escapes can write it (a tab, a line separator)."""
    for text in (f"[{entry}]", f"- {entry}"):
        try:
            if yaml.safe_load(text) != [entry]:
                break
        except yaml.YAMLError:
            break
    else:
        return entry
    quoted: str = (SingleQuotedScalarString(entry) if entry.isprintable()
                   else DoubleQuotedScalarString(entry))
    return quoted


def _dump(y: YAML, doc: CommentedMap, layout: Layout) -> bytes:
    out = io.StringIO()
    y.explicit_start = bool(layout.head)  # `Layout.join` puts the file's own head back
    y.dump(doc, out)
    return layout.join(out.getvalue())


def _one_line(entry: Any) -> str | None:
    """`entry` as ruamel writes a list's entry (its quoting kept), or None if not on one line."""
    out = io.StringIO()
    _round_trip().dump(CommentedSeq([entry]), out)
    written = out.getvalue().strip()
    return written[2:] if written.startswith("- ") and "\n" not in written else None


def _spliced(data: bytes, layout: Layout, parsed: str, spots: ListSpots | None,
             old: list[Any], new: list[Any]) -> tuple[bytes | None, bool]:
    """(ora.yaml's bytes with the list at `spots` edited from `old` to `new` in place
    (`splice_list`), or None when the splice cannot: no list written there, an edit it does
    not know, a file whose layout does not give its bytes back (mixed line ends), or a comment
    it would lose (`keeps_comments`); whether a splice was made, right or not)."""
    if spots is None or layout.join(parsed) != data:
        return None, False
    text = splice_list(parsed, spots, old, new, _one_line)
    if text is None:
        return None, False
    return (layout.join(text) if keeps_comments(parsed, text, spots, old, new) else None), True


def _refuse_lost_comments(file: Path, name: str, parsed: str, new: bytes, spots: ListSpots,
                          old: list[Any], entries: list[Any]) -> None:
    """InvalidSettings when ruamel's dump `new`, the fallback of a splice made but not used, loses
    a comment the edit keeps (`keeps_comments`): ruamel writes a flow list without its own."""
    if not keeps_comments(parsed, split_layout(new.decode("utf-8"))[1], spots, old, entries):
        raise InvalidSettings(
            f"Ora's edit of `{name}` would lose a comment from {file.name}, so nothing was "
            "written; edit the file by hand")


def _read(file: Path) -> bytes:
    """ora.yaml's bytes, refused (InvalidSettings) where the reader would not read them."""
    try:
        data = read_regular(file, MAX_SETTINGS_BYTES)
    except NotRegularFile as exc:
        raise InvalidSettings(f"{exc}; Ora will not write it") from exc
    if len(data) > MAX_SETTINGS_BYTES:
        raise InvalidSettings(
            f"{file.name} is larger than {MAX_SETTINGS_BYTES} bytes, so Ora does not read it as "
            "settings (it keeps those the file last had) and will not edit it; make it smaller "
            "by hand first")
    return data


def _settings_doc(file: Path, y: YAML, data: bytes) -> tuple[CommentedMap, Layout, str, str]:
    """ora.yaml's bytes as a round-trip mapping, its layout, its text and the YAML parsed (the
    text without its layout, `split_layout`), refused (nothing written) when an edit could not
    keep every other setting: empty (most often an editor between its truncate and its write),
    not YAML, not a mapping, or using anchors and aliases (`*ex` would carry an edit of one list
    into another)."""
    check_not_empty(data, file.name)
    try:
        text = data.decode("utf-8")
        layout, parsed = split_layout(text)
        doc = y.load(parsed)
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
    if has_anchors(y, parsed):
        raise InvalidSettings(
            f"{file.name} uses YAML anchors or aliases (&name, *name): an edit through them "
            "would change other settings too, so Ora leaves it alone; edit it by hand")
    mapping, sequence, offset = indents(doc, parsed)
    y.indent(mapping=mapping, sequence=sequence, offset=offset)
    return doc, layout, text, parsed


def _as_read(vault: str | Path, file: Path, text: str) -> dict[str, Any]:
    """The mapping the reader reads from `text`; InvalidSettings when the reader cannot use it
    (an edit of it would not be applied: the reader keeps the settings it last had)."""
    raw, settings = read_settings_text(vault, text)
    if raw is None or settings.unsafe:
        problem = yaml_problem(text)
        if problem is not None:
            raise InvalidSettings(f"{file.name} is not valid YAML: {problem}. Fix it by hand "
                                  "first; Ora has not changed it")
        why = "; ".join(p.removeprefix(f"{file.name}: ") for p in settings.problems)
        raise InvalidSettings(f"{file.name} cannot be used as it is ({why}), so an edit would "
                              "not apply; fix it by hand first")
    return raw


def _intended(before: dict[str, Any], keys: tuple[str, ...], default: list[Any],
              edit: Callable[[list[Any]], bool]) -> dict[str, Any]:
    """The mapping the reader should read after the edit: `before` with `edit` applied to the
    list at `keys` as the editor applies it to its own copy."""
    after = copy.deepcopy(before)
    parent: Any = after
    for key in keys[:-1]:
        if parent.get(key) is None:
            parent[key] = {}
        parent = parent[key]
        if not isinstance(parent, dict):  # read otherwise by the reader: it cannot match
            return {}
    entries = parent.get(keys[-1])
    entries = (list(default) if entries is None else [entries] if isinstance(entries, str)
               else list(entries) if isinstance(entries, list) else entries)
    if isinstance(entries, list):
        edit(entries)
    parent[keys[-1]] = entries
    return after


def _same(a: Any, b: Any) -> bool:
    """Whether two values as the reader reads them are the same (NaN the same as NaN), a
    mapping's keys in the same order (the edit moves none)."""
    if isinstance(a, str) or isinstance(b, str):  # the editor's quoted scalars are str too
        return isinstance(a, str) and isinstance(b, str) and str(a) == str(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and bool(a == b)


def _reads_as(vault: str | Path, new: bytes, intended: dict[str, Any]) -> bool:
    """Whether the reader reads `new` as `intended`, every setting usable."""
    raw, settings = read_settings_text(vault, new.decode("utf-8"))
    return raw is not None and not settings.unsafe and _same(raw, intended)


def _checked(vault: str | Path, file: Path, new: bytes, intended: dict[str, Any],
             name: str) -> bytes:
    """`new` if the reader reads it as `intended`; else InvalidSettings, nothing written."""
    if not _reads_as(vault, new, intended):
        raise InvalidSettings(
            f"Ora's edit of `{name}` would not read back from {file.name} as intended, so "
            "nothing was written; edit the file by hand")
    return new


def _edit_list(vault: str | Path, data_folder: Path | None, keys: tuple[str, ...],
               edit: Callable[[list[Any]], bool]) -> VaultSettings:
    """Apply `edit` to the list at `keys` in ora.yaml (`("lint", "ignore")`), creating the file,
    the mappings and the list as needed (an absent list starts from its default); `edit` changes
    the list in place and says whether it did. Every other byte's meaning, comments and order are
    kept, and the file's layout (`settings_text.py`); nothing is written when nothing changed.
    An edit that only removes entries or only appends them is spliced in (`_spliced`): every
    other byte as written, comment lines above, below and between entries included; ruamel's
    dump is the fallback where the splice cannot, would not read back as meant, or would lose a
    comment the edit keeps (`keeps_comments`; the dump is then refused if it loses one too).
    What is written is read back by the reader first, and refused unless it reads as the edit
    meant (every other setting as it was). `data_folder` is the index's, which keeps the text
    a missing file last had (`load_vault_settings`).

    Written through the one compare-and-swap writer (`vault/write.py`) with the refusals note
    edits have: Conflict when the file is empty or changes between the read and the swap (an
    editor saving it), is removed meanwhile, or appeared meanwhile, or is missing where it had
    settings a moment ago (a sync tool saving it), or drops a `private` or `exclude` entry it
    had before it has settled (`unsettled_drops`: a save read halfway); InvalidSettings when it
    cannot be edited safely: one the reader would not read (too large, not YAML, its `private`
    or `exclude` unusable) included.
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
        data = _read(file)
    except FileNotFoundError:
        return _create(vault, data_folder, keys, list(default), edit)
    root, layout, text, parsed = _settings_doc(file, y, data)
    before = _as_read(vault, file, text)
    dropped = unsettled_drops(vault, data_folder, text)
    if dropped:  # perhaps a save read halfway: an edit of it would write the rest away
        raise Conflict(f"{file.name} drops {', '.join(dropped)} it had a moment ago (perhaps it "
                       "is being saved); nothing was written: try again")
    parent = root
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
    spots, old = list_spots(parent, keys[-1]), list(entries)
    if edit(entries):
        parent[keys[-1]] = entries
        intended = _intended(before, keys, default, edit)
        new, tried = _spliced(data, layout, parsed, spots, old, entries)
        if new is None or not _reads_as(vault, new, intended):
            new = _checked(vault, file, _dump(y, root, layout), intended, name)
            if tried and spots is not None:
                _refuse_lost_comments(file, name, parsed, new, spots, old, entries)
        atomic_write(file, new, content_hash(data), file.name)
        # Ora's own whole text, meant as written: trusted at once, an entry removed included
        settings_memory.remember(file, new.decode("utf-8"), data_folder)
    return load_vault_settings(vault, data_folder)


def _create(vault: str | Path, data_folder: Path | None, keys: tuple[str, ...],
            entries: list[Any], edit: Callable[[list[Any]], bool]) -> VaultSettings:
    """The edit of a vault without ora.yaml: a new file with the one list. Refused (Conflict)
    while the file is missing where it had settings a moment ago: a sync tool or editor is
    saving it (delete, then create), and a file of this list alone would make the rest of its
    settings, private folders included, the defaults."""
    file = settings_path(vault)
    load_vault_settings(vault, data_folder)  # notes the file missing, or takes it for deleted
    if missing_settings_recheck(vault, data_folder) is not None:
        raise Conflict(f"{file.name} is missing where it had settings a moment ago (perhaps it "
                       "is being saved); nothing was written: try again")
    if edit(entries):
        doc: Any = CommentedSeq(entries)
        for key in reversed(keys):
            doc = CommentedMap({key: doc})
        intended: dict[str, Any] = {}
        for key in reversed(keys):
            intended = {key: intended} if intended else {key: list(entries)}
        new = _checked(vault, file, _dump(_round_trip(), doc, Layout()), intended,
                       ".".join(keys))
        create_file(file, new)
    return load_vault_settings(vault, data_folder)


def exclude_refusal(vault: str | Path, data_folder: Path | None) -> str | None:
    """Why an edit of `exclude` would be refused now (the file unusable, too large, a symbolic
    link, missing while a save may be under way), or None: the editor's own checks, run without
    writing, so the plugin's picker offers no edit that must fail."""
    try:
        _edit_list(vault, data_folder, ("exclude",), lambda entries: False)
    except (Conflict, InvalidSettings) as err:
        return err.message
    return None


def add_lint_ignore(vault: str | Path, path: str, data_folder: Path | None) -> VaultSettings:
    """Add `path` (a note, a folder ending in `/`, or a glob) to `lint.ignore` in ora.yaml
    (`_edit_list`: round-trip, compare-and-swap, the file created if needed)."""
    entry = _ignore_entry(path)

    def add(entries: list[Any]) -> bool:
        if entry in entries:
            return False
        entries.append(entry)
        return True

    return _edit_list(vault, data_folder, ("lint", "ignore"), add)


def _folder_key(entry: Any) -> str:
    """An `exclude` entry as the reader matches it (`read_pattern`, composed): `/Scratch/`,
    `./Scratch/`, `Scratch\\` and `Scratch` are one folder."""
    pattern = read_pattern(str(entry))
    return "" if pattern is None else composed_name(pattern).rstrip("/") or pattern


def set_excluded(vault: str | Path, path: str, excluded: bool,
                 data_folder: Path | None) -> VaultSettings:
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
        for i in reversed(gone):  # the splice takes each one's line, comment lines kept
            del entries[i]
        return bool(gone)

    return _edit_list(vault, data_folder, ("exclude",), change)
