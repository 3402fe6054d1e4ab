"""The only code that writes notes: round-trip frontmatter edits and moves to the trash.

An edit loads the frontmatter block with ruamel.yaml's round-trip loader, lets the caller
mutate the mapping, then splices: every top-level key whose rendering did not change keeps its
original bytes, and only changed or new keys are rendered by ruamel (in the file's own list
indentation). The body, fences, comments between keys, quoting, key order and line endings are
left byte for byte. Files are replaced atomically (temp file in the same folder, fsync,
os.replace, mode kept) and never when they changed since they were read; a file with other hard
links is written in place instead (a rename would detach it from them), its old bytes kept in a
hidden copy beside it until the new ones are on disk.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import os
import re
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq, TaggedScalar
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from sidecar.errors import (
    Conflict,
    InvalidFrontmatter,
    NoteNotWritable,
    NotFound,
    OraError,
    UnreadableNote,
)
from sidecar.vault.links import link_target
from sidecar.vault.note import (
    FENCE,
    has_lone_cr,
    opens_frontmatter,
    parse_note,
    split_frontmatter,
)
from sidecar.vault.properties import property_key
from sidecar.vault.scan import normalise_rel, vault_path
from sidecar.vault.tags import clean_tag, tag_properties, tag_words

Mutation = Callable[[CommentedMap], None]
TRASH_FOLDER = ".trash"
_DASH = re.compile(r"^( *)- ")
_KEY_LINE = re.compile(r"^( *)[^#\s-][^#]*:\s*(#.*)?$")


def content_hash(data: bytes) -> str:
    """sha256 hex of a file's bytes: the version token edits are checked against."""
    return hashlib.sha256(data).hexdigest()


# ---- small mutations other modules compose ------------------------------------------------


def set_value(cm: CommentedMap, key: str, value: Any) -> None:
    """Set a top-level property in place under the note's own spelling of its name (`Date
    Created` for `date created`, as Obsidian reads it); a new key goes after the existing ones."""
    cm[property_key(cm, key) or key] = value


def _holds_tag(items: list[Any], tag: str) -> bool:
    return any(isinstance(t, str) and clean_tag(t).casefold() == clean_tag(tag).casefold()
               for t in items)


def add_tag(cm: CommentedMap, tag: str) -> None:
    """Add `tag` to the note's tags unless present (case-insensitively, `#` or not), in the
    property that holds them (`tags`, else `tag` or `Tags`: Obsidian reads any), creating
    `tags` if there is none. A string of several tags becomes the list of them."""
    names = {name.casefold() for name in tag_properties()}
    key = "tags" if "tags" in cm else next(
        (k for k in cm if isinstance(k, str) and k.casefold() in names), "tags")
    tags = cm.get(key)
    if tags is None:
        cm[key] = CommentedSeq([tag])
    elif isinstance(tags, str):
        words = tag_words(tags)
        if not _holds_tag(words, tag):
            cm[key] = CommentedSeq([*words, tag])
    elif isinstance(tags, list):
        if not _holds_tag(tags, tag):
            tags.append(tag)
    else:
        raise InvalidFrontmatter(f"`{key}` is neither a list nor a string; fix it by hand first")


def add_relationship(cm: CommentedMap, kind: str, wikilink: str) -> None:
    """Add `wikilink` under `relationships.<kind>` unless that target is already there."""
    rel = cm.get("relationships")
    if rel is None:
        rel = cm["relationships"] = CommentedMap()
    if not isinstance(rel, dict):
        raise InvalidFrontmatter("`relationships` is not a mapping; fix it by hand first")
    links = rel.get(kind)
    if links is None:
        links = rel[kind] = CommentedSeq()
    if not isinstance(links, list):
        raise InvalidFrontmatter(f"`relationships.{kind}` is not a list; fix it by hand first")
    target = (link_target(wikilink) or wikilink).casefold()
    if not any(isinstance(v, str) and (link_target(v) or "").casefold() == target for v in links):
        links.append(DoubleQuotedScalarString(wikilink))  # Obsidian writes links in "…"


# ---- the splice --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Span:
    """A top-level key's lines [start, end) and the blank/comment gap lines after it."""

    start: int
    end: int
    gap_end: int


def _lines(text: str) -> list[str]:
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


def _odd_breaks(text: str) -> bool:
    """True when YAML would count line breaks we do not split on (spans would misalign)."""
    return any(c in text for c in "\x85\u2028\u2029") or "\r" in text.replace("\r\n", "")


def _is_gap(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


class _Constructor(RoundTripConstructor):
    """Round-trip constructor that keeps an impossible date (2024-13-45) as text."""

    def construct_yaml_timestamp(self, node: Any, values: Any = None) -> Any:
        try:
            return super().construct_yaml_timestamp(node, values)
        except ValueError:
            return self.construct_scalar(node)


_Constructor.add_constructor("tag:yaml.org,2002:timestamp", _Constructor.construct_yaml_timestamp)


def _yaml(lines: list[str]) -> YAML:
    """A round-trip YAML whose list indentation matches the file's first block list."""
    y = YAML(typ="rt")
    y.Constructor = _Constructor
    y.preserve_quotes = True
    y.width = 4096  # never re-wrap a long value
    offset = 0
    for i, line in enumerate(lines):
        dash = _DASH.match(line)
        if not dash:
            continue
        indent = len(dash.group(1))
        for prev in reversed(lines[:i]):
            key = _KEY_LINE.match(prev.rstrip("\r\n"))
            if key and len(key.group(1)) <= indent:
                offset = indent - len(key.group(1))
                break
        break
    y.indent(mapping=2, sequence=offset + 2, offset=offset)
    return y


def _spans(cm: CommentedMap, lines: list[str]) -> dict[Any, _Span] | None:
    """Line spans of the top-level keys, or None when keys do not sit on lines of their own."""
    if cm.fa.flow_style():
        return None
    try:
        starts = [cm.lc.key(k)[0] for k in cm]
    except (AttributeError, KeyError, TypeError):
        return None
    if any(b <= a for a, b in itertools.pairwise(starts)):
        return None
    spans: dict[Any, _Span] = {}
    for i, key in enumerate(cm):
        gap_end = starts[i + 1] if i + 1 < len(starts) else len(lines)
        end = gap_end
        while end > starts[i] + 1 and _is_gap(lines[end - 1]):
            end -= 1
        spans[key] = _Span(starts[i], end, gap_end)
    return spans


def _render(y: YAML, cm: CommentedMap, key: Any) -> str:
    """One top-level key as ruamel writes it, without the comment lines around it."""
    one = CommentedMap()
    one[key] = cm[key]
    if key in cm.ca.items:
        one.ca.items[key] = cm.ca.items[key]
    buf = io.StringIO()
    y.dump(one, buf)
    lines = buf.getvalue().splitlines(keepends=True)
    while lines and _is_gap(lines[0]):
        lines.pop(0)
    while lines and _is_gap(lines[-1]):
        lines.pop()
    return "".join(lines)


def _newline(text: str) -> str:
    if "\n" not in text and "\r" in text:
        return "\r"  # classic Mac line ends
    end = text.find("\n")
    return "\r\n" if end > 0 and text[end - 1] == "\r" else "\n"


def _load(y: YAML, yaml_text: str) -> CommentedMap:
    try:
        data = y.load(yaml_text)
    except (YAMLError, ValueError, RecursionError) as exc:
        raise InvalidFrontmatter(
            f"frontmatter is not valid YAML; fix it first ({_yaml_problem(exc)})") from exc
    if data is None:
        return CommentedMap()
    if not isinstance(data, CommentedMap):
        raise InvalidFrontmatter("frontmatter is not a mapping of properties; fix it first")
    return data


def _yaml_problem(exc: BaseException) -> str:
    """One line saying what is wrong and where (the file line: the block starts on line 2)."""
    problem = getattr(exc, "problem", None)
    mark = getattr(exc, "problem_mark", None)
    if problem and mark is not None:
        return f"{problem} on line {mark.line + 2}"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _drop_gap_comments(rendered: str, own: list[str], gap: list[str]) -> str:
    """`rendered` without the comment and blank lines ruamel carried over from the key's gap.

    ruamel attaches the comments that follow a key (say, the last lines before the closing
    fence) to the key's last value, so a fresh rendering repeats them while the gap lines are
    kept as they are. Such a line is dropped when it is one of the gap's and the key's own
    lines do not have that many of it.
    """
    budget: dict[str, int] = {}
    for line in own:
        if _is_gap(line):
            budget[line.strip()] = budget.get(line.strip(), 0) + 1
    carried = {line.strip() for line in gap if _is_gap(line)}
    kept: list[str] = []
    for line in rendered.splitlines(keepends=True):
        if _is_gap(line) and line.strip() in carried:
            if budget.get(line.strip(), 0) == 0:
                continue
            budget[line.strip()] -= 1
        kept.append(line)
    return "".join(kept)


def _has_anchors(y: YAML, yaml_text: str) -> bool:
    """True when the YAML defines an anchor or uses an alias anywhere."""
    return any(isinstance(event, AliasEvent) or getattr(event, "anchor", None)
               for event in y.parse(yaml_text))


def _refuse_mixed_line_ends(text: str) -> None:
    """InvalidFrontmatter when a bare `\r` line end sits in or before the frontmatter of a note
    that also has `\n` ones: the reader splits lines there, the splice cannot keep those bytes."""
    block = split_frontmatter(text)
    if has_lone_cr(text[: len(text) - len(block.body)] if block else text.split("\n", 1)[0]):
        raise InvalidFrontmatter(
            "the frontmatter mixes classic Mac line ends (a bare CR) with others, so Ora cannot "
            "edit it and keep every other byte; re-save the note with one kind of line end")


def rewrite_frontmatter(text: str, mutate: Mutation) -> str:
    """`text` with its frontmatter mutated; every byte outside the changed keys is kept."""
    if has_lone_cr(text):
        if "\n" not in text:  # classic Mac line ends throughout: edit as `\n`, put each back
            return rewrite_frontmatter(text.replace("\r", "\n"), mutate).replace("\n", "\r")
        _refuse_mixed_line_ends(text)
    nl = _newline(text)
    block = split_frontmatter(text)
    if block is None:
        if opens_frontmatter(text):
            raise InvalidFrontmatter("frontmatter opened on line 1 is never closed; fix it first")
        cm = CommentedMap()
        mutate(cm)
        if not cm:
            return text
        y = _yaml([])
        rendered = "".join(_render(y, cm, k) for k in cm).replace("\n", nl)
        bom = "\ufeff" if text.startswith("\ufeff") else ""
        return f"{bom}{FENCE}{nl}{rendered}{FENCE}{nl}{text.removeprefix(bom)}"

    lines = _lines(block.yaml_text)
    clean = [line.rstrip("\r\n") + "\n" for line in lines]
    y = _yaml(clean)
    cm = _load(y, "".join(clean))
    spans = None if _odd_breaks(block.yaml_text) else _spans(cm, lines)
    before = {k: _render(y, cm, k) for k in cm}
    mutate(cm)

    def fresh(key: Any) -> str:
        out = _render(y, cm, key)
        if spans is not None and key in spans:
            span = spans[key]
            out = _drop_gap_comments(out, lines[span.start : span.end],
                                     lines[span.end : span.gap_end])
        return out.replace("\n", nl)

    if spans is None:  # a top-level flow mapping: no per-key bytes to keep
        new_yaml = "".join(fresh(k) for k in cm)
    else:
        first = min((s.start for s in spans.values()), default=len(lines))
        out = lines[:first]
        for key, span in spans.items():
            if key in cm:
                same = _render(y, cm, key) == before[key]
                out.append("".join(lines[span.start : span.end]) if same else fresh(key))
            out.extend(lines[span.end : span.gap_end])
        if out and not out[-1].endswith("\n"):
            out[-1] += nl
        out.extend(fresh(k) for k in cm if k not in spans)
        new_yaml = "".join(out)

    if new_yaml != block.yaml_text and _has_anchors(y, "".join(clean)):
        raise InvalidFrontmatter(
            "frontmatter uses YAML anchors or aliases (&name, *name); an edit would expand "
            "them, so Ora leaves it alone: edit it by hand")
    head = text[: len(text) - len(block.body)]
    opening_end = head.index("\n") + 1
    closing = head[opening_end + len(block.yaml_text) :]
    result = head[:opening_end] + new_yaml + closing + text[len(head) :]  # the body as it is
    if new_yaml != block.yaml_text:
        _check_reads_back(y, new_yaml, cm, text, result)
    return result


def _plain(value: Any) -> Any:
    """A YAML value as comparable data: a custom-tagged scalar (`!foo bar`) has no equality of
    its own, so it compares as its tag and text."""
    if isinstance(value, TaggedScalar):
        return ("tagged", str(value.tag), value.value)
    if isinstance(value, dict):
        return [(_plain(k), _plain(v)) for k, v in value.items()]
    if isinstance(value, list | tuple | set):
        return [_plain(v) for v in value]
    return value


def _check_reads_back(y: YAML, new_yaml: str, meant: CommentedMap, before: str,
                      after: str) -> None:
    """Refuse an edit whose frontmatter would not read back as the properties it meant to write
    (the splice keeps the file's own lines, and a few YAML forms, such as a `...` document end
    inside the block, would change meaning or stop parsing around a new key)."""
    try:
        again = y.load("".join(line.rstrip("\r\n") + "\n" for line in _lines(new_yaml)))
    except (YAMLError, ValueError, RecursionError):
        again = None
    broken = parse_note(after, "").yaml_error is not None
    if _plain(again) != _plain(meant) or (broken and parse_note(before, "").yaml_error is None):
        raise InvalidFrontmatter("Ora's edit of this frontmatter would not read back as written "
                                 "(unusual YAML such as a `...` line); edit it by hand")


# ---- files -------------------------------------------------------------------------------


def _read(path: Path, rel: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError as exc:
        raise NotFound(f"no note at {rel}") from exc


def _check_not_empty(data: bytes, rel: str) -> None:
    """Conflict for an empty note: most often an editor between its truncate and its write, so
    nothing planned from it may be written."""
    if not data.strip():
        raise Conflict(f"{rel} is empty (perhaps it is being saved); nothing was written")


def _check_writable(path: Path, rel: str) -> None:
    """NoteNotWritable for a read-only note: its owner took write permission away on purpose."""
    if not path.stat().st_mode & stat.S_IWUSR:
        raise NoteNotWritable(f"{rel} is read-only; make it writable (chmod u+w) for Ora to "
                              "edit it")


def _not_writable(rel: str, exc: OSError) -> NoteNotWritable:
    return NoteNotWritable(f"{rel} cannot be written ({exc.strerror}): the note or its folder "
                           "is read-only or immutable (chattr -i / chflags nouchg)")


def _check(data: bytes, expected_hash: str | None, rel: str) -> str:
    actual = content_hash(data)
    if expected_hash is not None and actual != expected_hash:
        raise Conflict(f"{rel} changed since it was read; reload it and try again")
    return actual


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # some filesystems cannot fsync a directory
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _hash_of(path: Path) -> str | None:
    try:
        return content_hash(path.read_bytes())
    except FileNotFoundError:
        return None


def _swap(path: Path, tmp: Path, read_hash: str) -> None:
    """os.replace(tmp, path) only if `path` holds the bytes hashed `read_hash` (compare-and-swap).

    POSIX has no atomic compare-and-rename, and an editor that saves in place (truncate, then
    write) may already hold the old file open. So the old file keeps a second, hidden name
    while it is replaced; it is checked before the swap and again after it. If it changed in
    between, the editor's save went into it: it is put back (unless the note changed again
    since) and the edit is a Conflict. Without hard links the check before the swap remains.
    """
    held = tmp.with_suffix(".ora-old")
    try:
        os.link(path, held)
    except FileNotFoundError as exc:
        raise Conflict(f"{path.name} was removed while it was being edited") from exc
    except OSError:  # no hard links here (FAT, some network shares)
        if _hash_of(path) != read_hash:
            raise Conflict(f"{path.name} changed while it was being edited; try again") from None
        os.replace(tmp, path)
        return
    try:
        if _hash_of(held) != read_hash:
            raise Conflict(f"{path.name} changed while it was being edited; try again")
        written = content_hash(tmp.read_bytes())
        os.replace(tmp, path)
        if _hash_of(held) != read_hash:  # an in-place save reached the old file meanwhile
            if _hash_of(path) == written:
                os.replace(held, path)
            raise Conflict(f"{path.name} changed while it was being edited; try again")
    finally:
        held.unlink(missing_ok=True)


def _new_file(path: Path, mode: int) -> tuple[int, Path]:
    """A new hidden file beside `path`, created with `mode` less the user's umask."""
    for _ in range(100):
        tmp = path.parent / f".{path.name}.{secrets.token_hex(4)}.ora-tmp"
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path.name}")


def _temp_copy(path: Path, data: bytes, mode: int | None) -> Path:
    """`data` in a new hidden file beside `path` (flushed to disk, mode `mode`), to be moved
    into place or removed by the caller. A new note (`mode` None) gets the mode the user's
    umask gives new files, as an editor's would; a copy of a note is the owner's alone until
    it has the note's own mode, so its text is never readable by more accounts than the note's."""
    fd, tmp = _new_file(path, 0o600 if mode is not None else 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _copy_xattrs(src: Path, dst: Path) -> None:
    """The file's extended attributes (desktop tags, ratings, comments, ACLs) onto its new copy,
    best effort: an attribute the system will not set (or a system without them) is skipped."""
    if not hasattr(os, "listxattr"):  # Linux only in Python
        return
    with contextlib.suppress(OSError):
        for name in os.listxattr(src):
            with contextlib.suppress(OSError):
                os.setxattr(dst, name, os.getxattr(src, name))


def _overwrite(fd: int, data: bytes) -> None:
    """The file open at `fd` holds exactly `data`, on disk (unbuffered: a failed write leaves
    nothing pending to be flushed over a restore)."""
    view, pos = memoryview(data), 0
    while pos < len(data):
        pos += os.pwrite(fd, view[pos:], pos)
    os.ftruncate(fd, len(data))
    os.fsync(fd)


def _write_in_place(path: Path, data: bytes, read_hash: str, name: str) -> None:
    """Overwrite `path`'s own inode with `data` if it still hashes `read_hash`: for a note with
    other hard links (st_nlink > 1), which a rename would split from them (the other names kept
    the old text). Its old bytes first go to a hidden copy beside it, flushed to disk, so a crash
    mid-write leaves them recoverable; a failed write puts them back. Mode and extended
    attributes stay, being the inode's. The check and the write share one open file, so only a
    save landing in between (microseconds) could be overwritten."""
    try:
        fd = os.open(path, os.O_RDWR)  # no truncation until the new bytes are written
    except FileNotFoundError as exc:
        raise Conflict(f"{name} was removed while it was being edited") from exc
    with os.fdopen(fd, "r+b", buffering=0) as handle:
        old = handle.read()
        if content_hash(old) != read_hash:
            raise Conflict(f"{name} changed while it was being edited; try again")
        backup = _temp_copy(path, old, 0o600)
        try:
            _overwrite(fd, data)
        except BaseException:
            try:
                _overwrite(fd, old)
            except OSError as exc:  # the copy is all that is left of the old text
                raise NoteNotWritable(f"{name} could not be written ({exc.strerror}); its "
                                      f"old text is in {backup.name} beside it") from exc
            backup.unlink()
            raise
        backup.unlink()


def atomic_write(path: Path, data: bytes, read_hash: str, rel: str | None = None) -> None:
    """Replace `path` with `data` atomically, keeping its mode, if it still hashes `read_hash`;
    a file with other hard links is written in place (`_write_in_place`) so they stay one file.

    Conflict when it does not: the write is checked against the exact bytes it was planned
    from, never against a later read. NoteNotWritable (naming `rel`) when the file is
    read-only, immutable or in a folder that cannot be written.
    """
    name = rel or path.name
    _check_writable(path, name)
    if path.stat().st_nlink > 1:
        try:
            _write_in_place(path, data, read_hash, name)
        except PermissionError as exc:  # immutable, or a folder the backup cannot go in
            raise _not_writable(name, exc) from exc
        return
    try:
        tmp = _temp_copy(path, data, stat.S_IMODE(path.stat().st_mode))
    except PermissionError as exc:  # a folder that cannot be written
        raise _not_writable(name, exc) from exc
    _copy_xattrs(path, tmp)
    try:
        _swap(path, tmp, read_hash)
    except PermissionError as exc:  # immutable (EPERM on the replace)
        raise _not_writable(name, exc) from exc
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(path.parent)


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
    data = _read(path, rel)
    _check(data, expected_hash, rel)
    _check_writable(path, rel)
    _check_not_empty(data, rel)
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


def _trash_folder(vault: str | Path) -> Path:
    trash = Path(vault) / TRASH_FOLDER
    if trash.is_symlink():  # a move through it could leave the vault
        raise NoteNotWritable(f"{TRASH_FOLDER} is a symbolic link; Ora will not move notes into it")
    trash.mkdir(exist_ok=True)
    return trash


def _link_into_trash(src: Path, trash: Path, name: PurePosixPath, planned: str) -> str:
    """Give `src` a name in the trash (never overwriting), drop its old name; the new name.

    As with edits, the move is checked against the planned bytes before the old name goes
    and after: a save that reached the file meanwhile puts it back and is a Conflict.
    """
    for n in itertools.count():
        candidate = name.name if n == 0 else f"{name.stem} {n}{name.suffix}"
        dst = trash / candidate
        try:
            os.link(src, dst)  # fails if dst exists: no overwrite, no race
        except FileExistsError:
            continue
        except OSError as exc:  # no hard links on this filesystem (or an immutable file)
            if isinstance(exc, PermissionError):
                raise
            if dst.exists():
                continue
            os.rename(src, dst)
            return candidate
        if _hash_of(dst) != planned:
            dst.unlink()
            raise Conflict(f"{name} changed while it was being moved; try again")
        os.unlink(src)
        if _hash_of(dst) != planned:  # an in-place save reached it during the move
            with contextlib.suppress(FileExistsError):
                os.link(dst, src)
            dst.unlink()
            raise Conflict(f"{name} changed while it was being moved; try again")
        _fsync_dir(src.parent)
        return candidate
    raise AssertionError("unreachable")


def move_to_trash(vault: str | Path, rel: str, expected_hash: str | None) -> str:
    """Move a note to VAULT/.trash/ as Obsidian does (never overwriting); its new rel path."""
    rel = normalise_rel(rel)
    src = vault_path(vault, rel)
    planned = _check(_read(src, rel), expected_hash, rel)
    _check_writable(src, rel)
    try:
        candidate = _link_into_trash(src, _trash_folder(vault), PurePosixPath(rel), planned)
    except PermissionError as exc:
        raise _not_writable(rel, exc) from exc
    return f"{TRASH_FOLDER}/{candidate}"


def restore_bytes(vault: str | Path, rel: str, data: bytes, expected_hash: str) -> None:
    """Put earlier bytes back into VAULT/rel (an undo), atomically, only while the file still
    hashes `expected_hash` (Conflict otherwise)."""
    path = vault_path(vault, rel)
    _check(_read(path, rel), expected_hash, rel)
    atomic_write(path, data, expected_hash, rel)


def restore_from_trash(vault: str | Path, trash_rel: str, rel: str, expected_hash: str) -> None:
    """Move a note that `move_to_trash` moved back to `rel`, if it still hashes
    `expected_hash` and nothing has taken its place (Conflict otherwise; never overwrites)."""
    src, dst = vault_path(vault, trash_rel), vault_path(vault, rel)
    _check(_read(src, trash_rel), expected_hash, trash_rel)
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
    except FileExistsError as exc:
        raise Conflict(f"{rel} exists again; nothing was restored") from exc
    except OSError:  # no hard links on this filesystem
        if dst.exists():
            raise Conflict(f"{rel} exists again; nothing was restored") from None
        os.rename(src, dst)
        return
    os.unlink(src)
    _fsync_dir(src.parent)


# ---- notes Ora writes itself (chat notes, the supervision log) ------------------------------


def create_note(vault: str | Path, rel: str, text: str) -> str:
    """Write a new note atomically, never over an existing file (Conflict); its hash."""
    path = vault_path(vault, rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    tmp = _temp_copy(path, data, None)
    try:
        os.link(tmp, path)  # fails if the file exists: no overwrite, no race
    except FileExistsError as exc:
        raise Conflict(f"{normalise_rel(rel)} already exists") from exc
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(path.parent)
    return content_hash(data)


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
    data = _read(path, rel)
    read_hash = _check(data, expected_hash, rel)
    _check_not_empty(data, rel)
    try:
        old = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableNote(f"{rel} is not UTF-8", code="undecodable_file") from exc
    nl = _newline(old)
    new = rewrite_frontmatter(old, mutate) if mutate is not None else old
    if new and not new.endswith(("\n", "\r")):
        new += nl
    new += (nl if blank_line else "") + text.replace("\r\n", "\n").replace("\n", nl)
    new_data = new.encode("utf-8")
    atomic_write(path, new_data, read_hash, rel)
    return read_hash, content_hash(new_data)
