"""Apply an adoption plan with a journal, and undo it byte for byte.

The journal is one `adopt` journal per `apply` (`vault/journal.py`: `VAULT/.ora-journal/`,
numbered so the latest is always found). Each entry keeps the note's path, the hashes of its
bytes before and after, and the part of the text that differs (the frontmatter; the body is the
same on both sides), so it stays small and readable.

It is written before any note is, so even an apply that dies half-way can be undone: undo
restores a note only while it still holds exactly the bytes adopt wrote (compare-and-swap on the
journal's `after` hash), counts a note already back at `before` as restored, and refuses any
note edited since, or that the filesystem will not let it restore (it stays in the journal, and
`--undo` can be run again after a look). No journal, no write: when the journal cannot be
written every note is refused untouched. When it cannot be rewritten afterwards (a full disk),
the journal written first stays: it is still a valid undo, as undo goes by the notes' hashes.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sidecar.errors import Conflict, NoteNotWritable, OraError
from sidecar.lint.adopt import Proposal
from sidecar.vault.edit import edit_frontmatter
from sidecar.vault.frontmatter_edit import rewrite_frontmatter
from sidecar.vault.journal import (
    JOURNAL_VERSION,
    create_journal,
    drop_journal,
    journal_folder,
    latest_journal,
    outcome_view,
    restore_head,
    split_heads,
    update_journal,
)
from sidecar.vault.scan import vault_path
from sidecar.vault.write import content_hash

KIND = "adopt"
log = logging.getLogger(__name__)


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
        return outcome_view({done_name: self.done, "unchanged": self.unchanged}, self.refused,
                            self.private, self.journal, private=private)


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
    head_before, head_after = split_heads(before, after)
    return {"path": p.path, "private": p.private, "before_sha256": p.hash,
            "after_sha256": p.after_hash, "before_head": head_before, "after_head": head_after,
            "applied": False}


def _cannot(rel: str, doing: str, exc: OSError) -> str:
    """Why a note the filesystem refused was left as it is, in the words of its error."""
    return f"{rel} cannot be {doing} ({exc.strerror or exc}); it was left as it is"


def _holds(vault: str | Path, rel: str, digest: str) -> bool:
    """Whether the note holds the bytes of `digest` (a write that failed after its swap)."""
    try:
        return content_hash(vault_path(vault, rel).read_bytes()) == digest
    except (OSError, OraError):
        return False


def apply_adoption(vault: str | Path, proposals: Iterable[Proposal]) -> Outcome:
    """Write each proposal through edit.py, only onto the exact bytes it was planned from; a
    note changed since the plan, or one the filesystem refuses (read-only, a folder now, a
    name too long), is refused with the reason and left untouched, and the others are written.
    Journals what it writes: its undo covers exactly the notes written; a journal that cannot
    be written refuses every note, untouched."""
    out = Outcome()
    todo: list[tuple[Proposal, dict[str, Any]]] = []
    for p in proposals:
        if p.private:
            out.private.add(p.path)
        try:
            todo.append((p, _entry(vault, p)))
        except OraError as err:
            out.refuse(p.path, err.message)
        except OSError as exc:  # unreadable (a folder now, no permission): this note only
            out.refuse(p.path, _cannot(p.path, "read", exc))
    if not todo:
        return out
    doc = {"version": JOURNAL_VERSION, "kind": KIND, "vault": str(Path(vault).resolve()),
           "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
           "files": [entry for _, entry in todo]}
    try:  # before any note, so a crash mid-way can still be undone
        journal, digest = create_journal(vault, KIND, doc)
    except NoteNotWritable as err:  # no journal, no write: every note is refused, untouched
        for p, _ in todo:
            out.refuse(p.path, err.message)
        return out
    except OSError as exc:  # a full disk, say: no undo possible, so nothing is written
        for p, _ in todo:
            out.refuse(p.path, _no_journal(vault, p.path, exc))
        return out
    for p, entry in todo:
        try:
            edit_frontmatter(vault, p.path, p.mutation(), expected_hash=p.hash)
        except OraError as err:  # changed, unwritable, invalid: this note only
            out.refuse(p.path, err.message)
            continue
        except OSError as exc:  # the filesystem's refusal (EACCES, EISDIR, ENAMETOOLONG, …)
            if not _holds(vault, p.path, p.after_hash):  # failed after its swap: it is written
                out.refuse(p.path, _cannot(p.path, "written", exc))
                continue
        entry["applied"] = True
        out.done.append(p.path)
    doc["files"] = [entry for _, entry in todo if entry["applied"]]
    if doc["files"]:
        out.journal = journal.relative_to(Path(vault)).as_posix()
        _rewrite(journal, doc, digest)
    else:  # nothing written: no journal, and no journal folder it alone made
        _drop(journal)
    return out


def _no_journal(vault: str | Path, rel: str, exc: OSError) -> str:
    """Why a note was refused when its journal could not be written, in the system's words."""
    return (f"{rel} was left as it is: Ora cannot write its undo journal in the vault's "
            f"{journal_folder(vault).name}/ folder ({exc.strerror or exc}), and writes no note "
            "it could not undo")


def _rewrite(journal: Path, doc: dict[str, Any], digest: str) -> None:
    """Write `doc` over the journal; when it cannot be (a full disk), the journal as it was
    stays: the notes are written already, and it still undoes them (undo goes by hashes)."""
    try:
        update_journal(journal, doc, digest)
    except (OSError, OraError) as exc:
        log.warning("%s could not be rewritten (%s); it is kept as it was, still a valid undo",
                    journal.name, exc)


def _drop(journal: Path) -> None:
    """Remove a journal with nothing to undo, and its folder once empty; one that cannot be
    removed stays (its notes are back, so its undo finds them unchanged)."""
    try:
        drop_journal(journal)
    except OSError as exc:
        log.warning("%s could not be removed (%s)", journal.name, exc)


def _restore(vault: str | Path, entry: dict[str, Any], out: Outcome) -> bool:
    """Put back one note of the journal, recording it in `out`; whether it stays pending in
    the journal (refused: edited since, gone, or refused by the filesystem)."""
    rel = str(entry["path"])
    try:
        state = restore_head(vault, entry)
    except OraError as err:  # changed while being written, read-only: this note only
        out.refuse(rel, err.message)
        return True
    except OSError as exc:  # the filesystem's refusal (EISDIR, ENOSPC, EACCES, …)
        if not _holds(vault, rel, str(entry["before_sha256"])):  # else failed after its swap
            out.refuse(rel, _cannot(rel, "restored", exc))
            return True
        state = "restored"
    if state == "gone":
        out.refuse(rel, "the note is gone")
    elif state == "edited":
        out.refuse(rel, "edited since it was adopted; undo it by hand (the journal keeps "
                   "its old frontmatter)")
    elif state == "unchanged":
        out.unchanged.append(rel)
    else:
        out.done.append(rel)
    return state in ("gone", "edited")


def undo_adoption(vault: str | Path) -> Outcome:
    """Restore every note of the latest adoption that still holds exactly what adopt wrote;
    refuse (and keep in the journal) any note edited since or that the filesystem will not let
    it restore, and restore the others."""
    journal, doc, journal_hash = latest_journal(vault, KIND, "adoption")
    out = Outcome(journal=journal.relative_to(Path(vault)).as_posix())
    pending = []
    for entry in doc["files"]:
        if entry.get("private", True):  # an entry that does not say counts as private
            out.private.add(str(entry["path"]))
        if _restore(vault, entry, out):
            pending.append(entry)
    if pending:
        doc["files"] = pending
        _rewrite(journal, doc, journal_hash)  # kept whole if not: restored notes are unchanged
    else:  # all back as it was: so is the vault, journal folder included
        _drop(journal)
    return out
