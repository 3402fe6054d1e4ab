"""Triage: the user's resolution of a queued pair, written through `sidecar.vault.edit` only.

* changed-mind — the newer note gets `relationships.supersedes: ["[[older]]"]`, the older the
  `archived` tag (it leaves default retrieval and stays as a record);
* flag — hypocrisy / motivated reasoning: nothing is edited, the pair is kept as `flagged`;
* wrong — the chosen note is tagged `archived`, or moved to `VAULT/.trash/` with `delete`; with
  `client_trash` too the note is left for the client to delete (the plugin, through Obsidian's
  `FileManager.trashFile`, so the user's "Deleted files" setting holds): its hash is checked and
  its bytes journalled here, so an undo recreates it wherever the client's trash put it;
* dismiss — not a contradiction; the same two claims are never queued again.

An action that writes a note (changed-mind, wrong) needs both notes of the pair to still hash as
they did when it was judged, even the one `wrong` leaves alone: the verdict was on the two
claims together, so the other one edited (perhaps to agree), renamed or deleted makes it stale.
Otherwise Conflict (NotFound when one is gone), and nothing is written. Flag and dismiss write no
note: they record the user's verdict on the pair as listed. A resolution is all or nothing: both
edits are planned (new texts computed and checked) before either is written, and if the second
write fails the first is put back, so a note never keeps `supersedes` while the other stays
unarchived (a batch approval likewise: `approve_batch`). Each resolution, and each batch
approval as a whole, is journalled so it can be undone (`undo.py`). The decision is recorded
in the vault's decisions note (`decisions.py`) after the edits; when it cannot be (a full
disk), the edits are put back and the resolution fails.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import PurePosixPath
from typing import Any

from sidecar.cleaning.store import Pair, Queue, Side, UndoFile
from sidecar.cleaning.undo import Journal, put_back
from sidecar.cleaning.vocab import get_thresholds
from sidecar.errors import BadRequest, Conflict, NotFound, OraError
from sidecar.settings import Config
from sidecar.vault.edit import plan_edit, write_planned
from sidecar.vault.frontmatter_edit import add_relationship, add_tag
from sidecar.vault.links import NameIndex
from sidecar.vault.scan import iter_note_paths, normalise_rel, vault_path
from sidecar.vault.trash import move_to_trash
from sidecar.vault.trash_place import trash_of
from sidecar.vault.vault_settings import load_vault_settings
from sidecar.vault.write import content_hash

log = logging.getLogger("sidecar.cleaning")
ACTIONS = ("changed-mind", "flag", "wrong", "dismiss")
_TRIAGEABLE = ("open", "flagged")


@dataclass(frozen=True)
class Resolution:
    pair: Pair
    changed: list[str]  # vault paths written, moved or removed

    def as_json(self) -> dict[str, Any]:
        return {"pair": self.pair.as_json(), "changed": self.changed}


def _side_of(pair: Pair, path: str | None, option: str) -> tuple[Side, Side]:
    """(the side named by `path`, the other side)."""
    if not path:
        raise BadRequest(f"{option} PATH is required: one of {pair.a.path}, {pair.b.path}")
    rel = normalise_rel(path)
    if rel == pair.a.path:
        return pair.a, pair.b
    if rel == pair.b.path:
        return pair.b, pair.a
    raise BadRequest(f"{path} is not in pair {pair.id}: choose {pair.a.path} or {pair.b.path}")


def _check_unchanged(config: Config, side: Side) -> None:
    try:
        data = vault_path(config.vault, side.path).read_bytes()
    except FileNotFoundError as exc:
        raise NotFound(f"{side.path} no longer exists; scan again") from exc
    if content_hash(data) != side.hash:
        raise Conflict(f"{side.path} changed since this pair was judged; scan again "
                       "(`ora contradictions VAULT --scan`) and resolve the fresh pair")


def link_to(config: Config, path: str) -> str:
    """A wikilink to `path`: its bare name when that resolves to it, else its path."""
    stem = PurePosixPath(path).with_suffix("").as_posix()
    name = PurePosixPath(stem).name
    unique = NameIndex(iter_note_paths(config.vault)).resolve(name) == path
    return f"[[{name if unique else stem}]]"


def _before(config: Config, side: Side) -> bytes:
    """The file's bytes as judged (Conflict if they are not), kept for an undo."""
    data = vault_path(config.vault, side.path).read_bytes()
    if content_hash(data) != side.hash:
        raise Conflict(f"{side.path} changed since this pair was judged; scan again")
    return data


def _edit(config: Config, queue: Queue, journal: Journal,
          *changes: tuple[Side, Callable[..., None]]) -> None:
    """Plan every change, then write them all or none; journal and rehash what was written."""
    plans = [plan_edit(config.vault, side.path, mutate, side.hash) for side, mutate in changes]
    write_planned(plans)
    for (side, _), plan in zip(changes, plans, strict=True):  # all journalled before any rehash
        journal.touched(side.path, plan.before, plan.after_hash)  # (which may fail: locked)
    for (side, _), plan in zip(changes, plans, strict=True):
        queue.rehash(side.path, side.hash, plan.after_hash)


def _changed_mind(config: Config, queue: Queue, pair: Pair, newer: str | None,
                  journal: Journal) -> dict[str, Any]:
    limits = get_thresholds()
    new, old = _side_of(pair, newer, "--newer")
    for side in (new, old):
        _check_unchanged(config, side)
    _edit(config, queue, journal,
          (new, partial(add_relationship, kind=limits.supersedes,
                        wikilink=link_to(config, old.path))),
          (old, partial(add_tag, tag=limits.archive_tag)))
    return {"action": "changed-mind", "newer": new.path, "older": old.path,
            "changed": [new.path, old.path]}


def _wrong(config: Config, queue: Queue, pair: Pair, note: str | None,
           delete: bool, journal: Journal, client_trash: bool = False) -> dict[str, Any]:
    wrong, other = _side_of(pair, note, "--note")
    for side in (wrong, other):  # the other note too: it is half of what was judged
        _check_unchanged(config, side)
    if delete and client_trash:  # the client trashes it after this answer, if still `hash`
        journal.touched(wrong.path, _before(config, wrong), None)
        return {"action": "wrong", "note": wrong.path, "deleted": True, "client_trash": True,
                "hash": wrong.hash, "changed": [wrong.path]}
    if delete:
        before = _before(config, wrong)
        moved = move_to_trash(config.vault, wrong.path, wrong.hash, trash_of(
            load_vault_settings(config.vault, config.data), wrong.path))
        journal.touched(wrong.path, before, None, trash=moved)
        return {"action": "wrong", "note": wrong.path, "deleted": True, "trash": moved,
                "changed": [wrong.path]}
    _edit(config, queue, journal, (wrong, partial(add_tag, tag=get_thresholds().archive_tag)))
    return {"action": "wrong", "note": wrong.path, "deleted": False, "changed": [wrong.path]}


def resolve(config: Config, queue: Queue, pid: str, action: str, *, newer: str | None = None,
            note: str | None = None, delete: bool = False, private: bool = False,
            journal: Journal | None = None, client_trash: bool = False) -> Resolution:
    """Apply one resolution to pair `pid` and record it in the queue (a private pair only in
    private mode: otherwise it is not found). It is journalled for an undo: in `journal` when
    given (a batch), else in an entry of its own."""
    if action not in ACTIONS:
        raise BadRequest(f"unknown action {action!r}: choose from {', '.join(ACTIONS)}")
    pair = queue.get(pid, private=private)
    if pair.status not in _TRIAGEABLE:
        raise Conflict(f"pair {pid} is already {pair.status}")
    own = journal is None
    journal = Journal() if journal is None else journal
    journal.pairs.append(pair)
    mine = Journal()  # this resolution's own files
    done = False
    try:
        try:
            if action == "changed-mind":
                record = _changed_mind(config, queue, pair, newer, mine)
            elif action == "wrong":
                record = _wrong(config, queue, pair, note, delete, mine, client_trash)
            else:
                record = {"action": action, "changed": []}
            status = {"flag": "flagged", "dismiss": "dismissed"}.get(action, "resolved")
            changed = record.pop("changed")
            resolution = Resolution(queue.set_status(pid, status, record), changed)
        except BaseException:  # whatever failed after a write (a rehash too): put it back
            _take_back(config, queue, pid, mine)
            raise
        done = True
        return resolution
    finally:
        journal.merge(mine)
        if own and (done or journal.files):  # a refused resolution wrote nothing to undo
            journal.save(queue)


def _take_back(config: Config, queue: Queue, pid: str, mine: Journal) -> None:
    """Put back the notes of a resolution that failed after writing (its decision not
    recorded: the queue is rebuilt from that record, so the decision is not made). Each note
    is tried, whichever fails; one that cannot be put back (saved since, a full disk) stays in
    the undo journal, for an undo later, and only those."""
    left = _put_back_each(config, queue, list(mine.files.values()))
    for path in set(mine.files) - left:
        del mine.files[path]
    if left:
        log.warning("notes of resolution %s could not be put back (%s); undo it when the "
                    "vault can be written", pid, ", ".join(sorted(left)))


def _put_back_each(config: Config, queue: Queue, files: list[UndoFile]) -> set[str]:
    """Put back each file (newest change first, as an undo does), going on past one that
    cannot be (a save since: not ours to overwrite); the paths still holding our edit."""
    left: set[str] = set()
    for f in reversed(files):
        try:
            put_back(config, queue, [f])
        except Exception as err:  # any failure: the others are still put back
            if _hash_now(config, f.path) != content_hash(f.before):  # else back, unrehashed
                log.warning("%s could not be put back: %s", f.path, err)
                left.add(f.path)
    return left


def approve_batch(config: Config, queue: Queue, batch: str, *,
                  private: bool = False) -> list[Resolution]:
    """Apply every open news proposal of a batch ("news" means every open batch), oldest
    first, so a story's chain archives each article in turn; private proposals only in
    private mode.

    All or nothing: every proposal's notes are checked as judged before any is written. When
    anything still fails midway (a note saved between that check and its write, the queue's
    database locked), what the approval wrote is put back and its pairs reopened before the
    error is raised; whatever cannot be put back is journalled as one undo first. Only when a
    note it wrote was changed since as well (not ours to overwrite) is nothing put back: for
    a failed write (OraError, OSError) the proposals applied are returned, journalled as one
    undo, the rest left open and every note left changed listed; anything else is raised."""
    proposals = (queue.pairs("open", kind="news", private=private) if batch == "news"
                 else [p for p in queue.batch(batch, private=private) if p.kind == "news"])
    if not proposals:
        raise NotFound(f"no open news proposals in batch {batch!r}")
    proposals.sort(key=lambda p: (str(p.evidence.get("dates", [""])[-1]), p.b.path))
    for p in proposals:
        for side in (p.a, p.b):
            _check_unchanged(config, side)
    journal = Journal()  # one undo for the whole batch
    done: list[Resolution] = []
    step = Journal()  # the files of the proposal being applied
    try:
        for p in proposals:
            step = Journal()
            done.append(resolve(config, queue, p.id, "changed-mind", newer=p.b.path,
                                private=private, journal=step))
            journal.merge(step)
    except BaseException as err:
        journal.merge(step)  # what the failed proposal's take-back could not put back
        # The pairs as judged (see below); the failed one too when a note of it is left.
        applied = proposals[:len(done) + (1 if step.files else 0)]
        if _rolled_back(config, queue, journal, applied):
            raise
        _save(queue, journal)
        if not done or not isinstance(err, (OraError, OSError)):
            raise
        log.warning("batch %s stopped after %d of %d proposals (%s), and a note it wrote "
                    "changed since: the applied ones are kept", batch, len(done),
                    len(proposals), err)
        return _listing_all(done, journal)
    # The pairs as judged, not as `resolve` read them: a note the chain edits twice (an
    # article superseding one and superseded by the next) was rehashed by the first edit,
    # and an undo puts back its first bytes.
    journal.pairs = proposals[:len(done)]
    journal.save(queue)
    return done


def _listing_all(done: list[Resolution], journal: Journal) -> list[Resolution]:
    """The resolutions applied, the last also naming any note the failed proposal left
    changed (its pair stays open, its decision unrecorded), so that note is re-indexed too."""
    listed = {path for d in done for path in d.changed}
    extra = sorted(set(journal.files) - listed)
    return [*done[:-1], replace(done[-1], changed=done[-1].changed + extra)] if extra else done


def _save(queue: Queue, journal: Journal) -> None:
    """Journal what an approval left for an undo; a failure to (a locked database) is logged,
    so the approval's own error is the one raised."""
    try:
        journal.save(queue)
    except Exception as err:  # the approval's error is the one to raise
        log.warning("the undo of a failed approval could not be journalled (%s): %s", err,
                    ", ".join(sorted(journal.files)))


def _hash_now(config: Config, rel: str) -> str | None:
    try:
        return content_hash(vault_path(config.vault, rel).read_bytes())
    except FileNotFoundError:
        return None


def _rolled_back(config: Config, queue: Queue, journal: Journal, applied: list[Pair]) -> bool:
    """`_roll_back`, which failing itself (a note unreadable) journals the approval whole, so
    that the approval's own error is raised and can be undone."""
    try:
        return _roll_back(config, queue, journal, applied)
    except Exception as err:  # the approval's error is the one to raise
        log.warning("a failed approval could not be put back (%s); undo it", err)
        journal.pairs = applied
        _save(queue, journal)
        return True


def _roll_back(config: Config, queue: Queue, journal: Journal, applied: list[Pair]) -> bool:
    """Put back the notes a failed approval wrote and reopen the pairs it resolved. False,
    touching nothing and setting `journal.pairs` to `applied`, when a note it wrote changed
    since (a save after ours: not ours to overwrite). A note that still cannot be put back (a
    save in the instant between that check and its put-back) does not stop the others; it
    and the pairs that wrote it stay journalled, for an undo (True: the error is raised)."""
    files = list(journal.files.values())
    journal.pairs = applied
    if any(f.trash is not None or _hash_now(config, f.path) != f.after_hash for f in files):
        return False
    left = _put_back_each(config, queue, files)
    for path in set(journal.files) - left:
        del journal.files[path]
    kept = [p for p in applied if {p.a.path, p.b.path} & left]  # still as the approval left
    for pair in applied:
        if pair in kept:
            continue
        try:
            queue.restore_pair(pair)
        except Exception as err:  # the others are reopened still
            log.warning("pair %s could not be reopened (%s)", pair.id, err)
            kept.append(pair)
    if left or kept:
        log.warning("a failed approval could not be put back whole; undo it when its notes "
                    "are as it left them")
        journal.pairs = kept
        _save(queue, journal)
    return True
