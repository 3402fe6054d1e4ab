"""Undo journals: one JSON file per change Ora makes to notes (`ora adopt --apply`, an engram
extraction), in `VAULT/.ora-journal/` (the folder is data: `journal_folder` in
`schema/adopt.json`).

A journal is named `<kind>-<sequence>-<UTC time>.json`: the sequence, one more than the newest
journal's of that kind, orders them even within one second or after the clock went back, so
`--undo` always finds the latest change. It lives in the vault, not in the index folder
`VAULT/.ora/`, because deleting the index must never lose the way back; being a dot-folder, it is
neither a note to Obsidian nor to Ora. Every journal write goes through the compare-and-swap
writer: created whole or not at all, never over another change's, updated only over the bytes
it was read as.

A note's entry keeps the part of its text that an edit changed (`split_heads`: the frontmatter
lines up to the last one it changed; what follows is the same on both sides) with the hashes
before and after, so it stays small and readable. `restore_head` puts it back while the note holds
exactly what Ora wrote; asked to keep edits, also while it still begins with what Ora wrote and
only lines after that changed (a chat note whose conversation went on): the head alone is put
back, and every other byte kept. `head_values` reads what an entry's heads hold, for an undo that
has to take Ora's own values back out of a frontmatter edited since.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import re
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any, Literal

from sidecar.errors import Conflict, NoteNotWritable, NotFound
from sidecar.schema import load_json
from sidecar.vault.note import FENCE, opens_frontmatter, parse_note, split_frontmatter
from sidecar.vault.scan import read_regular, vault_path
from sidecar.vault.write import atomic_write, content_hash, create_file

JOURNAL_VERSION = 1
# `merged`: the head put back into a note edited since after it (`restore_head`, keep_edits)
Restored = Literal["restored", "merged", "unchanged", "gone", "edited"]
_ABSENT = object()  # a key a frontmatter does not hold
Values = dict[str, Any]  # a frontmatter as read (`Note.frontmatter`)


def journal_folder(vault: str | Path) -> Path:
    """Where a vault's undo journals are kept."""
    return Path(vault) / str(load_json("adopt.json")["journal_folder"])


def journal_bytes(doc: dict[str, Any]) -> bytes:
    return (json.dumps(doc, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def split_heads(before: str, after: str) -> tuple[str, str]:
    """The heads of `before` and `after` that differ (what follows them is the same), each
    ending at a line end: what follows starts a line on both sides, so a head is whole lines
    (`restore_head` can put it back before lines edited since, `head_values` can read it)."""
    common = 0
    limit = min(len(before), len(after))
    while common < limit and before[-1 - common] == after[-1 - common]:
        common += 1
    heads = before[: len(before) - common], after[: len(after) - common]
    if not all(_whole_lines(head) for head in heads):  # a line's end both share: in both
        rest = _line_rest(before[len(heads[0]):])
        return heads[0] + rest, heads[1] + rest
    return heads


def _whole_lines(head: str) -> bool:
    return not head or head.endswith("\n")


def _line_rest(text: str) -> str:
    """`text` up to and with its first line end (all of it when it has none)."""
    end = text.find("\n")
    return text if end < 0 else text[: end + 1]


def _name(kind: str) -> re.Pattern[str]:
    return re.compile(re.escape(kind)
                      + r"-(?:(?P<seq>\d+)-)?(?P<stamp>\d{8}T\d{6}Z)(?:-(?P<n>\d+))?\.json")


def _journals(folder: Path, kind: str) -> list[Path]:
    """The journals of `kind` in `folder`, newest last: by sequence number, then (for names
    from before there was one, `KIND-<time>[-n].json`) by time and number within that second."""
    name = _name(kind)

    def order(path: Path) -> tuple[int, str, int]:
        found = name.fullmatch(path.name)
        if found is None:
            return (-1, path.name, 0)
        return (int(found["seq"] or 0), found["stamp"], int(found["n"] or 1))

    found = folder.glob(f"{kind}-*.json") if folder.is_dir() else []
    return sorted((p for p in found if name.fullmatch(p.name)), key=order)


@contextlib.contextmanager
def journal_lock(vault: str | Path) -> Iterator[None]:
    """One journalled change at a time in a vault, waiting for another to end: two ingests of
    one document at once each journalled the notes the other wrote, and an undo then trashed
    them. The lock is on the vault folder itself (no file to leave behind), and the kernel
    releases it if the process dies."""
    fd = os.open(vault, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def create_journal(vault: str | Path, kind: str, doc: dict[str, Any]) -> tuple[Path, str]:
    """A new journal of `kind` holding `doc`, numbered after the newest one; (its path, its
    hash). NoteNotWritable when the journal folder is a symbolic link; a failed first journal
    (a full disk) leaves no empty folder behind."""
    folder = journal_folder(vault)
    if folder.is_symlink():  # the journal holds notes' old text: never outside the vault
        raise NoteNotWritable(f"{folder.name} is a symbolic link; Ora will not write its "
                              "journal through it (nothing was changed)")
    existed = folder.is_dir()
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    last = _journals(folder, kind)
    seq = 1
    if last:
        found = _name(kind).fullmatch(last[-1].name)
        seq = int(found["seq"] or 0) + 1 if found else 1
    try:
        for n in range(seq, seq + 100):
            path = folder / f"{kind}-{n:06d}-{stamp}.json"
            try:
                return path, create_file(path, journal_bytes(doc))
            except Conflict:  # another change took this number meanwhile
                continue
        raise Conflict(f"no free journal name in {folder.name}/; nothing was changed")
    except BaseException:
        if not existed:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


def update_journal(path: Path, doc: dict[str, Any], digest: str) -> str:
    """Write `doc` over the journal at `path`, which must still hash to `digest`; its new hash."""
    data = journal_bytes(doc)
    atomic_write(path, data, digest)
    return content_hash(data)


def latest_journal(vault: str | Path, kind: str, what: str,
                   wanted: Callable[[dict[str, Any]], bool] | None = None,
                   ) -> tuple[Path, dict[str, Any], str]:
    """The newest readable journal of `kind` (and that `wanted` accepts): its path, what it
    holds and its hash (NotFound: no `what` to undo)."""
    folder = journal_folder(vault)
    for path in reversed(_journals(folder, kind)):
        try:
            data = read_regular(path)
            doc = json.loads(data.decode("utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and doc.get("kind") == kind and (wanted is None or wanted(doc)):
            return path, doc, content_hash(data)
    raise NotFound(f"no {what} to undo in {folder.name}/")


def drop_journal(path: Path) -> None:
    """Remove a journal that has nothing left to undo, and its folder once empty."""
    path.unlink()
    if not any(path.parent.iterdir()):
        path.parent.rmdir()


def restore_head(vault: str | Path, entry: dict[str, Any], *,
                 keep_edits: Collection[str] = ()) -> Restored:
    """Put back the note of a journal `entry` (`path`, `before_head`, `after_head`,
    `before_sha256`, `after_sha256`): `restored`, `unchanged` (already as before), `gone`, or
    `edited` (it holds something else than Ora wrote: left alone). With `keep_edits`, the
    frontmatter keys Ora's edit set, a note that still begins with Ora's head and changed only
    after it (a conversation that went on, a property added at the end) gets its head back with
    every other byte kept: `merged`, when its frontmatter then reads as it did before Ora's edit
    but for the changes since (see `_spliced`). Conflict when it changes while being written."""
    path = vault_path(vault, str(entry["path"]))
    try:
        current = path.read_bytes()
    except FileNotFoundError:
        return "gone"
    digest = content_hash(current)
    if digest == entry["before_sha256"]:
        return "unchanged"
    if digest == entry["after_sha256"]:
        restored = (entry["before_head"] + current.decode("utf-8", "replace")[
            len(entry["after_head"]):]).encode("utf-8")
        if content_hash(restored) != entry["before_sha256"]:
            return "edited"
        atomic_write(path, restored, digest)
        return "restored"
    merged = _spliced(entry, current, keep_edits) if keep_edits else None
    if merged is None:
        return "edited"
    atomic_write(path, merged, digest)
    return "merged"


def _spliced(entry: dict[str, Any], current: bytes, keys: Collection[str]) -> bytes | None:
    """`current` with Ora's head put back, when it still begins with it and the rest is what
    changed: the head lies inside the frontmatter (the body is kept whole), the heads differ in
    `keys` alone (an old journal's head, completed from `current`, differing elsewhere was
    completed from a line edited since), and the frontmatter then holds each value Ora's edit
    changed as it was before that edit and every other value as `current` holds it. None
    otherwise (the head was edited: nothing safe to splice)."""
    try:
        text = current.decode("utf-8")
    except UnicodeDecodeError:
        return None
    before_head, after_head = str(entry["before_head"]), str(entry["after_head"])
    block = split_frontmatter(text)
    if (not text.startswith(after_head) or block is None
            or len(after_head) > len(text) - len(block.body)):
        return None
    spliced = before_head + text[len(after_head):]
    values = head_values(entry, text)
    now, then = _frontmatter(text), _frontmatter(spliced)
    if values is None or now is None or then is None:
        return None
    before, after = values
    changed = changed_keys(before, after)
    if not changed <= set(keys):
        return None
    for key in changed | now.keys() | then.keys():
        wanted = before.get(key, _ABSENT) if key in changed else now.get(key, _ABSENT)
        if then.get(key, _ABSENT) != wanted:
            return None
    return spliced.encode("utf-8")


def changed_keys(before: Values, after: Values) -> set[str]:
    """The keys whose values differ between two frontmatters (one holding a key, one not)."""
    return {k for k in before.keys() | after.keys()
            if before.get(k, _ABSENT) != after.get(k, _ABSENT)}


def _frontmatter(text: str) -> Values | None:
    """The frontmatter of `text` ({} when it has none); None when it does not read."""
    note = parse_note(text, "head")
    return None if note.yaml_error is not None else note.frontmatter


def head_values(entry: dict[str, Any], current: str) -> tuple[Values, Values] | None:
    """The frontmatter values a journal entry's heads hold, before and after Ora's edit: every
    value the edit changed is among them (a value that runs on past the heads is cut short on
    both sides alike). A head of a journal from before heads ended at a line end is completed
    from `current`, the note as it is now, where that line still stands. None when they cannot
    be read."""
    before_head, after_head = str(entry["before_head"]), str(entry["after_head"])
    rest = "" if _whole_lines(before_head) and _whole_lines(after_head) else _completion(
        after_head, current)
    if rest is None:
        return None
    values: list[Values] = []
    for head in (before_head + rest, after_head + rest):
        if not opens_frontmatter(head):
            values.append({})  # the note had no frontmatter
            continue
        closed = head if split_frontmatter(head) is not None else f"{head}{FENCE}\n"
        read = _frontmatter(closed)
        if read is None:
            return None
        values.append(read)
    return values[0], values[1]


def _completion(after_head: str, current: str) -> str | None:
    """What completes the last line of `after_head` (it ends inside a line; so does the before
    head, the same way): read from `current`, which begins with it or holds that line once in
    its frontmatter; None when it cannot be told."""
    if current.startswith(after_head):
        return _line_rest(current[len(after_head):])
    partial = after_head[after_head.rfind("\n") + 1:]
    block = split_frontmatter(current)
    if not partial or block is None:
        return None
    rests = {line[len(partial):] for line in block.yaml_text.splitlines(keepends=True)
             if line.startswith(partial)}
    return rests.pop() if len(rests) == 1 else None


def outcome_view(lists: dict[str, list[str]], refused: list[dict[str, str]],
                 private_paths: set[str], journal: str | None, *,
                 private: bool) -> dict[str, Any]:
    """What an apply or an undo did, as answered: each list of paths, the refused ones, the
    journal; without `private`, private notes are only counted (`private_hidden`)."""
    def shown(paths: list[str]) -> list[str]:
        return [p for p in paths if private or p not in private_paths]

    out: dict[str, Any] = {name: shown(paths) for name, paths in lists.items()}
    kept = [r for r in refused if private or r["path"] not in private_paths]
    hidden = (sum(map(len, lists.values())) + len(refused)
              - sum(len(v) for v in out.values()) - len(kept))
    return {**out, "refused": kept, "journal": journal, "private_hidden": hidden}
