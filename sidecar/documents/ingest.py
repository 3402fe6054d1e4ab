"""`ora ingest`: a document as `type: resource` notes, one per page with text, on request.

The notes go to a folder named after the document under the folder the vault's settings type
as `resource` (`Resources/` by default): `Resources/Tidal pumping/Tidal pumping - page 03.md`.
A private document's (`ora.yaml` `private` covers it) go beside it instead, where the same rule
covers them: `Health/bloodwork.pdf` gives `Health/bloodwork/bloodwork - page 1.md` (a rule
naming the document alone covers no such folder: they go to the resource folder, tagged
`private`, and private by the document they name wherever they lie, `note_private`). Notes that
would never be indexed (a dot-folder, `exclude`) are refused before anything is written: the
notes replace the document in the index, so its text would vanish from search.
Each carries every `source_*` property (`source_file`, `source_format`, `source_path`,
`processed_date`, `chunk_index`, `total_chunks`, `source_document` linking the page it
cites, `[[Tidal pumping.pdf#page=3]]`); the document itself stays where it is.

Once written, the notes replace the document in the index: `.ora-journal/ingested.json`
records the document's hash, and the index keeps a document whose notes match it without
chunks of its own (`manifest.py`), so the same text is not found twice. Running it again on an
unchanged document writes nothing; on a changed one it rewrites the notes in place, each only
while it still holds what ingest wrote (compare-and-swap: a note edited since is refused),
moves the pages that are gone to the trash (an edited one is kept, and stays in the manifest),
and moves the notes of a document whose privacy changed to where it now puts them. Every
apply is journalled first (`vault/journal.py`, kind `ingest`), so `--undo`
(`ingest_undo.py`) puts the vault back as it was. A page's text and the document's title are
outside text, written inert (`vault/inert.py`): a Templater command or a query in a document
never runs in its notes.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from sidecar.documents.extract import DocumentError
from sidecar.documents.formats import document_format, document_link, formats, page_link
from sidecar.documents.manifest import file_hash, moved_entry, read_manifest, write_manifest
from sidecar.documents.worker import extract_in_worker
from sidecar.errors import BadRequest, Conflict, NoteNotWritable, NotFound, OraError
from sidecar.vault.held_open import NAME_MAX, fit_name
from sidecar.vault.inert import inert
from sidecar.vault.journal import (
    JOURNAL_VERSION,
    create_journal,
    drop_journal,
    journal_lock,
    update_journal,
)
from sidecar.vault.new_notes import safe_name, type_folder
from sidecar.vault.note import parse_note
from sidecar.vault.scan import (
    as_saved,
    composed_name,
    is_ignored,
    normalise_rel,
    shown_name,
    vault_path,
)
from sidecar.vault.temp_files import sweep_temp_files
from sidecar.vault.trash import move_to_trash
from sidecar.vault.trash_place import trash_of
from sidecar.vault.vault_settings import (
    VaultSettings,
    is_excluded,
    is_private_path,
    known_privacy,
    load_vault_settings,
    note_private,
)
from sidecar.vault.write import atomic_write, content_hash, create_file, create_note

KIND = "ingest"

RESOURCE = "resource"
# The notes of a private document lie where its private rule covers them, and carry the tag
# too: moved out of that folder by hand, a note still says it is private.
PRIVATE_TAG = "private"
# The page number of a note's name, as `note_suffix` writes it: its digits tell the width.
_PAGE_DIGITS = re.compile(r"(\d+)\.md$")
_CREATED = re.compile(r"^date created: (\d{4}-\d{2}-\d{2})$", re.M)
_HEADING = re.compile(r"#\s")  # the page heading ingest writes is the note's one `# ` line
# The hidden file that keeps a private note's earlier text (`before_file`): `.NAME.<hash12>` and
# this suffix, NAME cut to the room left so the whole fits one file name.
_BEFORE = ".ora-before"
_BEFORE_ROOM = NAME_MAX - len(f"..{'0' * 12}{_BEFORE}")


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
    stale: list[str] = field(default_factory=list)  # notes of an earlier ingest to trash
    # Notes an apply refuses: edited since ingest wrote them, or notes of the user's own.
    conflicts: list[str] = field(default_factory=list)
    cut: str | None = None  # why part of the document was not read (a page or size limit)
    width: int = 1  # digits of a page number in the notes' names
    moved_from: str | None = None  # the path the document's notes were made from, if moved
    # Notes of pages the document no longer has, edited since ingest wrote them: kept where
    # they are (never trashed), and still the document's in the manifest.
    kept: list[str] = field(default_factory=list)
    kept_hashes: dict[str, str] = field(default_factory=dict)  # their hashes as ingest wrote
    folder: str = ""  # where the notes go

    def to_json(self) -> dict[str, Any]:
        return {"document": self.document,
                "notes": [{"path": n.path, "page_start": n.page, "page_end": n.page}
                          for n in self.notes],
                "unchanged": self.unchanged, "stale": self.stale, "conflicts": self.conflicts,
                "kept": self.kept, "cut": self.cut}


def _covered(settings: VaultSettings, folder: str, private: bool) -> bool:
    """Whether notes in `folder` are private by where they lie exactly when the document is."""
    return is_private_path(settings, f"{folder}/note.md") == private


def _folder(rel: str, entry: dict[str, Any], manifest: dict[str, Any],
            settings: VaultSettings, private: bool) -> str:
    """The notes' folder: the one an earlier ingest of the document wrote to, while it is as
    private as the document; else one named after it that no other document's notes hold
    (`x.pdf` and `Other/x.pdf`, or `x.pdf` and `x.html`, get `x` and `x 2`), under the resource
    folder, or beside the document when it is private and its private rule covers a folder
    there (else under the resource folder too)."""
    earlier = sorted(entry.get("notes") or {})
    if earlier:
        folder = PurePosixPath(earlier[0]).parent.as_posix()
        if _covered(settings, folder, private):
            return folder
    if private:
        parent = PurePosixPath(rel).parent.as_posix()
        base = "" if parent == "." else parent
    else:
        base = type_folder(settings, RESOURCE, "Resources")  # never a dot-folder
    # room for the page suffix a note's name adds to the folder's name
    suffix = formats().note_suffix.format(page=0, width=len(str(formats().limits.max_pages)))
    # named as typed (composed), even for a document macOS saved decomposed
    name = safe_name(composed_name(PurePosixPath(rel).stem), fallback="document",
                     reserve=len(suffix))
    taken = {PurePosixPath(note).parent.as_posix() for doc, other in manifest.items()
             if doc != rel and isinstance(other, dict) for note in other.get("notes") or {}}
    folder = next(folder for n in range(1, 1000)
                  if (folder := "/".join(filter(None, [base, name + (f" {n}" if n > 1 else "")])))
                  not in taken)
    if private and not _covered(settings, folder, private):
        # A rule naming the document itself (`private: [labs.pdf]`) covers no folder beside
        # it: its notes go where a public one's go, private by their tag and by the document
        # they name (`note_private`).
        return _folder(rel, {}, manifest, settings, False)
    return folder


def _check_indexed(settings: VaultSettings, rel: str, notes: list[PlannedNote]) -> None:
    """BadRequest when a note would lie where the index never reads it (a dot-folder, ora.yaml
    `exclude`, Obsidian's Excluded files): the notes replace the document in search, so its
    text would vanish from it."""
    for note in notes:
        if is_ignored(note.path) or is_excluded(settings, note.path):
            folder = PurePosixPath(note.path).parent.as_posix()
            raise BadRequest(
                f"the notes of {rel} would go to {folder}/, which Ora never indexes (a hidden "
                "folder, ora.yaml's `exclude` or Obsidian's Excluded files): they would replace "
                "the document in search and never be found. Change the `resource` folder rule "
                "or the exclusion; nothing was written")


def _width(entry: dict[str, Any], pages: int) -> int:
    """Digits of a page number in the notes' names: an earlier ingest's, so that a document
    grown from 9 pages to 10 keeps its notes' names (and the links to them); else as many as
    the last page has."""
    if isinstance(entry.get("width"), int):
        return int(entry["width"])
    digits = [len(m[1]) for note in entry.get("notes") or {} if (m := _PAGE_DIGITS.search(note))]
    return min(digits) if digits else len(str(pages))


def is_private_document(vault: Path, rel: str, *, data: Path | None) -> bool:
    """Whether a document is private: `ora.yaml`'s `private` covers where it lies (`data`, the
    index's data folder, keeps what a missing ora.yaml said: `load_vault_settings`)."""
    return is_private_path(known_privacy(load_vault_settings(vault, data)), rel)


# ---- the note's text, and the lines ingest wrote around the page's ---------------------------


def source_line(link: str) -> str:
    """The line a note ends with, linking the page it was made from (`[[paper.pdf#page=3]]`):
    a pointer, not the document's text (extraction leaves it out)."""
    return f"Source: {link}"


def is_source_line(text: str, rel: str) -> bool:
    """Whether `text` is the line a note of the document at `rel` ends with (`source_line`)."""
    page = r"(?:#page=\d+)?"
    link = (rf"\[\[{re.escape(rel)}{page}\]\]"
            rf"|\[[^\]\n]*\]\({re.escape(page_link(rel, None))}{page}\)")
    return re.fullmatch(rf"Source: (?:{link})", text.strip()) is not None


def is_page_note(frontmatter: Mapping[str, Any]) -> bool:
    """Whether a note's frontmatter is one `ora ingest` wrote: a `type: resource` page note
    naming its document (`source_file`, `source_path`). Its title (the document's title and
    page, or its file name) is ingest's, no claim of it."""
    return (frontmatter.get("type") == RESOURCE and "source_file" in frontmatter
            and isinstance(frontmatter.get("source_path"), str))


def is_ingest_line(text: str, frontmatter: Mapping[str, Any]) -> bool:
    """Whether a line of a note is one `ora ingest` wrote around the page's text: its
    `Source:` line or its heading (`# Title, page 3`). A pointer, neither text nor claim of
    the page (every page note of a document has them, differing only by the page number)."""
    if not is_page_note(frontmatter):
        return False
    line = text.strip()
    return _HEADING.match(line) is not None or is_source_line(line, frontmatter["source_path"])


def _quoted(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML string


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


# ---- the plan ----------------------------------------------------------------------------------


def _refuse_backslash(root: Path, rel: str) -> None:
    """BadRequest for a document whose name holds a backslash (legal on Linux and macOS): a
    vault path reads `\\` as `/` (`normalise_rel`), so it would be looked for elsewhere and
    said not to be in the vault; the index passes over it as over such a note."""
    try:
        named = os.sep == "/" and "\\" in rel and (root / rel).is_file()
    except (OSError, ValueError):
        named = False
    if named:
        raise BadRequest(f"{shown_name(rel)}: its name holds a backslash (\\), which Obsidian "
                         "allows in no file's name and Ora reads as a folder's `/`; rename the "
                         "file to process it (it is not searched either)")


def _found(root: Path, rel: str) -> str:
    """`rel` as the vault saved it (a name typed composed, saved decomposed); NotFound when no
    such file is there."""
    try:
        rel = as_saved(root, rel)
        found = vault_path(root, rel).is_file()
    except (OSError, ValueError):  # a name no file system holds (too long, a NUL)
        found = False
    if not found:
        raise NotFound(f"{rel} is not in the vault")
    return rel


def plan_ingest(vault: str | Path, rel: str, today: dt.date | None = None, *,
                data: Path | None) -> IngestPlan:
    """The notes `rel` (a document of the vault) becomes; BadRequest when it is not a
    document or cannot be read (the reason `ora index` gives too), or when its notes would lie
    where they are never indexed."""
    root = Path(vault)
    _refuse_backslash(root, rel)
    rel = normalise_rel(rel)
    fmt = document_format(rel)
    if fmt is None:
        known = ", ".join(sorted(formats().by_suffix))
        raise BadRequest(f"{rel} is not a document Ora reads ({known})")
    rel = _found(root, rel)
    path = vault_path(root, rel)
    digest = file_hash(path)
    settings = known_privacy(load_vault_settings(root, data))
    private = is_private_path(settings, rel)
    entry, moved, folder = _place(root, rel, digest, settings)
    try:
        text = extract_in_worker(path, fmt)
    except DocumentError as exc:
        raise BadRequest(f"{rel} cannot be processed: {exc}") from None
    title = text.meta.get("title") or PurePosixPath(rel).stem
    pages = [(n if text.paged else None, t) for n, t in enumerate(text.pages, 1) if t.strip()]
    width = _width(entry, len(text.pages))
    stem = PurePosixPath(folder).name
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
            planned = _as_written(root, planned, kept[note_rel], private)
        notes.append(planned)
    _check_indexed(settings, rel, notes)
    planned_paths = {n.path for n in notes}
    # to the folder its privacy now gives it (`_folder`)
    moving = bool(kept) and folder not in {PurePosixPath(n).parent.as_posix() for n in kept}
    stale, edited = [], []
    for note in sorted(set(kept) - planned_paths):
        on_disk = _hash_on_disk(root, note)
        if on_disk == kept[note]:
            stale.append(note)
        elif on_disk is not None:  # edited since: never trashed
            edited.append(note)
    conflicts = [n.path for n in notes
                 if _hash_on_disk(root, n.path) not in (None, n.sha256, kept.get(n.path))]
    # An edited note of a page still there, its twin written elsewhere, would be two copies:
    # a move is refused until it is moved away. One of a page that is gone is kept.
    conflicts += edited if moving else []
    unchanged = (entry.get("sha256") == digest and moved is None and not stale
                 and set(kept) == planned_paths | set(edited)
                 and all(_hash_on_disk(root, n.path) == kept[n.path] == n.sha256 for n in notes))
    left = [] if moving else edited
    return IngestPlan(rel, digest, notes, unchanged, stale, conflicts, text.cut, width,
                      moved[0] if moved else None, left, {n: kept[n] for n in left}, folder)


def _place(root: Path, rel: str, digest: str, settings: VaultSettings,
           ) -> tuple[dict[str, Any], tuple[str, dict[str, Any]] | None, str]:
    """The document's manifest entry (its old path's, when it moved: `moved_entry`), that move,
    and the folder its notes go to, as the manifest stands now."""
    manifest = read_manifest(root)
    entry = manifest.get(rel) or {}
    moved = None if entry else moved_entry(root, rel, digest)
    if moved is not None:  # its notes follow it: same folder and names, the new path written
        entry = moved[1]
    folder = _folder(rel, entry, manifest, settings, is_private_path(settings, rel))
    return entry, moved, folder


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


def _as_written(root: Path, planned: PlannedNote, written_hash: str,
                private: bool) -> PlannedNote:
    """The note on disk, while it holds what ingest wrote and is tagged as private as the
    document is now (a document made private, or public, since gets its notes rewritten)."""
    try:
        data = vault_path(root, planned.path).read_bytes()
    except (OSError, OraError):
        return planned
    tagged = f"\ntags: [{PRIVATE_TAG}]\n".encode() in data
    if content_hash(data) != written_hash or tagged != private:
        return planned
    return PlannedNote(planned.path, planned.page, data.decode("utf-8", "replace"))


# ---- apply -------------------------------------------------------------------------------------


def before_file(rel: str, after_sha256: str) -> str:
    """Where an apply keeps the earlier text of a private note it rewrites, for its undo: a
    hidden file beside the note (`.Name - page 1.md.<hash>.ora-before`), so that the text stays
    where the private rule covers it (a journal is outside every folder). A note name too long
    for that to fit NAME_MAX bytes (a long title in a multibyte script) is cut, and a digest of
    the whole name added so two long names that begin alike keep apart; the journal names the
    file (`before_file`), so its undo finds it as written."""
    note = PurePosixPath(rel)
    name = note.name
    if len(os.fsencode(name)) > _BEFORE_ROOM:
        mark = "~" + hashlib.sha256(os.fsencode(name)).hexdigest()[:8]
        name = fit_name(name, _BEFORE_ROOM - len(mark)) + mark
    return (note.parent / f".{name}.{after_sha256[:12]}{_BEFORE}").as_posix()


def apply_ingest(vault: str | Path, plan: IngestPlan, *,
                 data: Path | None) -> dict[str, list[str]]:
    """Write the plan's notes (only those that differ), trash the stale ones, record the
    document in the manifest; {"written": paths, "trashed": paths}, and "kept": paths when an
    edited note of a page that is gone was left where it is. Conflict when a note was edited since
    ingest wrote it, or a note of that name exists that ingest did not write. One apply or undo
    at a time in a vault (`journal_lock`): what it checks stays true while it writes."""
    root = Path(vault)
    if plan.unchanged:
        return _done([], [], plan.kept)
    with journal_lock(root):
        settings = known_privacy(load_vault_settings(root, data))
        if _place(root, plan.document, plan.sha256, settings)[2] != plan.folder:
            # another ingest took the folder (`x` for `A/x.pdf` and `B/x.pdf` at once), or
            # gave it up, since the plan: planned again, as if run one after the other
            plan = plan_ingest(root, plan.document, data=data)
        return _apply(root, plan, data)


def _apply(root: Path, plan: IngestPlan, data: Path | None) -> dict[str, list[str]]:
    manifest = read_manifest(root)
    before = manifest.get(plan.document)
    kept: dict[str, str] = dict((manifest.get(plan.moved_from or plan.document) or {}).get(
        "notes") or {})
    texts = {n.path for n in plan.notes}
    for rel in plan.conflicts:  # an edited note of the folder the notes move away from
        if rel not in texts and _hash_on_disk(root, rel) not in (None, kept.get(rel)):
            raise Conflict(f"{rel} was edited since ingest wrote it, and the document's notes "
                           f"now go to {plan.folder}/ (it is "
                           "private, or no longer): move it there, or away, to process the "
                           "document again")
    settings = known_privacy(load_vault_settings(root, data))
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
        entry = {"path": note.path, "action": "create" if on_disk is None else "update",
                 "before": before_text, "before_sha256": on_disk, "after_sha256": note.sha256}
        if before_text is not None and _was_private(settings, plan, note.path, before_text):
            # a private note's text stays beside it, not in the journal
            entry |= {"before": None, "before_file": before_file(note.path, note.sha256)}
            files.append(entry | {"before_text": before_text})
        else:
            files.append(entry)
    for rel in plan.stale:
        if _hash_on_disk(root, rel) == kept.get(rel):
            files.append({"path": rel, "action": "trash", "before_sha256": kept[rel]})
    written: list[str] = []
    trashed: list[str] = []
    if files:
        _write(root, plan, before, files, (written, trashed), settings,
               manifest.get(plan.moved_from) if plan.moved_from else None)
    manifest = dict(read_manifest(root))
    if plan.moved_from is not None:
        manifest.pop(plan.moved_from, None)
    left = {rel: digest for rel, digest in plan.kept_hashes.items()
            if _hash_on_disk(root, rel) is not None}
    manifest[plan.document] = {"sha256": plan.sha256, "width": plan.width,
                               "notes": {**left, **{n.path: n.sha256 for n in plan.notes}}}
    write_manifest(root, manifest)
    return _done(written, trashed, sorted(left))


def _was_private(settings: VaultSettings, plan: IngestPlan, rel: str, text: str) -> bool:
    """Whether the note an apply rewrites holds private text: private itself (its tag, its
    folder, the document it names: `note_private`), or made from a document private now."""
    documents = [plan.document] + ([plan.moved_from] if plan.moved_from else [])
    return note_private(parse_note(text, rel), settings) or any(
        is_private_path(settings, doc) for doc in documents)


def _done(written: list[str], trashed: list[str], kept: list[str]) -> dict[str, list[str]]:
    """What an apply answers: `kept` only when it kept a note (the answer's shape before)."""
    return {"written": written, "trashed": trashed} | ({"kept": list(kept)} if kept else {})


def _write(root: Path, plan: IngestPlan, before: dict[str, Any] | None,
           files: list[dict[str, Any]], out: tuple[list[str], list[str]],
           settings: VaultSettings, moved_before: dict[str, Any] | None) -> None:
    """Journal, then make each change of `files`, filling `out` (written, trashed); a note of
    a private folder goes to the trash inside it (`trash_of`)."""
    written, trashed = out
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
    backups = {entry["before_file"]: entry.pop("before_text") for entry in files
               if "before_file" in entry}
    # before any note, so an apply that dies half-way can be undone
    sweep_temp_files(vault_path(root, plan.folder))  # a killed apply's (vault/temp_files.py)
    journal, digest = create_journal(root, KIND, doc)
    texts = {n.path: n.text for n in plan.notes}
    done: list[dict[str, Any]] = []
    try:
        for entry in files:
            rel = entry["path"]
            try:
                if "before_file" in entry:
                    create_file(vault_path(root, entry["before_file"]),
                                backups[entry["before_file"]].encode("utf-8"))
                if entry["action"] == "create":
                    create_note(root, rel, texts[rel])
                elif entry["action"] == "update":
                    atomic_write(vault_path(root, rel), texts[rel].encode("utf-8"),
                                 entry["before_sha256"], rel)
                else:
                    entry["trashed"] = move_to_trash(root, rel, entry["before_sha256"],
                                                     trash_of(settings, rel))
            except OSError as exc:  # a name too long for the file system, a full disk
                raise NoteNotWritable(f"{rel} cannot be written ({exc.strerror}); the notes "
                                      "written before it are undone by `--undo`") from exc
            done.append(entry)
            (trashed if entry["action"] == "trash" else written).append(rel)
    finally:
        for entry in files:  # the earlier text of a note not written: nothing to undo
            if "before_file" in entry and entry not in done:
                with contextlib.suppress(OSError, OraError):
                    vault_path(root, entry["before_file"]).unlink()
        # The journal names what was done, not what was planned: an undo then touches only
        # notes this apply wrote.
        if done:
            doc["files"] = done
            update_journal(journal, doc, digest)
        else:
            drop_journal(journal)

