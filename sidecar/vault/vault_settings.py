"""A vault's own Ora settings: the optional file `VAULT/ora.yaml` (docs/vault-settings.md).

They live in the vault, not in `VAULT/.ora/`, so deleting the index loses none of them, and the
CLI, the server and the plugin read the same file. Defaults are data (`schema/vault_defaults.json`);
a value in `ora.yaml` replaces its default, folder rules merge over the default rules. A bad file
never stops search or lint: each unusable value falls back to its default and is reported in
`problems`, except where a default could make a note public. A file that cannot be used at all,
or whose `private` or `exclude` cannot be read, gives the settings of the text it last had
(`settings_memory.py`), and with none it is `unsafe`: what plans notes refuses it
(`known_privacy`). So does a file that is missing, until it has been deleted on purpose (a sync
tool saving it by delete-and-create must not make the defaults apply in between), and so does a
text that drops a `private` or `exclude` entry the last good text had until the file has settled
(`SETTLE_S`: a read halfway through an in-place save drops them too). The YAML is
read by `settings_yaml.py`, the path patterns by `settings_patterns.py`.

Obsidian's own "Excluded files" (`userIgnoreFilters` in `.obsidian/app.json`) are honoured too:
an entry `/…/` is a regular expression searched in the path, any other entry a path prefix, as
Obsidian matches them. So are its templates (the Templates and Templater folders, the daily
note's template): a template is a skeleton of notes to come, not knowledge, and `ora adopt` or
`lint --fix` writing a date into one would stamp that date into every note made from it. The tags
community plugins use as their own markers (the Tasks plugin's global filter `#task`) are read
too: lint knows them as it knows the vault's domain tags.
"""

from __future__ import annotations

import difflib
import json
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import yaml

from sidecar.errors import BadRequest, InvalidSettings
from sidecar.schema import get_schema, load_json
from sidecar.vault import settings_memory
from sidecar.vault.chat_format import has_private_turn
from sidecar.vault.note import Note
from sidecar.vault.patterns import Matcher, UnsupportedPattern, compile_pattern
from sidecar.vault.scan import (
    FileStamp,
    composed_name,
    file_stamp,
    normalise_rel,
    read_regular,
)
from sidecar.vault.settings_patterns import matches_any, read_pattern
from sidecar.vault.settings_yaml import (
    TOO_DEEP,
    DuplicateKey,
    load_settings_yaml,
    yaml_error_line,
)
from sidecar.vault.tags import note_tags

__all__ = [
    "VaultSettings",
    "default_vault_settings",
    "effective_type",
    "is_excluded",
    "is_lint_ignored",
    "known_privacy",
    "load_vault_settings",
    "missing_settings_recheck",
    "note_language",
    "opted_out",
    "read_settings_text",
    "settings_defaults",
    "settings_files",
    "settings_path",
    "unsettled_drops",
]

log = logging.getLogger(__name__)

# A settings file is a few lines; anything this large is a mistake, not settings (the editor
# refuses it too).
MAX_SETTINGS_BYTES = 1_000_000
# A missing ora.yaml keeps the settings it last had until reads this far apart have found it
# missing: a sync tool or editor saving it by delete-and-create leaves no gap of defaults.
MISSING_GRACE_S = 30.0
# A missing time kept this long ago is an earlier absence's, not this one's.
STALE_MISSING_S = 10 * MISSING_GRACE_S
# A text that drops a `private` or `exclude` entry the last good text had is trusted only once
# the file has been unchanged this long: a read halfway through an editor's in-place save (a
# prefix of comments, or one ending before those keys) is valid YAML that drops them too. More
# than the coarsest file times (FAT's 2 s), so a file being written never looks settled.
SETTLE_S = 5.0


@cache
def settings_defaults() -> dict[str, Any]:
    """`schema/vault_defaults.json`: the defaults of every key of ora.yaml."""
    return dict(load_json("vault_defaults.json"))


def settings_files() -> tuple[str, ...]:
    """The vault-relative files the settings are read from (ora.yaml, Obsidian's app config,
    the configs naming its templates and the plugin configs naming marker tags)."""
    return (str(settings_defaults()["file"]), str(settings_defaults()["obsidian_app_config"]),
            *(str(source["file"]) for source in settings_defaults()["obsidian_templates"]),
            *(str(source["file"]) for source in settings_defaults()["obsidian_plugin_tags"]))


def settings_path(vault: str | Path) -> Path:
    """Where a vault's settings file lives (`VAULT/ora.yaml`)."""
    return Path(vault) / str(settings_defaults()["file"])


@dataclass(frozen=True)
class VaultSettings:
    """One vault's Ora settings, defaults filled in. `folders` is longest prefix first."""

    folders: tuple[tuple[str, str], ...]
    untyped_type: str
    exclude: tuple[str, ...]
    obsidian_excluded: tuple[str, ...]
    lint_untyped: str  # "hint" | "off"
    lint_ignore: tuple[str, ...]
    chats_folder: str
    problems: tuple[str, ...] = ()
    file_exists: bool = False
    obsidian_templates: tuple[str, ...] = ()  # template folders ("X/") and notes ("X.md")
    # `language:` (BM25 analysis): (folder prefix, code), longest first; "" is the whole vault.
    languages: tuple[tuple[str, str], ...] = ()
    plugin_tags: tuple[str, ...] = ()  # plugins' marker tags, without "#" (lint only)
    private: tuple[str, ...] = ()  # paths whose notes and documents are private
    # Which notes are private or excluded is unknown: the file cannot be used and this process
    # has no text it last had (settings_memory.py); `known_privacy` refuses such settings.
    unsafe: bool = False

    def index_key(self) -> str:
        """What the index depends on, as one string: a change re-plans every note."""
        parts: list[Any] = [self.folders, self.untyped_type, self.exclude, self.obsidian_excluded]
        if self.obsidian_templates:  # absent from older keys: their indexes are not re-planned
            parts.append(self.obsidian_templates)
        if self.private:
            parts.append({"private": self.private})
        if self.languages:  # likewise
            parts.append(self.languages)
        return json.dumps(parts, ensure_ascii=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "file": str(settings_defaults()["file"]),
            "exists": self.file_exists,
            "folders": dict(self.folders),
            "untyped_type": self.untyped_type,
            "exclude": list(self.exclude),
            "private": list(self.private),
            "obsidian_excluded": list(self.obsidian_excluded),
            "obsidian_templates": list(self.obsidian_templates),
            "obsidian_plugin_tags": list(self.plugin_tags),
            "lint": {"untyped": self.lint_untyped, "ignore": list(self.lint_ignore)},
            "chats_folder": self.chats_folder,
            "language": {prefix or "/": code for prefix, code in self.languages} or "auto",
            "problems": list(self.problems),
        }


# ---- matching ---------------------------------------------------------------------------------


def effective_type(
    settings: VaultSettings, rel: str, declared_type: str | None
) -> tuple[str, bool]:
    """(type, inferred): a declared Ora type wins; else the longest matching folder rule; else
    the vault's type for untyped notes. A `type` outside Ora's twelve counts as undeclared."""
    if declared_type in get_schema().types:
        return str(declared_type), False
    folded = composed_name(rel).casefold()
    for prefix, type_name in settings.folders:
        if folded.startswith(composed_name(prefix).casefold()):
            return type_name, True
    return settings.untyped_type, True


def note_language(settings: VaultSettings, rel: str) -> str | None:
    """The language `language:` sets for the note at `rel` (the longest matching folder, else
    the vault's); None: detected from its text."""
    folded = composed_name(rel).casefold()
    return next((code for prefix, code in settings.languages
                 if folded.startswith(composed_name(prefix).casefold())), None)


def _is_regex(entry: str) -> bool:
    return len(entry) > 2 and entry.startswith("/") and entry.endswith("/")


@cache
def _obsidian_matcher(entry: str) -> Matcher | None:
    """The regular expression of an entry `/…/` (None for a path prefix, or a pattern RE2
    cannot run: `_obsidian_filters` reports it, and it excludes nothing)."""
    if _is_regex(entry):
        try:
            return compile_pattern(entry[1:-1])
        except UnsupportedPattern:
            return None
    return None


def _unsupported_filters(entries: tuple[str, ...]) -> list[str]:
    """A problem for each Excluded files regular expression RE2 cannot run (not applied)."""
    app = settings_defaults()["obsidian_app_config"]
    problems = []
    for entry in entries:
        if _is_regex(entry):
            try:
                compile_pattern(entry[1:-1])
            except UnsupportedPattern as err:
                problems.append(f"{app}: the Excluded files {err}: Ora matches patterns in "
                                "linear time and does not apply this one")
    return problems


def _obsidian_excludes(entries: tuple[str, ...], rel: str) -> bool:
    rel = composed_name(rel)
    for entry in entries:
        if _is_regex(entry):
            regex = _obsidian_matcher(composed_name(entry))
            if regex is not None and regex.search(rel):
                return True
        elif rel.startswith(composed_name(entry)):
            return True
    return False


def is_excluded(settings: VaultSettings, rel: str) -> bool:
    """True when a note is left out of the index, lint and search: Ora's `exclude` patterns,
    Obsidian's Excluded files or its templates."""
    return (matches_any(settings.exclude, rel)
            or _obsidian_excludes(settings.obsidian_excluded, rel)
            or matches_any(settings.obsidian_templates, rel))


def folder_for_type(settings: VaultSettings, type_name: str) -> str | None:
    """The folder the settings type as `type_name` (the shortest such rule), without its
    slash; None when no rule does."""
    folders = sorted((p for p, t in settings.folders if t == type_name), key=len)
    return folders[0].strip("/") if folders else None


def is_private_path(settings: VaultSettings, rel: str) -> bool:
    """True when ora.yaml's `private` makes what lies at `rel` private, a note or a document
    (which has no tags of its own to say so). Settings that cannot say which folders are
    private (`unsafe`: a broken ora.yaml and no last good one) make everything private: privacy
    fails closed."""
    return settings.unsafe or matches_any(_folded(settings.private), rel.casefold())


@cache
def _folded(patterns: tuple[str, ...]) -> tuple[str, ...]:
    # `private: [health]` covers Health/: a folder's case is easily mistyped, and a private
    # pattern that matches more keeps more private (as `folders` compares without case).
    return tuple(p.casefold() for p in patterns)


def note_private(note: Note, settings: VaultSettings) -> bool:
    """Whether a note is private: by its own words (`Note.is_private`), by where it lies
    (ora.yaml `private`), or by where the document it was made from lies (its `source_path`,
    as `ora ingest` writes it: a document made private after its notes were written keeps
    them private at once, wherever they lie). Everything that shows a note's text, name or
    claims outside private mode asks this, not `Note.is_private` alone. (A document moved since
    its ingest lies elsewhere than `source_path` says: the index and every answer outside
    private mode find it where it lies now, `documents/places.py`.)"""
    source = source_document(note)
    return (note.is_private or is_private_path(settings, note.path)
            or (source is not None and is_private_path(settings, source)))


def source_document(note: Note) -> str | None:
    """The vault path of the document a note was made from (its `source_path` property), or
    None when it names none (or no path inside the vault)."""
    value = note.frontmatter.get("source_path") if note.yaml_error is None else None
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return normalise_rel(value.strip().removeprefix("./"))
    except BadRequest:
        return None


def holds_private_text(note: Note, settings: VaultSettings) -> bool:
    """Whether any of a note's text is private: the note (`note_private`), or a chat note's turn
    asked in private mode, which stays private in a note that is not (`has_private_turn`). What
    shows or pairs a note's text outside private mode (search, ask, contradictions) asks this;
    a conversation, read turn by turn, asks each turn."""
    return note_private(note, settings) or has_private_turn(note)


def is_lint_ignored(settings: VaultSettings, rel: str) -> bool:
    """True when lint stays silent about a note (ora.yaml `lint.ignore`)."""
    return matches_any(settings.lint_ignore, rel)


def opted_out(frontmatter: Mapping[str, Any]) -> bool:
    """True when a note's own frontmatter opts it out of lint (`ora-lint: ignore`)."""
    rule = settings_defaults()["note_opt_out"]
    value = frontmatter.get(str(rule["property"]), None)
    if value is None:
        return False
    wanted = [v.casefold() if isinstance(v, str) else v for v in rule["values"]]
    return (value.casefold() if isinstance(value, str) else value) in wanted


# ---- reading ----------------------------------------------------------------------------------


class _Reader:
    """Turns a parsed ora.yaml mapping into checked values, noting each problem."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.unsafe = False  # `private` or `exclude` could not be read

    def note(self, message: str, defaulted: bool = True) -> None:
        suffix = _DEFAULTED if defaulted else ""
        self.problems.append(f"{settings_defaults()['file']}: {message}{suffix}")

    def type_name(self, value: Any, where: str, default: str) -> str:
        types = get_schema().types
        if isinstance(value, str) and value in types:
            return value
        self.note(f"{where} {value!r} is not one of the types ({', '.join(types)})")
        return default

    def patterns(self, value: Any, where: str, default: list[str]) -> tuple[str, ...]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            self.note(f"{where} must be a list of paths or globs")
            self.unsafe = self.unsafe or where in _PRIVACY_KEYS
            return tuple(default)
        read = [read_pattern(v) for v in value]  # settings_patterns.py: `/` the whole vault
        if None in read:
            self.note(f"{where}: an entry of nothing but spaces names no path and is left out",
                      defaulted=False)
        return tuple(p for p in read if p is not None)

    def folders(self, value: Any) -> tuple[tuple[str, str], ...]:
        rules: dict[str, str | None] = dict(settings_defaults()["folders"])
        if value is not None:
            if not isinstance(value, Mapping):
                self.note("folders must map a folder to a type, e.g. 'Notes/: engram'")
            else:
                for folder, type_name in value.items():
                    prefix = str(folder).strip().strip("/") + "/"
                    if type_name is None or type_name == "":
                        rules[prefix] = None  # removes a default rule
                    elif isinstance(type_name, str) and type_name in get_schema().types:
                        rules[prefix] = type_name
                    else:
                        self.note(f"folders: {folder!r} maps to unknown type {type_name!r}")
        kept = [(p, t) for p, t in rules.items() if t is not None and p != "/"]
        return tuple(sorted(kept, key=lambda r: (-len(r[0]), r[0])))

    def languages(self, value: Any) -> tuple[tuple[str, str], ...]:
        """`language: de` (the vault), or folders to codes (`/` the vault); `auto`: detected."""
        known = load_json("languages.json")["languages"]
        if value is None or value == "auto":
            return ()
        if isinstance(value, str):
            value = {"/": value}
        if not isinstance(value, Mapping):
            self.note("language must be a language code (e.g. 'de') or map folders to codes")
            return ()
        rules = []
        for folder, code in value.items():
            if code != "auto" and code not in known:
                self.note(f"language: {code!r} is not one of auto, {', '.join(known)}")
                continue
            # as `exclude` reads a path: "./Cocina/", "/Cocina" and "Cocina" are one folder,
            # "/", "./" or "." the vault
            prefix = (read_pattern(str(folder)) or "").rstrip("/")
            rules.append((prefix + "/" if prefix else "", str(code)))
        return tuple(sorted(rules, key=lambda r: (-len(r[0]), r[0])))

    def lint(self, value: Any) -> tuple[str, tuple[str, ...]]:
        defaults = settings_defaults()["lint"]
        if value is None:
            value = {}
        if not isinstance(value, Mapping):
            self.note("lint must be a mapping with `untyped` and `ignore`")
            value = {}
        mode = value.get("untyped", defaults["untyped"])
        # `false`, or a word YAML 1.1 read as false (`Off`, `no`): ora.yaml is read with YAML
        # 1.2's booleans now (settings_yaml.py), and files written before mean `off` by them.
        if mode is False or (isinstance(mode, str) and mode.casefold() in ("off", "no")):
            mode = "off"
        modes = settings_defaults()["lint_modes"]
        if mode not in modes:
            self.note(f"lint.untyped {mode!r} is not one of {', '.join(modes)}")
            mode = defaults["untyped"]
        ignore = self.patterns(value.get("ignore", defaults["ignore"]), "lint.ignore",
                               defaults["ignore"])
        unknown = sorted(set(map(str, value)) - {"untyped", "ignore"})
        if unknown:
            self.note(f"lint: unknown key(s) {', '.join(unknown)}")
        return str(mode), ignore

    def folder(self, value: Any, where: str, default: str) -> str:
        try:
            if isinstance(value, str):
                return normalise_rel(value.strip().strip("/"))
        except BadRequest:
            pass
        self.note(f"{where} must be a folder inside the vault")
        return default


_KNOWN_KEYS = ("folders", "untyped_type", "exclude", "private", "lint", "chats_folder", "language")
# The settings whose default, taken for a value that cannot be read, could make a note public.
_PRIVACY_KEYS = ("private", "exclude")
_DEFAULTED = "; using the default"


def _read_text(path: Path, reader: _Reader) -> str | None:
    """The file's text, None (with a problem) when it cannot be read; FileNotFoundError when
    it is absent."""
    try:
        data = read_regular(path, MAX_SETTINGS_BYTES)
        if len(data) > MAX_SETTINGS_BYTES:
            reader.note(f"the file is larger than {MAX_SETTINGS_BYTES} bytes")
            return None
        return data.decode("utf-8")
    except FileNotFoundError:
        raise  # the caller's to judge: a missing file is not an unreadable one
    except (OSError, UnicodeDecodeError) as exc:
        reader.note(f"cannot read the file ({exc})")
        return None


def _parse(text: str, reader: _Reader) -> dict[str, Any] | None:
    """The settings mapping of a file's text ({} for none), None (with a problem) when unusable:
    not YAML, or a key given twice (settings_yaml.py)."""
    try:
        data = load_settings_yaml(text)
    except (yaml.YAMLError, DuplicateKey) as exc:
        reader.note(f"invalid YAML: {yaml_error_line(exc)}")
        return None
    except RecursionError:  # a nesting or alias chain past Python's stack
        reader.note(f"invalid YAML: {TOO_DEEP}")
        return None
    if data is None:
        return {}
    if not isinstance(data, dict):
        reader.note("the file must be a mapping of settings")
        return None
    return data


def _config_value(vault: Path, file: str, key: str) -> Any:
    """The value of `key` in the JSON config VAULT/file; None when the file is absent, unreadable,
    not a JSON object or has no such key (a plugin's config need not exist)."""
    try:
        config = json.loads(read_regular(vault / file).decode("utf-8"))
    except (OSError, ValueError):
        return None
    return config.get(key) if isinstance(config, dict) else None


def _obsidian_filters(vault: Path) -> tuple[str, ...]:
    """Obsidian's Excluded files; nothing when the app config is absent or names none. A config
    that cannot be read as JSON gives the entries of the text it last had (settings_memory.py):
    Obsidian rewrites the file in place on every settings change, so a read can catch it half
    written, and taking that for "no exclusions" would index every excluded note, then drop them
    again. Unreadable at a process's first read, it excludes nothing."""
    defaults = settings_defaults()
    path = vault / str(defaults["obsidian_app_config"])
    try:
        text: str | None = read_regular(path).decode("utf-8")
    except FileNotFoundError:
        text = "{}"
    except (OSError, UnicodeDecodeError):
        text = None
    config = _json(text)
    if config is None:
        config = _json(settings_memory.recall(path, None)) or {}
    else:
        settings_memory.remember(path, str(text), None)
    entries = config.get(str(defaults["obsidian_ignore_key"]))
    if not isinstance(entries, list):
        return ()
    return tuple(e for e in entries if isinstance(e, str) and e)


def _json(text: str | None) -> dict[str, Any] | None:
    """A JSON config's object ({} for other JSON); None when `text` is none or no JSON."""
    if text is None:
        return None
    try:
        config = json.loads(text)
    except ValueError:
        return None
    return config if isinstance(config, dict) else {}


def _obsidian_templates(vault: Path) -> tuple[str, ...]:
    """The template folders (`X/`) and notes (`X.md`) Obsidian's configs name; a config that is
    absent, unreadable or names nothing adds nothing."""
    found: list[str] = []
    for source in settings_defaults()["obsidian_templates"]:
        value = _config_value(vault, str(source["file"]), str(source["key"]))
        if not isinstance(value, str):
            continue
        name = value.strip().strip("/")
        if not name or name.startswith("../") or name == "..":
            continue
        entry = f"{name}/" if source["names"] == "folder" else (
            name if name.lower().endswith(".md") else f"{name}.md")
        if entry not in found:
            found.append(entry)
    return tuple(found)


def _plugin_tags(vault: Path) -> tuple[str, ...]:
    """The tags community plugins use as their own markers, without `#`: a config value that is a
    single tag (the Tasks plugin's global filter `#task`). A value that is no tag (Tasks takes any
    string, `TODO` too), or empty (Tasks' default: every checkbox is a task), adds nothing."""
    found: list[str] = []
    for source in settings_defaults()["obsidian_plugin_tags"]:
        value = _config_value(vault, str(source["file"]), str(source["key"]))
        if not isinstance(value, str):
            continue
        # A tag as Obsidian reads one in a note, and nothing else in the value.
        tags = note_tags({}, value.strip())
        if len(tags) == 1 and value.strip() == f"#{tags[0]}" and tags[0] not in found:
            found.append(tags[0])
    return tuple(found)


def load_vault_settings(vault: str | Path, data: Path | None) -> VaultSettings:
    """The settings of `vault` (defaults where ora.yaml is absent or says nothing); never raises
    for a bad file: its problems are in `problems` and logged.

    A file that cannot be used, that is empty where it had settings before (an editor writing
    it), that is missing where it had settings (a sync tool or editor deleting it to write it
    again), or that drops a `private` or `exclude` entry the last good text had and has not
    settled yet (`_settled`: read halfway through an editor's save) gives the settings of the
    text it last had when it could be used (settings_memory.py:
    this process's, else the one kept in the index's `data` folder), with the problem noted;
    with no such text the settings are `unsafe`. A usable, trusted file's text is kept as the
    last; an untrusted one never is. A
    missing file is taken for deleted on purpose, and the defaults apply, once reads at least
    MISSING_GRACE_S apart have found it missing (`_deleted_on_purpose`).

    `data` has no default: a caller that has the index's data folder must pass it, or a process
    that just started would read a missing file as the defaults (None only without an index)."""
    root = Path(vault)
    reader = _Reader()
    path = settings_path(root)
    last = settings_memory.recall(path, data)
    had_settings = bool(last and last.strip())
    present = missing = False
    stamp = None
    try:
        stamp = file_stamp(path)
        text = _read_text(path, reader)
        # the same file before and after the read: no write landed during it
        stamp = stamp if stamp == file_stamp(path) else None
        present = True
    except FileNotFoundError:
        text = ""
        missing = had_settings and not _deleted_on_purpose(path, data)
        if missing:
            reader.note(f"the file is missing (a sync tool or editor saving it?); it is taken "
                        f"for deleted once missing for {MISSING_GRACE_S:g} s: to use the "
                        "defaults at once, write `{}` in it instead")
    if not missing:
        settings_memory.clear_missing(path, data)
    raw = None if text is None else _parse(text, reader)
    settings = _settings(root, raw or {}, reader)  # notes `private` or `exclude` unusable
    emptied = present and text is not None and not text.strip() and had_settings
    unusable = raw is None or settings.unsafe or emptied or missing
    # a file deleted on purpose has had its own grace
    trusted = unusable or not present
    dropped = [] if trusted else _unsettled_drops(path, stamp, last, raw, text or "", settings)
    unsettled = bool(dropped)
    if not unsettled:
        settings_memory.clear_unsettled(path)
    if unusable or unsettled:
        if emptied:
            reader.note("the file is empty where it had settings (an editor saving it?); write "
                        "`{}` in it to use the defaults")
        if unsettled:
            reader.note(f"the file drops {', '.join(dropped)} (an editor saving it?); they are "
                        f"kept until it has been unchanged for {SETTLE_S:g} s")
        kept = _Reader()
        # A text kept by an older Ora may not parse now (it let a key be given twice): then
        # nothing is known, and the settings are unsafe rather than the defaults.
        before = None if last is None else _parse(last, kept)
        if before is not None:
            problems = [p.removesuffix(_DEFAULTED) for p in reader.problems]
            problems.append(f"{settings_defaults()['file']}: its settings are those it last had "
                            "until it can be used")
            held = _settings(root, before, kept)
            if unsettled:  # a `private` entry the new text adds counts at once: never less
                # (`exclude` stays the last text's: a save cut to `- /` would exclude the whole
                # vault, and excluding keeps no note private: `is_private_path`)
                held = replace(held, private=_union(held.private, settings.private))
            return _log(replace(held, problems=tuple(problems), file_exists=present))
        return _log(replace(settings, problems=tuple(reader.problems),
                            unsafe=raw is None or settings.unsafe or missing))
    settings_memory.remember(path, text or "", data)
    return _log(settings)


def _union(kept: tuple[str, ...], new: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(kept + new))


def _explicitly_empty(raw: dict[str, Any] | None, text: str | None) -> bool:
    """Whether the file says `{}` (an empty mapping written out), not just nothing (comments
    alone, as the beginning of a file read halfway through its save is)."""
    if raw != {} or text is None:
        return False
    try:
        return bool(load_settings_yaml(text) == {})
    except (yaml.YAMLError, DuplicateKey, RecursionError):
        return False


def _dropped(last: str | None, settings: VaultSettings) -> list[str]:
    """The `private` and `exclude` entries (or their keys' defaults) the last good text had that
    `settings` lack, as `key: entry`; none without a last good text that can be read."""
    if not last or not last.strip():
        return []
    dropped = []
    for key, had in _privacy_entries(last):
        now = set(getattr(settings, key))
        dropped += [f"{key}: {entry}" for entry in had if entry not in now]
    return dropped


@lru_cache(maxsize=8)
def _privacy_entries(last: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(key, entries) of `private` and `exclude` in a last good text (parsed once: every read
    compares with it); none when it cannot be parsed now."""
    reader = _Reader()
    raw = _parse(last, reader)
    if raw is None:
        return ()
    defaults = settings_defaults()
    return tuple((key, reader.patterns(raw.get(key, defaults[key]), key, defaults[key]))
                 for key in _PRIVACY_KEYS)


def _settled(path: Path, stamp: FileStamp | None, text: str) -> bool:
    """Whether ora.yaml, read as `text` with `stamp` (None: it changed during the read), has
    been unchanged for SETTLE_S: by its modification time, or, for a time that cannot be true,
    since this process first read it so (settings_memory.py keeps when it will be, for
    `missing_settings_recheck`). A time ahead of the clock (another machine's) cannot be, nor one
    no later than when the last good text was kept: the file changed since (a NAS clock behind,
    a sync tool putting the old time back after an in-place write). A save in progress keeps
    changing it and never settles; a user's deliberate removal of a private folder takes effect
    SETTLE_S after the save."""
    now = time.time()
    version: Any = (stamp, text) if stamp is not None else object()  # changed: a new version
    changed = stamp[1] / 1e9 if stamp is not None else now
    kept = settings_memory.recalled_since(path)
    if kept is not None and changed <= kept:
        changed = now  # untrue: go by when this process first read it
    return now >= settings_memory.unsettled_until(path, version, changed, now, SETTLE_S)


def unsettled_drops(vault: str | Path, data: Path | None, text: str) -> list[str]:
    """The `private` and `exclude` entries the last good ora.yaml had that `text` (the file's,
    just read) drops while the file has not settled (SETTLE_S): the reader does not trust such a
    text yet, and the editor must not build on it (it may be a save read halfway)."""
    raw, settings = read_settings_text(vault, text)
    if raw is None or settings.unsafe:
        return []
    path = settings_path(vault)
    return _unsettled_drops(path, file_stamp(path), settings_memory.recall(path, data), raw,
                            text, settings)


def _unsettled_drops(path: Path, stamp: FileStamp | None, last: str | None,
                     raw: dict[str, Any] | None, text: str, settings: VaultSettings) -> list[str]:
    """The `private` and `exclude` entries `last` had that `settings` (of ora.yaml's `text`,
    parsed as `raw`, read with `stamp`) drop, while the file has not settled (`_settled`); none
    for a trusted text. The reader's and the editor's one test."""
    if _explicitly_empty(raw, text):  # `{}`: the defaults in so many words, no prefix of a save
        return []
    dropped = _dropped(last, settings)
    return dropped if dropped and not _settled(path, stamp, text) else []


def _deleted_on_purpose(path: Path, data: Path | None) -> bool:
    """Whether a missing ora.yaml that had settings counts as deleted: reads at least
    MISSING_GRACE_S apart found it missing (the first read's time is kept with the last good
    text, so two processes sharing the data folder count as one). A file deleted and created
    again meanwhile, as sync tools and some editors save, never lets the defaults apply."""
    now = time.time()
    since = settings_memory.missing_since(path, data, now)
    if since is not None and now - since > STALE_MISSING_S:
        # kept from another absence (two runs a day apart that each caught a sync tool's brief
        # delete), not one long one: this one starts now
        settings_memory.clear_missing(path, data)
        since = settings_memory.missing_since(path, data, now)
    return since is not None and now - since >= MISSING_GRACE_S


def missing_settings_recheck(vault: str | Path, data: Path | None) -> float | None:
    """Seconds until a read would take the vault's missing ora.yaml for deleted, or trust a text
    that drops `private` or `exclude` entries because it has settled (0 when one would now), so
    a server can read it again then; None when no read is waiting on it (it is there and
    trusted, or no read has found it missing where it had settings)."""
    path = settings_path(vault)
    since = settings_memory.missing_since(path, data, None)
    due = [t for t in (None if since is None else since + MISSING_GRACE_S,
                       settings_memory.settled_at(path)) if t is not None]
    return max(0.0, min(due) - time.time()) if due else None


def read_settings_text(vault: str | Path, text: str) -> tuple[dict[str, Any] | None,
                                                            VaultSettings]:
    """What the reader makes of `text` as the vault's ora.yaml, keeping nothing: its mapping
    (None when the text cannot be used at all) and its settings, `unsafe` when they cannot say
    which notes are private or excluded. The editor checks a file with it before and after an
    edit (settings_edit.py)."""
    reader = _Reader()
    raw = _parse(text, reader)
    settings = _settings(Path(vault), raw or {}, reader)
    return raw, replace(settings, unsafe=raw is None or settings.unsafe)


def known_privacy(settings: VaultSettings) -> VaultSettings:
    """`settings`, if they say which notes are private and excluded; else InvalidSettings."""
    if settings.unsafe:
        raise InvalidSettings(
            f"{'; '.join(p.removesuffix(_DEFAULTED) for p in settings.problems)}. Ora cannot "
            "tell which notes are private or excluded, so it indexes nothing until the file "
            "is fixed")
    return settings


def _log(settings: VaultSettings) -> VaultSettings:
    for problem in settings.problems:
        log.warning("%s", problem)
    return settings


def _settings(root: Path, raw: dict[str, Any], reader: _Reader) -> VaultSettings:
    """The settings of a parsed file (a mapping, {} for none), its problems noted by `reader`."""
    defaults = settings_defaults()
    unknown = sorted(set(map(str, raw)) - set(_KNOWN_KEYS))
    if unknown:
        reader.note(f"unknown setting(s) {', '.join(unknown)} (known: {', '.join(_KNOWN_KEYS)})")
    for key in unknown:  # `privte:` or `Private:`: meant to make notes private, read as nothing
        meant = difflib.get_close_matches(key.casefold(), _PRIVACY_KEYS, n=1, cutoff=0.7)
        if meant:
            reader.note(f"{key!r} looks like {meant[0]!r} misspelt: name it {meant[0]!r}")
            reader.unsafe = True
    untyped = raw.get("untyped_type", defaults["untyped_type"])
    lint_mode, lint_ignore = reader.lint(raw.get("lint"))
    excluded = _obsidian_filters(root)
    reader.problems.extend(_unsupported_filters(excluded))
    return VaultSettings(
        folders=reader.folders(raw.get("folders")),
        untyped_type=reader.type_name(untyped, "untyped_type", defaults["untyped_type"]),
        exclude=reader.patterns(raw.get("exclude", defaults["exclude"]), "exclude",
                                defaults["exclude"]),
        private=reader.patterns(raw.get("private", defaults["private"]), "private",
                                defaults["private"]),
        obsidian_excluded=excluded,
        obsidian_templates=_obsidian_templates(root),
        plugin_tags=_plugin_tags(root),
        lint_untyped=lint_mode,
        lint_ignore=lint_ignore,
        chats_folder=reader.folder(raw.get("chats_folder", defaults["chats_folder"]),
                                   "chats_folder", defaults["chats_folder"]),
        languages=reader.languages(raw.get("language", defaults["language"])),
        problems=tuple(reader.problems),
        file_exists=settings_path(root).is_file(),
        unsafe=reader.unsafe,
    )


@cache
def default_vault_settings() -> VaultSettings:
    """The settings of a vault without ora.yaml or Obsidian exclusions (pure defaults)."""
    reader = _Reader()
    defaults = settings_defaults()
    return VaultSettings(
        folders=reader.folders(None),
        untyped_type=str(defaults["untyped_type"]),
        exclude=tuple(defaults["exclude"]),
        obsidian_excluded=(),
        lint_untyped=str(defaults["lint"]["untyped"]),
        lint_ignore=tuple(defaults["lint"]["ignore"]),
        chats_folder=str(defaults["chats_folder"]),
    )
