"""Apply an adoption plan with a journal, and undo it byte for byte.

The journal is one JSON file per `apply` in `VAULT/.ora-journal/` (the folder is data:
`journal_folder` in `schema/adopt.json`), `adopt-<sequence>-<UTC time>.json`: the sequence, one
more than the newest journal's, orders them even within one second. It lives in the vault, not
in the index folder `VAULT/.ora/`, because deleting the index must never lose the way back;
being a dot-folder, it is neither a note to Obsidian nor to Ora. Each entry keeps the note's
path, the hashes of its bytes before and after, and the part of the text that differs (the
frontmatter; the body is the same on both sides), so it stays small and readable.

It is written before any note is, so even an apply that dies half-way can be undone: undo
restores a note only while it still holds exactly the bytes adopt wrote (compare-and-swap on the
journal's `after` hash), counts a note already back at `before` as restored, and refuses any
note edited since (it stays in the journal, and `--undo` can be run again after a look).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sidecar.errors import Conflict, NoteNotWritable, NotFound, OraError
from sidecar.lint.adopt import Proposal
from sidecar.schema import load_json
from sidecar.vault.edit import edit_frontmatter
from sidecar.vault.frontmatter_edit import rewrite_frontmatter
from sidecar.vault.scan import read_regular, vault_path
from sidecar.vault.write import atomic_write, content_hash, create_file

JOURNAL_VERSION = 1
_NAME = re.compile(r"adopt-(?:(?P<seq>\d+)-)?(?P<stamp>\d{8}T\d{6}Z)(?:-(?P<n>\d+))?\.json")


def journal_folder(vault: str | Path) -> Path:
    """Where a vault's adoption journals are kept."""
    return Path(vault) / str(load_json("adopt.json")["journal_folder"])


@dataclass
class Outcome:
    """What an apply or an undo did: notes written, notes left alone and why, the journal."""

    done: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    refused: list[dict[str, str]] = field(default_factory=list)
    journal: str | None = None
    private: set[str] = field(default_factory=set)  # the private notes among them

    def refuse(self, path: str, reason: str) -> None:
        self.refused.append({"path": path, "reason": reason})

    def to_json(self, done_name: str, *, private: bool = True) -> dict[str, Any]:
        """What was done; without `private`, private notes are only counted."""
        def shown(paths: list[str]) -> list[str]:
            return [p for p in paths if private or p not in self.private]

        refused = [r for r in self.refused if private or r["path"] not in self.private]
        hidden = len(self.done) + len(self.unchanged) + len(self.refused)
        hidden -= len(shown(self.done)) + len(shown(self.unchanged)) + len(refused)
        return {done_name: shown(self.done), "unchanged": shown(self.unchanged),
                "refused": refused, "journal": self.journal, "private_hidden": hidden}


def _split(before: str, after: str) -> tuple[str, str]:
    """The heads of `before` and `after` that differ (what follows them is the same)."""
    common = 0
    limit = min(len(before), len(after))
    while common < limit and before[-1 - common] == after[-1 - common]:
        common += 1
    return before[: len(before) - common], after[: len(after) - common]


def _journal_bytes(doc: dict[str, Any]) -> bytes:
    return (json.dumps(doc, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def _order(path: Path) -> tuple[int, str, int]:
    """Where a journal comes in the order of applies: its sequence number, then (for names from
    before there was one, `adopt-<time>[-n].json`) its time and its number within that second."""
    found = _NAME.fullmatch(path.name)
    if found is None:
        return (-1, path.name, 0)
    return (int(found["seq"] or 0), found["stamp"], int(found["n"] or 1))


def _journals(folder: Path) -> list[Path]:
    """The adoption journals in `folder`, newest last."""
    return sorted(folder.glob("adopt-*.json") if folder.is_dir() else [], key=_order)


def _create_journal(vault: str | Path, doc: dict[str, Any]) -> tuple[Path, str]:
    """A new journal holding `doc`, named after the newest one's sequence number plus one (so
    `--undo` finds the latest apply even within one second or after the clock went back),
    written through the compare-and-swap writer: whole or not at all, never over another
    apply's; (its path, its hash)."""
    folder = journal_folder(vault)
    if folder.is_symlink():  # the journal holds notes' old frontmatter: never outside the vault
        raise NoteNotWritable(f"{folder.name} is a symbolic link; Ora will not write its "
                              "journal through it (nothing was adopted)")
    existed = folder.is_dir()
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    last = _journals(folder)
    seq = max(_order(last[-1])[0], 0) + 1 if last else 1
    try:
        for n in range(seq, seq + 100):
            path = folder / f"adopt-{n:06d}-{stamp}.json"
            try:
                return path, create_file(path, _journal_bytes(doc))
            except Conflict:  # another apply took this number meanwhile
                continue
        raise Conflict(f"no free journal name in {folder.name}/; nothing was adopted")
    except BaseException:
        if not existed:  # a failed first journal (a full disk) leaves no empty folder either
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


def _entry(vault: str | Path, p: Proposal) -> dict[str, Any]:
    """The journal entry of one proposal, checked against the file now; Conflict if the file
    is not the one planned from."""
    path = vault_path(vault, p.path)
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise Conflict(f"{p.path} was removed since the plan") from exc
    if content_hash(data) != p.hash:
        raise Conflict(f"{p.path} changed since the plan; plan again")
    before = data.decode("utf-8")
    after = rewrite_frontmatter(before, p.mutation())
    if content_hash(after.encode("utf-8")) != p.after_hash:
        raise Conflict(f"{p.path}: the plan no longer gives the same frontmatter; plan again")
    head_before, head_after = _split(before, after)
    return {"path": p.path, "private": p.private, "before_sha256": p.hash,
            "after_sha256": p.after_hash, "before_head": head_before, "after_head": head_after,
            "applied": False}


def apply_adoption(vault: str | Path, proposals: Iterable[Proposal]) -> Outcome:
    """Write each proposal through edit.py, only onto the exact bytes it was planned from; a
    note changed since the plan is refused and left untouched. Journals what it writes."""
    out = Outcome()
    todo: list[tuple[Proposal, dict[str, Any]]] = []
    for p in proposals:
        if p.private:
            out.private.add(p.path)
        try:
            todo.append((p, _entry(vault, p)))
        except OraError as err:
            out.refuse(p.path, err.message)
    if not todo:
        return out
    doc = {"version": JOURNAL_VERSION, "kind": "adopt", "vault": str(Path(vault).resolve()),
           "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
           "files": [entry for _, entry in todo]}
    try:  # before any note, so a crash mid-way can still be undone
        journal, digest = _create_journal(vault, doc)
    except NoteNotWritable as err:  # no journal, no write: every note is refused, untouched
        for p, _ in todo:
            out.refuse(p.path, err.message)
        return out
    for p, entry in todo:
        try:
            edit_frontmatter(vault, p.path, p.mutation(), expected_hash=p.hash)
        except OraError as err:  # changed, unwritable, invalid: this note only
            out.refuse(p.path, err.message)
            continue
        entry["applied"] = True
        out.done.append(p.path)
    doc["files"] = [entry for _, entry in todo if entry["applied"]]
    if doc["files"]:
        atomic_write(journal, _journal_bytes(doc), digest)
        out.journal = journal.relative_to(Path(vault)).as_posix()
    else:
        journal.unlink()
    return out


def _latest_journal(vault: str | Path) -> tuple[Path, dict[str, Any], str]:
    """The newest readable adoption journal: its path, what it holds and its hash."""
    folder = journal_folder(vault)
    for path in reversed(_journals(folder)):
        try:
            data = read_regular(path)
            doc = json.loads(data.decode("utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and doc.get("kind") == "adopt":
            return path, doc, content_hash(data)
    raise NotFound(f"no adoption to undo in {folder.name}/")


def undo_adoption(vault: str | Path) -> Outcome:
    """Restore every note of the latest adoption that still holds exactly what adopt wrote;
    refuse (and keep in the journal) any note edited since."""
    journal, doc, journal_hash = _latest_journal(vault)
    out = Outcome(journal=journal.relative_to(Path(vault)).as_posix())
    pending = []
    for entry in doc["files"]:
        rel = str(entry["path"])
        if entry.get("private", True):  # an entry that does not say counts as private
            out.private.add(rel)
        path = vault_path(vault, rel)
        try:
            current = path.read_bytes()
        except FileNotFoundError:
            out.refuse(rel, "the note is gone")
            pending.append(entry)
            continue
        restored = (entry["before_head"] + current.decode("utf-8", "replace")[
            len(entry["after_head"]):]).encode("utf-8")
        digest = content_hash(current)
        if digest == entry["before_sha256"]:
            out.unchanged.append(rel)
        elif digest != entry["after_sha256"] or content_hash(restored) != entry["before_sha256"]:
            out.refuse(rel, "edited since it was adopted; undo it by hand (the journal keeps "
                       "its old frontmatter)")
            pending.append(entry)
        else:
            try:
                atomic_write(path, restored, digest)
            except Conflict as err:
                out.refuse(rel, err.message)
                pending.append(entry)
                continue
            out.done.append(rel)
    if pending:
        doc["files"] = pending
        atomic_write(journal, _journal_bytes(doc), journal_hash)
    else:  # all back as it was: so is the vault, journal folder included
        journal.unlink()
        if not any(journal.parent.iterdir()):
            journal.parent.rmdir()
    return out
