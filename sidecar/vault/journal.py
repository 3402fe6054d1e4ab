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

A note's entry keeps the part of its text that an edit changed (`split_heads`: the frontmatter;
what follows is the same on both sides) with the hashes before and after, so it stays small and
readable, and `restore_head` puts it back only while the note holds exactly what Ora wrote.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

from sidecar.errors import Conflict, NoteNotWritable, NotFound
from sidecar.schema import load_json
from sidecar.vault.scan import read_regular, vault_path
from sidecar.vault.write import atomic_write, content_hash, create_file

JOURNAL_VERSION = 1
Restored = Literal["restored", "unchanged", "gone", "edited"]


def journal_folder(vault: str | Path) -> Path:
    """Where a vault's undo journals are kept."""
    return Path(vault) / str(load_json("adopt.json")["journal_folder"])


def journal_bytes(doc: dict[str, Any]) -> bytes:
    return (json.dumps(doc, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def split_heads(before: str, after: str) -> tuple[str, str]:
    """The heads of `before` and `after` that differ (what follows them is the same)."""
    common = 0
    limit = min(len(before), len(after))
    while common < limit and before[-1 - common] == after[-1 - common]:
        common += 1
    return before[: len(before) - common], after[: len(after) - common]


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


def restore_head(vault: str | Path, entry: dict[str, Any]) -> Restored:
    """Put back the note of a journal `entry` (`path`, `before_head`, `after_head`,
    `before_sha256`, `after_sha256`): `restored`, `unchanged` (already as before), `gone`, or
    `edited` (it holds something else than Ora wrote: left alone). Conflict when it changes
    while being written."""
    path = vault_path(vault, str(entry["path"]))
    try:
        current = path.read_bytes()
    except FileNotFoundError:
        return "gone"
    digest = content_hash(current)
    if digest == entry["before_sha256"]:
        return "unchanged"
    restored = (entry["before_head"] + current.decode("utf-8", "replace")[
        len(entry["after_head"]):]).encode("utf-8")
    if digest != entry["after_sha256"] or content_hash(restored) != entry["before_sha256"]:
        return "edited"
    atomic_write(path, restored, digest)
    return "restored"


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
