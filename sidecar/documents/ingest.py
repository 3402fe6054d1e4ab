"""`ora ingest`: a document as `type: resource` notes, one per page with text, on request.

The notes go to a folder named after the document under the folder the vault's settings type
as `resource` (`Resources/` by default): `Resources/Tidal pumping/Tidal pumping - page 03.md`.
Each carries every `source_*` property (`source_file`, `source_format`, `source_path`,
`processed_date`, `chunk_index`, `total_chunks`, `source_document` linking the page it
cites, `[[Tidal pumping.pdf#page=3]]`); the document itself stays where it is.

Once written, the notes replace the document in the index: `.ora-journal/ingested.json`
records the document's hash, and the index keeps a document whose notes match it without
chunks of its own (`manifest.py`), so the same text is not found twice. Running it again on an
unchanged document writes nothing; on a changed one it rewrites the notes in place, each only
while it still holds what ingest wrote (compare-and-swap: a note edited since is refused), and
moves the pages that are gone to the trash. Every apply is journalled first
(`vault/journal.py`, kind `ingest`), so `--undo` puts the vault back as it was. A page's text
and the document's title are outside text, written inert (`vault/inert.py`): a Templater
command or a query in a document never runs in its notes.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from sidecar.documents.extract import DocumentError
from sidecar.documents.formats import document_format, formats, page_link
from sidecar.documents.manifest import file_hash, moved_entry, read_manifest, write_manifest
from sidecar.documents.worker import extract_in_worker
from sidecar.errors import BadRequest, Conflict, NoteNotWritable, NotFound, OraError
from sidecar.vault.inert import inert
from sidecar.vault.journal import (
    JOURNAL_VERSION,
    create_journal,
    drop_journal,
    journal_lock,
    latest_journal,
    update_journal,
)
from sidecar.vault.new_notes import safe_name
from sidecar.vault.scan import normalise_rel, vault_path
from sidecar.vault.vault_settings import (
    folder_for_type,
    is_private_path,
    known_privacy,
    load_vault_settings,
)
from sidecar.vault.write import (
    atomic_write,
    content_hash,
    create_note,
    move_to_trash,
    restore_bytes,
    restore_from_trash,
)

KIND = "ingest"

RESOURCE = "resource"
# The notes of a document that is private by where it lies (`ora.yaml` `private`) lie elsewhere
# (the resource folder), so they carry the tag that keeps them private.
PRIVATE_TAG = "private"
# The page number of a note's name, as `note_suffix` writes it: its digits tell the width.
_PAGE_DIGITS = re.compile(r"(\d+)\.md$")
# What a wikilink's target cannot hold: `#` and `^` start a heading or block, `|` the shown text.
_WIKILINK_UNSAFE = re.compile(r"[#^\[\]|]")
_CREATED = re.compile(r"^date created: (\d{4}-\d{2}-\d{2})$", re.M)


@dataclass(frozen=True)
class PlannedNote:
    path: str
    page: int | None
    text: str

    @property
    def sha256(self) -> str:
        return content_hash(self.text.encode("utf-8"))


@dataclass
class IngestPlan:
    """What `ora ingest` would write for one document."""

    document: str
    sha256: str
    notes: list[PlannedNote]
    unchanged: bool
    stale: list[str] = field(default_factory=list)  # notes of an earlier ingest now gone
    # Notes an apply refuses: edited since ingest wrote them, or notes of the user's own.
    conflicts: list[str] = field(default_factory=list)
    cut: str | None = None  # why part of the document was not read (a page or size limit)
    width: int = 1  # digits of a page number in the notes' names
    moved_from: str | None = None  # the path the document's notes were made from, if moved

    def to_json(self) -> dict[str, Any]:
        return {"document": self.document,
                "notes": [{"path": n.path, "page_start": n.page, "page_end": n.page}
                          for n in self.notes],
                "unchanged": self.unchanged, "stale": self.stale, "conflicts": self.conflicts,
                "cut": self.cut}


def _folder(vault: Path, rel: str, entry: dict[str, Any], manifest: dict[str, Any]) -> str:
    """The notes' folder: the one an earlier ingest of the document wrote to, else one named
    after it under the resource folder that no other document's notes hold (`x.pdf` and
    `Other/x.pdf`, or `x.pdf` and `x.html`, get `x` and `x 2`)."""
    earlier = sorted(entry.get("notes") or {})
    if earlier:
        return PurePosixPath(earlier[0]).parent.as_posix()
    base = folder_for_type(load_vault_settings(vault), RESOURCE) or "Resources"
    # room for the page suffix a note's name adds to the folder's name
    suffix = formats().note_suffix.format(page=0, width=len(str(formats().limits.max_pages)))
    name = safe_name(PurePosixPath(rel).stem, fallback="document", reserve=len(suffix))
    taken = {PurePosixPath(note).parent.as_posix() for doc, other in manifest.items()
             if doc != rel and isinstance(other, dict) for note in other.get("notes") or {}}
    return next(folder for n in range(1, 1000)
                if (folder := f"{base}/{name}" + (f" {n}" if n > 1 else "")) not in taken)


def _width(entry: dict[str, Any], pages: int) -> int:
    """Digits of a page number in the notes' names: an earlier ingest's, so that a document
    grown from 9 pages to 10 keeps its notes' names (and the links to them); else as many as
    the last page has."""
    if isinstance(entry.get("width"), int):
        return int(entry["width"])
    digits = [len(m[1]) for note in entry.get("notes") or {} if (m := _PAGE_DIGITS.search(note))]
    return min(digits) if digits else len(str(pages))


def is_private_document(vault: Path, rel: str) -> bool:
    """Whether a document is private: `ora.yaml`'s `private` covers where it lies."""
    return is_private_path(known_privacy(load_vault_settings(vault)), rel)


def source_line(link: str) -> str:
    """The line a note ends with, linking the page it was made from (`[[paper.pdf#page=3]]`):
    a pointer, not the document's text (extraction leaves it out)."""
    return f"Source: {link}"


def _quoted(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML string


def document_link(rel: str, page: int | None) -> str:
    """A link that opens the document at the page: a wikilink, or where the document's name
    holds a character a wikilink cannot (`Invoice #12 [draft].pdf`: `#` starts a heading) a
    Markdown link, its path URL-encoded as Obsidian reads it."""
    if not _WIKILINK_UNSAFE.search(rel):
        return f"[[{page_link(rel, page)}]]"
    shown = re.sub(r"[\[\]\n]", "", PurePosixPath(rel).name)  # brackets would end the text
    return f"[{shown}{'' if page is None else f', page {page}'}]({page_link(quote(rel), page)})"


def is_source_line(text: str, rel: str) -> bool:
    """Whether `text` is the line a note of the document at `rel` ends with (`source_line`)."""
    page = r"(?:#page=\d+)?"
    link = (rf"\[\[{re.escape(rel)}{page}\]\]|\[[^\]\n]*\]\({re.escape(quote(rel))}{page}\)")
    return re.fullmatch(rf"Source: (?:{link})", text.strip()) is not None


def _note_text(rel: str, fmt: str, title: str, page: int | None, text: str, index: int,
               total: int, day: str, private: bool, created: str | None = None) -> str:
    link = document_link(rel, page)
    # The property holds wikilinks only (the schema); a Markdown link stays in the body.
    source_document = ["source_document:", f"  - {_quoted(link)}"] if link.startswith(
        "[[") else ["source_document: []"]
    lines = [
        "---", f"type: {RESOURCE}", "nexus: []", f"tags: [{PRIVATE_TAG if private else ''}]",
        f"date created: {created or day}",
        f"date modified: {day}", f"source_file: {_quoted(PurePosixPath(rel).name)}",
        f"source_format: {fmt}", f"source_path: {_quoted(rel)}", f"processed_date: {day}",
        f"chunk_index: {index}", f"total_chunks: {total}", *source_document, "---",
        inert(f"# {' '.join(title.split())}" + ("" if page is None else f", page {page}")),
        "", inert(text.strip()), "", source_line(link), "",
    ]  # fmt: skip
    return "\n".join(lines)


def plan_ingest(vault: str | Path, rel: str, today: dt.date | None = None) -> IngestPlan:
    """The notes `rel` (a document of the vault) becomes; BadRequest when it is not a
    document or cannot be read (the reason `ora index` gives too)."""
    root = Path(vault)
    rel = normalise_rel(rel)
    fmt = document_format(rel)
    if fmt is None:
        known = ", ".join(sorted(formats().by_suffix))
        raise BadRequest(f"{rel} is not a document Ora reads ({known})")
    try:
        path = vault_path(root, rel)
        found = path.is_file()
    except (OSError, ValueError):  # a name no file system holds (too long, a NUL)
        found = False
    if not found:
        raise NotFound(f"{rel} is not in the vault")
    digest = file_hash(path)
    manifest = read_manifest(root)
    entry = manifest.get(rel) or {}
    moved = None if entry else moved_entry(root, rel, digest)
    if moved is not None:  # its notes follow it: same folder and names, the new path written
        entry = moved[1]
    try:
        text = extract_in_worker(path, fmt)
    except DocumentError as exc:
        raise BadRequest(f"{rel} cannot be processed: {exc}") from None
    title = text.meta.get("title") or PurePosixPath(rel).stem
    pages = [(n if text.paged else None, t) for n, t in enumerate(text.pages, 1) if t.strip()]
    width = _width(entry, len(text.pages))
    folder = _folder(root, rel, entry, manifest)
    stem = PurePosixPath(folder).name
    private = is_private_document(root, rel)
    suffix = formats().note_suffix
    day = (today or dt.date.today()).isoformat()
    kept = dict(entry.get("notes") or {})
    notes = []
    for index, (page, body) in enumerate(pages):
        name = stem + (suffix.format(page=page, width=width) if page is not None else "")
        note_rel = f"{folder}/{name}.md"
        planned = PlannedNote(note_rel, page, _note_text(
            rel, fmt, title, page, body, index, len(pages), day, private,
            _created(root, note_rel) if note_rel in kept else None))
        if entry.get("sha256") == digest and note_rel in kept and moved is None:
            # Unchanged document: the note as written then (its processed_date kept).
            planned = _as_written(root, planned, kept[note_rel])
        notes.append(planned)
    unchanged = entry.get("sha256") == digest and set(kept) == {n.path for n in notes} and all(
        _hash_on_disk(root, n.path) == kept[n.path] for n in notes)
    stale = sorted(set(kept) - {n.path for n in notes})
    conflicts = [n.path for n in notes
                 if _hash_on_disk(root, n.path) not in (None, n.sha256, kept.get(n.path))]
    return IngestPlan(rel, digest, notes, unchanged and moved is None, stale, conflicts,
                      text.cut, width, moved[0] if moved else None)


def _created(root: Path, rel: str) -> str | None:
    """The `date created` of a note an earlier ingest wrote: a note rewritten for a changed
    document was still made that day."""
    try:
        found = _CREATED.search(vault_path(root, rel).read_text(encoding="utf-8"))
    except (OSError, OraError, UnicodeDecodeError):
        return None
    return found[1] if found else None


def _hash_on_disk(root: Path, rel: str) -> str | None:
    try:
        return content_hash(vault_path(root, rel).read_bytes())
    except (OSError, OraError):
        return None


def _as_written(root: Path, planned: PlannedNote, written_hash: str) -> PlannedNote:
    try:
        data = vault_path(root, planned.path).read_bytes()
    except (OSError, OraError):
        return planned
    if content_hash(data) != written_hash:
        return planned
    return PlannedNote(planned.path, planned.page, data.decode("utf-8", "replace"))


# ---- apply and undo ----------------------------------------------------------------------------


def apply_ingest(vault: str | Path, plan: IngestPlan) -> dict[str, list[str]]:
    """Write the plan's notes (only those that differ), trash the stale ones, record the
    document in the manifest; {"written": paths, "trashed": paths}. Conflict when a note was
    edited since ingest wrote it, or a note of that name exists that ingest did not write.
    One apply or undo at a time in a vault (`journal_lock`): what it checks stays true while
    it writes."""
    root = Path(vault)
    if plan.unchanged:
        return {"written": [], "trashed": []}
    with journal_lock(root):
        return _apply(root, plan)


def _apply(root: Path, plan: IngestPlan) -> dict[str, list[str]]:
    manifest = read_manifest(root)
    before = manifest.get(plan.document)
    kept: dict[str, str] = dict((manifest.get(plan.moved_from or plan.document) or {}).get(
        "notes") or {})
    files: list[dict[str, Any]] = []
    for note in plan.notes:
        on_disk = _hash_on_disk(root, note.path)
        if on_disk == note.sha256:
            continue
        if on_disk is not None and kept.get(note.path) != on_disk:
            raise Conflict(f"{note.path} was edited since ingest wrote it, or is a note of "
                           "your own; move it away to process the document again")
        before_text = (vault_path(root, note.path).read_text(encoding="utf-8")
                       if on_disk is not None else None)
        files.append({"path": note.path, "action": "create" if on_disk is None else "update",
                      "before": before_text, "before_sha256": on_disk,
                      "after_sha256": note.sha256})
    for rel in plan.stale:
        if _hash_on_disk(root, rel) == kept.get(rel):
            files.append({"path": rel, "action": "trash", "before_sha256": kept[rel]})
    written: list[str] = []
    trashed: list[str] = []
    if files:
        _write(root, plan, before, files, written, trashed,
               manifest.get(plan.moved_from) if plan.moved_from else None)
    manifest = dict(read_manifest(root))
    if plan.moved_from is not None:
        manifest.pop(plan.moved_from, None)
    manifest[plan.document] = {"sha256": plan.sha256, "width": plan.width,
                               "notes": {n.path: n.sha256 for n in plan.notes}}
    write_manifest(root, manifest)
    return {"written": written, "trashed": trashed}


def _write(root: Path, plan: IngestPlan, before: dict[str, Any] | None,
           files: list[dict[str, Any]], written: list[str], trashed: list[str],
           moved_before: dict[str, Any] | None) -> None:
    """Journal, then make each change of `files`, filling `written` and `trashed`."""
    doc = {"version": JOURNAL_VERSION, "kind": KIND, "document": plan.document,
           "manifest_before": before, "files": files,
           "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
    if plan.moved_from is not None:  # the entry of its old path, which the apply replaces
        doc |= {"moved_from": plan.moved_from, "moved_before": moved_before}
    # folders this apply makes (`Resources/`, the document's own), deepest first: undo removes
    # them when empty, and never a folder that was there before
    doc["made_folders"] = sorted(
        {parent.as_posix() for entry in files if entry["action"] == "create"
         for parent in PurePosixPath(entry["path"]).parents
         if parent.parts and not (root / parent).exists()}, key=lambda f: (-f.count("/"), f))
    # before any note, so an apply that dies half-way can be undone
    journal, digest = create_journal(root, KIND, doc)
    texts = {n.path: n.text for n in plan.notes}
    done: list[dict[str, Any]] = []
    try:
        for entry in files:
            rel = entry["path"]
            try:
                if entry["action"] == "create":
                    create_note(root, rel, texts[rel])
                elif entry["action"] == "update":
                    atomic_write(vault_path(root, rel), texts[rel].encode("utf-8"),
                                 entry["before_sha256"], rel)
                else:
                    entry["trashed"] = move_to_trash(root, rel, entry["before_sha256"])
            except OSError as exc:  # a name too long for the file system, a full disk
                raise NoteNotWritable(f"{rel} cannot be written ({exc.strerror}); the notes "
                                      "written before it are undone by `--undo`") from exc
            done.append(entry)
            (trashed if entry["action"] == "trash" else written).append(rel)
    finally:
        # The journal names what was done, not what was planned: an undo then touches only
        # notes this apply wrote.
        if done:
            doc["files"] = done
            update_journal(journal, doc, digest)
        else:
            drop_journal(journal)


def latest_ingest(vault: str | Path) -> str:
    """The document of the ingest `--undo` would undo (NotFound when there is none)."""
    return str(latest_journal(vault, KIND, "ingest")[1]["document"])


def undo_ingest(vault: str | Path) -> dict[str, Any]:
    """Undo the latest ingest: its new notes to the trash, updated ones back to what they
    were, trashed ones back, the manifest entry as before; each only while the note still holds
    what ingest wrote (refused otherwise, and kept in the journal)."""
    root = Path(vault)
    with journal_lock(root):
        return _undo(root)


def _undo(root: Path) -> dict[str, Any]:
    journal, doc, digest = latest_journal(root, KIND, "ingest")
    undone: list[str] = []
    refused: list[dict[str, str]] = []
    pending = []
    for entry in doc["files"]:
        rel = entry["path"]
        try:
            if entry["action"] == "create":
                with contextlib.suppress(NotFound):  # deleted since: nothing left to undo
                    move_to_trash(root, rel, entry["after_sha256"])
            elif entry["action"] == "update":
                restore_bytes(root, rel, str(entry["before"]).encode("utf-8"),
                              entry["after_sha256"])
            elif "trashed" in entry:
                restore_from_trash(root, entry["trashed"], rel, entry["before_sha256"])
            undone.append(rel)
        except (OraError, OSError) as exc:
            refused.append({"path": rel, "reason": getattr(exc, "message", str(exc))})
            pending.append(entry)
    manifest = dict(read_manifest(root))
    if doc.get("manifest_before") is None:
        manifest.pop(str(doc["document"]), None)
    else:
        manifest[str(doc["document"])] = doc["manifest_before"]
    if doc.get("moved_from") and isinstance(doc.get("moved_before"), dict):
        manifest[str(doc["moved_from"])] = doc["moved_before"]
    write_manifest(root, manifest)
    # the folders the apply made, if empty (a journal from before made_folders: the notes' own)
    made = doc.get("made_folders")
    folders = made if isinstance(made, list) else sorted(
        {PurePosixPath(rel).parent.as_posix() for rel in undone})
    for folder in folders:
        with contextlib.suppress(OSError, OraError):
            vault_path(root, str(folder)).rmdir()
    if pending:
        doc["files"] = pending
        update_journal(journal, doc, digest)
    else:
        drop_journal(journal)
    return {"document": doc["document"], "undone": undone, "refused": refused}
