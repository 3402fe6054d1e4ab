"""Keeping proposals: engram notes, the source note's record, the triage queue, and undo.

Accepting writes, for each kept proposal, a new `type: engram` note (named for its title, in the
folder the vault settings type as `engram`; `ai-derived` when it came from the assistant's side,
`private` when its turn was), and adds the proposals' ids to the source note's `extracted`
property (a chat note's, or a document's resource note's) by a round-trip edit, compare-and-swap
against the bytes the plan read (Conflict if the note changed since: plan again). A kept
proposal that contradicts an engram puts the pair in the cleaning queue at once, as a scan would
have.

A proposal's title and text are outside text, a model's or a conversation's (an assistant turn, a
document's page): they are written inert (`vault/inert.py`), so a Templater command or a query
in them never runs in the new note ("trigger on new file creation" would run it at once), and
without control characters (a NUL would make Ora take the engram for a binary file and never
index it), whether the model, the turn or the review's edits gave them. The file is named for the
title without the turn's invisible inert marks, a name one can type in a link.

A journal (`VAULT/.ora-journal/extract-*.json`, as adoption's) is written before any note: the
chat note's frontmatter before and after, and each engram's path and hash, saved before its file
is created (so a crash between the two is undone too). The chat note is written last,
so its record never names an engram that is not there. `undo_extraction` moves the
engrams of the latest extraction to the trash (each only while it holds exactly what was
written) and takes the extraction's record back out of the chat note: byte for byte when the
note is as written, its frontmatter alone put back when only what follows it changed (the
conversation went on), else exactly its ids removed from `extracted` with the user's other edits
kept; so its claims are proposed again. What it cannot take back (an engram edited since, a note
gone or whose frontmatter no longer reads) is refused with what to do by hand, and the journal
is marked done as far as it went (`undo_kept`): the next undo goes on to the extraction before
it. Outside private mode an extraction that involves a private note (one it wrote or
edited private then, or private now) is passed over as if it were not there: a non-private undo
takes the latest other one, or answers that there is nothing to undo, and so never changes a
private note nor tells that one exists. A document's resource note keeps its place in the
ingest manifest through both (`documents/manifest.py note_rewritten`), so extracting never makes
ingest see an edit.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Container
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from sidecar.cleaning.store import Pair, Queue, Side, pair_id
from sidecar.cleaning.vocab import get_thresholds
from sidecar.documents.extract import clean_text
from sidecar.documents.manifest import note_rewritten
from sidecar.errors import Conflict, NoteNotWritable, NotFound, OraError
from sidecar.extraction.proposals import Plan, Proposal, extraction_data
from sidecar.vault.edit import edit_frontmatter, plan_edit, write_planned
from sidecar.vault.frontmatter_edit import Mutation, set_value
from sidecar.vault.inert import inert, inert_mark
from sidecar.vault.journal import (
    JOURNAL_VERSION,
    changed_keys,
    create_journal,
    drop_journal,
    head_values,
    journal_folder,
    latest_journal,
    outcome_view,
    restore_head,
    split_heads,
    update_journal,
)
from sidecar.vault.new_notes import create_named, public_names, safe_name, type_folder
from sidecar.vault.note import parse_note, read_note, string_list
from sidecar.vault.scan import read_regular, vault_path
from sidecar.vault.temp_files import sweep_temp_files
from sidecar.vault.trash import move_to_trash
from sidecar.vault.trash_place import trash_of
from sidecar.vault.vault_settings import VaultSettings, load_vault_settings, note_private
from sidecar.vault.write import content_hash

KIND = "extract"


@dataclass
class Accepted:
    written: list[str] = field(default_factory=list)
    queued: int = 0
    journal: str | None = None
    changed: list[str] = field(default_factory=list)  # every file written (for the index)

    def as_json(self) -> dict[str, Any]:
        return {"written": self.written, "queued_contradictions": self.queued,
                "journal": self.journal}


def _spec() -> dict[str, Any]:
    return dict(extraction_data()["engram"])


def engram_text(p: Proposal, day: str) -> str:
    """A kept proposal as a new engram note (string values JSON-quoted: valid YAML)."""
    tags = list(_spec()["tags"])
    if p.ai_derived:
        tags.append(get_thresholds().provenance_tag)
    if p.private:
        tags.append("private")
    nexus = "[]" if not p.nexus else "\n" + "".join(f"  - {json.dumps(n)}\n"
                                                   for n in p.nexus).rstrip("\n")
    lines = ["---", "type: engram", f"nexus: {nexus}", "tags:",
             *(f"  - {t}" for t in tags), f"subtype: {p.subtype}",
             "source_document:", f"  - {json.dumps(p.source_document, ensure_ascii=False)}",
             f"date created: {day}", f"date modified: {day}", "---",
             f"# {p.title}", "", p.text, ""]
    return "\n".join(lines)


def plain_title(p: Proposal) -> str:
    """The title an engram is named for, as a reader would type it: on one line, without a
    control character nor the invisible marks of the turn it came from (a chat note's text is
    inert: a mark after the `#` of `#garden`); `inert` marks its heading again where it must.
    Its id when nothing is left of it."""
    return " ".join(clean_text(p.title).replace(inert_mark(), "").split()) or p.id


def _record(ids: list[str]) -> Mutation:
    """Add `ids` to the chat note's `extracted` list, quoted (an id of digits and one `e`
    would read back as a number)."""
    key = str(_spec()["extracted_property"])
    quoted = [DoubleQuotedScalarString(i) for i in ids]

    def mutate(cm: CommentedMap) -> None:
        current = cm.get(key)
        if isinstance(current, list):
            current.extend(q for q in quoted if q not in current)
        else:
            set_value(cm, key, CommentedSeq(quoted))
    return mutate


def _existing_side(vault: Path, max_bytes: int, path: str, match: Any) -> tuple[Side, bool]:
    """An engram's side of a pair, with its file's hash now, and whether it is AI-derived."""
    data = vault_path(vault, path).read_bytes()
    note = read_note(vault, path, max_bytes)
    return (Side(path, match.line_start, match.line_end, match.text, content_hash(data)),
            note.has_tag(get_thresholds().provenance_tag))


def _pairs(vault: Path, max_bytes: int, p: Proposal, rel: str, new_hash: str,
           text_line: int, day: str) -> list[Pair]:
    pairs = []
    new = Side(rel, text_line, text_line, p.text, new_hash)
    for m in p.contradicts:
        try:
            old, old_ai = _existing_side(vault, max_bytes, m.path, m)
        except (OSError, OraError):
            continue  # gone since the plan: nothing left to triage
        pairs.append(Pair(
            id=pair_id("engram", old, new), kind="engram", a=old, b=new, judge="rules",
            score=m.score, private=m.private or p.private,
            evidence={**m.evidence, "claim_similarity": round(m.similarity, 4),
                      "dates": [None, day], "ai_derived": [old_ai, p.ai_derived],
                      "found_by": "extraction"}))
    return pairs


@dataclass
class _Journal:
    """An extraction's journal file and what it holds, saved again after each change."""

    path: Path
    digest: str
    doc: dict[str, Any]

    def save(self) -> None:
        self.digest = update_journal(self.path, self.doc, self.digest)


class _Journalled(Container[str]):
    """`create_named`'s names taken, for one engram: as it goes on to try a name, that name's
    path is saved as the engram's in the journal first, so a crash between the journal and the
    file still leaves a journal naming every engram written (undo passes over a path whose
    file was never made)."""

    def __init__(self, taken: Container[str], folder: str, entry: dict[str, Any],
                 journal: _Journal) -> None:
        self.taken, self.folder, self.entry, self.journal = taken, folder, entry, journal

    def __contains__(self, stem: object) -> bool:
        if stem in self.taken:
            return True
        self.entry["path"] = f"{self.folder}/{stem}.md" if self.folder else f"{stem}.md"
        self.journal.save()
        return False


def _take_back(vault: Path, written: list[dict[str, Any]], settings: VaultSettings) -> None:
    """Move engrams this accept wrote to the trash (the chat note could not record them)."""
    for entry in written:
        with contextlib.suppress(OraError, OSError):
            move_to_trash(vault, entry["path"], entry["sha256"],
                          trash_of(settings, entry["path"]))


def accept(vault: Path, max_bytes: int, plan: Plan, chosen: list[Proposal],
           queue: Queue | None, *, data: Path | None) -> Accepted:
    """Write `chosen` (proposals of `plan`) as engrams; see the module docstring.

    The chat note is checked first and written last: its `extracted` record never names an
    engram that was not written. If it changed meanwhile (Conflict), the new engrams go to the
    trash and nothing is kept."""
    out = Accepted()
    if not chosen:
        return out
    conv = plan.source
    edit = plan_edit(vault, conv.path, _record([p.id for p in chosen]), expected_hash=conv.hash)
    head_before, head_after = split_heads(edit.before.decode("utf-8"),
                                          edit.after.decode("utf-8"))
    doc: dict[str, Any] = {
        "version": JOURNAL_VERSION, "kind": KIND, "vault": str(vault.resolve()),
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "chat": {"path": conv.path, "private": conv.private, "before_sha256": edit.before_hash,
                 "after_sha256": edit.after_hash, "before_head": head_before,
                 "after_head": head_after},
        "engrams": []}
    # before any note, so a crash mid-way can still be undone
    journal = _Journal(*create_journal(vault, KIND, doc), doc)
    settings = load_vault_settings(vault, data)
    folder = type_folder(settings, "engram", str(_spec()["default_folder"]))
    for written_to in (vault_path(vault, folder) if folder else vault, journal_folder(vault)):
        sweep_temp_files(written_to)  # what an accept killed mid-write left (vault/temp_files.py)
    taken = public_names(vault, max_bytes, data=data)
    day = dt.datetime.now(dt.UTC).date().isoformat()
    pairs: list[Pair] = []
    try:
        for chosen_p in chosen:
            title = plain_title(chosen_p)
            p = replace(chosen_p, title=inert(title), text=inert(clean_text(chosen_p.text)))
            text = engram_text(p, day)
            name = safe_name(title, fallback=p.id)
            entry = {"path": "", "sha256": content_hash(text.encode("utf-8")),
                     "private": p.private}
            doc["engrams"].append(entry)
            rel, new_hash = create_named(vault, folder, name, text,
                                         _Journalled(taken, folder, entry, journal))
            taken.add(rel)
            out.written.append(rel)
            pairs += _pairs(vault, max_bytes, p, rel, new_hash,
                            text.splitlines().index(p.text) + 1, day)
        write_planned([edit])
    except (OraError, OSError):
        _take_back(vault, doc["engrams"], settings)
        journal.path.unlink(missing_ok=True)
        raise
    # kept: failing, ingest would only see the note as edited by hand and leave it be
    with contextlib.suppress(OraError, OSError):
        note_rewritten(vault, conv.path, edit.before_hash, edit.after_hash)
    out.changed = [*out.written, conv.path]
    if pairs and queue is not None:
        out.queued = queue.offer(pairs)
    out.journal = journal.path.relative_to(vault).as_posix()
    return out


@dataclass
class Undone:
    removed: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    refused: list[dict[str, str]] = field(default_factory=list)
    journal: str | None = None
    private: set[str] = field(default_factory=set)

    def as_json(self, *, private: bool) -> dict[str, Any]:
        """What was undone; without `private`, private notes are only counted."""
        return outcome_view({"removed": self.removed, "restored": self.restored},
                            self.refused, self.private, self.journal, private=private)

    @property
    def changed(self) -> list[str]:
        return self.removed + self.restored


UNDO_KEPT = "undo_kept"  # an undo done as far as the notes allowed: not replayed


def _undo_chat(vault: Path, entry: dict[str, Any], out: Undone) -> bool:
    """Take the extraction's record back out of the chat note (see the module docstring);
    whether that is settled: False only when the note changed while being written or is
    read-only (the next undo tries again). What cannot be taken back is refused, saying what to
    do by hand."""
    rel = str(entry["path"])
    why: str | None = None
    try:
        state: str = restore_head(vault, entry, keep_edits=[_key()])
        if state == "edited":
            state, why = _take_ids_out(vault, entry)
    except (Conflict, NoteNotWritable) as err:
        out.refused.append({"path": rel, "reason": f"{err.message}; then undo again"})
        return False
    if state == "gone":
        why = (f"the note is gone (if it was moved, remove {_ids_text(entry, '')} from its "
               f"`{_key()}` property by hand for those claims to be proposed again)")
    if why is not None:
        out.refused.append({"path": rel, "reason": why})
    elif state in ("restored", "merged"):
        out.restored.append(rel)
    if state == "restored":  # byte for byte as before: so is ingest's record of it
        note_rewritten(vault, rel, str(entry["after_sha256"]), str(entry["before_sha256"]))
    return True


def _key() -> str:
    return str(_spec()["extracted_property"])


def _added_ids(entry: dict[str, Any], text: str) -> tuple[list[str], bool] | None:
    """The ids the extraction added to the note's `extracted` (read from its journal entry), and
    whether the note held no `extracted` before; None when the entry cannot tell."""
    values = head_values(entry, text)
    if values is None or changed_keys(*values) - {_key()}:  # not the record alone: misread
        return None
    before, after = (list(string_list(v.get(_key()))) for v in values)
    return [i for i in after if i not in before], _key() not in values[0]


def _ids_text(entry: dict[str, Any], text: str) -> str:
    added = _added_ids(entry, text)
    return ", ".join(added[0]) if added and added[0] else "this extraction's ids (see its journal)"


def _take_ids_out(vault: Path, entry: dict[str, Any]) -> tuple[str, str | None]:
    """A chat note whose frontmatter was edited since the extraction: exactly the ids it added
    removed from `extracted` (and the property, when it added it and nothing else is left), by
    a round-trip edit compare-and-swap against the bytes read, every other edit kept. (`merged`,
    `unchanged` when none is left, `gone`, or `edited` with why it was refused.)"""
    rel, key = str(entry["path"]), _key()
    try:
        data = vault_path(vault, rel).read_bytes()
    except FileNotFoundError:
        return "gone", None
    text = data.decode("utf-8", "replace")
    added = _added_ids(entry, text)
    by_hand = (f"remove {_ids_text(entry, text)} from its `{key}` property by hand for those "
               "claims to be proposed again")
    if added is None:
        return "edited", f"edited so that Ora cannot tell its record; {by_hand}"
    ours, new_key = added

    def mutate(cm: CommentedMap) -> None:
        held = cm.get(key)
        if isinstance(held, list):
            for item in [v for v in held if str(v) in ours]:
                held.remove(item)
            if new_key and not held:
                del cm[key]
        elif isinstance(held, str) and held in ours and new_key:
            del cm[key]

    try:
        new_hash = edit_frontmatter(vault, rel, mutate, expected_hash=content_hash(data))
    except (Conflict, NoteNotWritable):
        raise  # for the next undo to try again
    except NotFound:
        return "gone", None
    except OraError as err:
        return "edited", f"{err.message}; {by_hand}"
    return ("unchanged" if new_hash == content_hash(data) else "merged"), None


def _involves_private(vault: Path, doc: dict[str, Any], data_folder: Path | None) -> bool:
    """Whether an extraction wrote or edited a note that was private then (its journal says so;
    an old journal that does not is taken as private) or is private now (tagged, or its folder
    made private, since)."""
    entries = [doc["chat"], *doc["engrams"]]
    if any(entry.get("private", True) for entry in entries):
        return True
    settings = load_vault_settings(vault, data_folder)
    for entry in entries:
        rel = str(entry["path"])
        try:
            data = read_regular(vault_path(vault, rel))
        except FileNotFoundError:
            continue  # gone: it holds nothing to hide
        except (OSError, ValueError):
            return True  # cannot be read: cannot be told public
        if note_private(parse_note(data.decode("utf-8", "replace"), rel), settings):
            return True
    return False


def _latest(vault: Path, private: bool, data: Path | None) -> tuple[Path, dict[str, Any], str]:
    """The newest readable extraction journal the request may undo, passing over one undone as
    far as it could be (`undo_kept`) and, outside private mode, private ones; NotFound, word
    for word the answer when there is none at all."""
    return latest_journal(vault, KIND, "extraction", lambda doc: UNDO_KEPT not in doc and (
        private or not _involves_private(vault, doc, data)))


def undo_extraction(vault: Path, queue: Queue | None, *, private: bool,
                    data: Path | None) -> Undone:
    """Undo the latest extraction (see the module docstring); NotFound when there is none.
    Outside private mode (`private` false) an extraction involving a private note is passed
    over, as if it were not there."""
    journal, doc, digest = _latest(vault, private, data)
    out = Undone(journal=journal.relative_to(vault).as_posix())
    settings = load_vault_settings(vault, data)  # a private folder's engram is trashed inside it
    pending = []
    for entry in doc["engrams"]:
        rel = str(entry["path"])
        if entry.get("private", True):
            out.private.add(rel)
        path = vault_path(vault, rel)
        if not path.exists():
            continue  # already gone: nothing to remove
        try:
            move_to_trash(vault, rel, str(entry["sha256"]), trash_of(settings, rel))
        except Conflict:
            out.refused.append({"path": rel, "reason": "edited since it was extracted; delete "
                                "it by hand if you no longer want it"})
            pending.append(entry)
            continue
        except OraError as err:
            out.refused.append({"path": rel, "reason": err.message})
            pending.append(entry)
            continue
        out.removed.append(rel)
    chat = doc["chat"]
    if chat.get("private", True):
        out.private.add(str(chat["path"]))
    chat_done = _undo_chat(vault, chat, out)
    if queue is not None and out.removed:
        queue.clear_open(out.removed)
    doc["engrams"] = pending
    if not chat_done:  # changed while being written, or read-only: the next undo tries again
        update_journal(journal, doc, digest)
    elif out.refused:  # kept for the record, done as far as it goes: never replayed
        doc[UNDO_KEPT] = {"date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                          "refused": out.refused}
        update_journal(journal, doc, digest)
    else:
        drop_journal(journal)
    return out
