"""Which notes changed since the last scan, and their claims and vectors.

A note is re-read only when its size or mtime moved, and counts as changed only when its bytes
hash differently; a changed note whose claims are word for word the same keeps its vectors (a
resolution that only edits frontmatter costs no embedding). A note's vector is the normalised
mean of its claim vectors (its title's vector when it has no claims).

Memory does not grow with the vault's claims: every note is kept as a light state (its note
vector, no claims), and the changed notes' whole states are staged in the queue
(`Queue.stage`) a window at a time, as soon as they are embedded; the scan reads back the few it
pairs.
"""

from __future__ import annotations

import hashlib
import os
import socket
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from sidecar.chunking.drawings import body_parts
from sidecar.cleaning.claims import Claim, split_claims
from sidecar.cleaning.store import NoteState, Queue
from sidecar.cleaning.vocab import Thresholds, get_thresholds
from sidecar.documents.ingest import is_ingest_line, is_page_note
from sidecar.errors import OraError
from sidecar.models.embedder import Embedder
from sidecar.processes import process_alive
from sidecar.settings import Config
from sidecar.vault.drawings import note_title
from sidecar.vault.links import NameIndex
from sidecar.vault.note import Note, decode_note, parse_note
from sidecar.vault.properties import property_value
from sidecar.vault.scan import iter_note_paths, read_regular, vault_path
from sidecar.vault.tags import with_ancestors
from sidecar.vault.vault_settings import (
    VaultSettings,
    effective_type,
    holds_private_text,
    is_excluded,
    known_privacy,
    load_vault_settings,
)
from sidecar.vault.write import content_hash

StopCheck = Callable[[], bool]
_EMBED_BATCH = 64  # texts embedded between two stop checks
# Changed notes are embedded and staged once this many claims (or notes) wait.
STAGE_TEXTS = 512
STAGE_NOTES = 256
# Staged states older than this belong to a scan whose process died (none runs that long).
STALE_STAGING_NS = 24 * 3600 * 10**9


class ScanStopped(Exception):
    """The scan was asked to stop (shutdown) before it wrote anything."""


@dataclass
class Survey:
    """All notes as now known (light states); which changed (new included: their whole states
    staged under `scan`), which only need their stat saved, and which disappeared."""

    states: dict[str, NoteState]
    changed: set[str]
    restat: set[str]
    removed: set[str]
    scan: str = ""
    key: str = ""  # what the states depend on (survey_key), saved with them


# Bump when what a note's state is made of changes, so that saved states are made again.
SURVEY_VERSION = 7  # 3: the rules judge reads number labels (pairs it now rejects go)
# 4: a drawing's claims are its text elements (not the plugin's banner), its title its name
# 5: Dataview inline fields (`Mood:: 3`, `[due:: …]`) are no claims
# 6: nor are tasks (`- [ ] Run 5 km`, Kanban cards)
# 7: nor the lines `ora ingest` writes around a page (`Source: [[x.pdf#page=2]]`, its title)
_KEY_META = "survey_key"


def survey_key(model_id: str, settings: VaultSettings) -> str:
    """Saved states stay valid while the embedder, the vault settings that give notes their
    effective type and exclusions, and the survey's own rules are the same."""
    return f"{SURVEY_VERSION}|{model_id}|{settings.index_key()}"


def save_key(queue: Queue, seen: Survey) -> None:
    """Mark the saved states as made under `seen.key` (after they are written)."""
    queue.set_meta(_KEY_META, seen.key)


def scanned(queue: Queue) -> bool:
    """Whether a scan has ever saved its findings to this queue."""
    return queue.get_meta(_KEY_META) is not None


def note_kind(note_type: str | None, tags: Iterable[str], limits: Thresholds) -> str | None:
    """The candidate kind of a note: a kind that needs a tag (news) wins over a plain one."""
    tagset = with_ancestors(tags)
    fitting = [name for name, rule in limits.kinds.items()
               if note_type in rule.types and (rule.tag is None or rule.tag in tagset)]
    fitting.sort(key=lambda name: limits.kinds[name].tag is None)
    return fitting[0] if fitting else None


def _first_date(frontmatter: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = property_value(frontmatter, key)
        if isinstance(value, str | int) and str(value).strip():
            return str(value)
    return None


def _title_claim(title: str, note: Note, min_words: int) -> list[Claim]:
    """An atomic note's title is usually its claim ("Caffeine after 2 pm reduces deep sleep").
    It sits at its `# Title` heading when the body has one, else at the body's first line."""
    if len(title.split()) < min_words:
        return []
    for offset, line in enumerate(note.body.splitlines()):
        if line.startswith("# ") and line[2:].strip() == title:
            return [Claim(title, note.body_line + offset, note.body_line + offset)]
    return [Claim(title, note.body_line, note.body_line)]


def _without_ingest_lines(body: str, fm: dict[str, Any]) -> str:
    """`body` with the lines `ora ingest` wrote around a page's text blanked (its `Source:`
    line: every page note of a document has one, differing by the page number only), so that
    the line numbers of the claims stay the file's."""
    if not is_page_note(fm):
        return body
    return "\n".join("" if is_ingest_line(line, fm) else line for line in body.split("\n"))


def _state(note: Note, data: bytes, stat: os.stat_result, names: NameIndex,
           limits: Thresholds, settings: VaultSettings) -> NoteState:
    fm = note.frontmatter if note.yaml_error is None else {}
    # As the index files it: the effective type (a plain note is the vault's untyped type) and
    # Obsidian's tags, inline ones included. Unparseable YAML leaves the type unknown: no kind.
    kind = None if note.yaml_error is not None else note_kind(
        effective_type(settings, note.path, note.type)[0], note.tags, limits)
    rel = fm.get("relationships")
    links = rel.get(limits.supersedes) if isinstance(rel, dict) else None
    targets = [names.resolve_link(v) for v in links if isinstance(v, str)] if isinstance(
        links, list) else []
    title = note_title(note)
    claims = [c for part in body_parts(note) for c in split_claims(
        _without_ingest_lines(part.note.body, fm), part.note.body_line,
        limits.min_claim_words)] if kind else []
    # A page note's title is ingest's ("Report, page 2"), not a claim of the page.
    if kind in limits.titled_kinds and not is_page_note(fm):
        claims = _title_claim(title, note, limits.min_claim_words) + claims
    cluster = fm.get("cluster")
    return NoteState(
        path=note.path, hash=content_hash(data), size=stat.st_size, mtime_ns=stat.st_mtime_ns,
        kind=kind, archived=note.has_tag(limits.archive_tag),
        title=title,
        date=_first_date(fm, limits.news_date_properties),
        cluster=cluster if isinstance(cluster, str) else None,
        supersedes=sorted(t for t in targets if t),
        claims=[(c.text, c.line_start, c.line_end)
                for c in claims[: limits.max_claims_per_note]],
        ai_derived=note.has_tag(limits.provenance_tag),
        # Its own words or where it lies (ora.yaml `private`), as search decides it: a folder
        # rule is no tag, and a pair of a note under one was listed outside private mode.
        private=holds_private_text(note, settings),
    )


def _embed(states: list[NoteState], embedder: Embedder, should_stop: StopCheck) -> None:
    """Claim vectors, then the note vector as the last row, for every state given."""
    texts = [text for s in states for text, _, _ in s.claims or [(s.title, 0, 0)]]
    if not texts:
        return
    parts = []
    for start in range(0, len(texts), _EMBED_BATCH):
        if should_stop():
            raise ScanStopped
        parts.append(embedder.embed(texts[start: start + _EMBED_BATCH]))
    vectors = np.concatenate(parts)
    at = 0
    for s in states:
        n = max(len(s.claims), 1)
        rows = vectors[at: at + n]
        at += n
        mean = rows.mean(axis=0)
        mean /= max(float(np.linalg.norm(mean)), 1e-12)
        s.vectors = np.vstack([rows[: len(s.claims)], mean[None, :]]).astype(np.float32)


def light(state: NoteState) -> NoteState:
    """The state without its claims, its vectors cut to the note vector."""
    vectors = None if state.vectors is None else state.vectors[-1:].copy()
    return replace(state, claims=[], vectors=vectors, light=True)


_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def _model_tag(model_id: str) -> str:
    return hashlib.sha256(model_id.encode()).hexdigest()[:8]


def scan_id(now_ns: int, model_id: str = "", pid: int | None = None) -> str:
    """A scan's staging id: ids sort by start time (see `Queue.drop_staged`), and name the
    machine and process that runs the scan (a dead process's leftovers are known at once) and
    the embedder its vectors come from (only the same embedder's are reused)."""
    return (f"{now_ns:020d}-{_HOST}-{os.getpid() if pid is None else pid}-"
            f"{_model_tag(model_id)}-{uuid.uuid4().hex[:12]}")


def _left_over(scan: str) -> bool:
    """Whether `scan` runs no more: its process is gone, or it is this process (which runs one
    scan at a time). Ids of other machines, or of an older form, are left to the day's limit."""
    parts = scan.split("-")
    if len(parts) != 5 or parts[1] != _HOST or not parts[2].isdigit():
        return False
    pid = int(parts[2])
    return pid == os.getpid() or not process_alive(pid)


def survey(config: Config, queue: Queue, embedder: Embedder,
           should_stop: StopCheck | None = None, scan: str | None = None) -> Survey:
    """Compare the vault with the queue's note states (only staging is written to the queue,
    under `scan`, a new id by default); ScanStopped as soon as `should_stop()` says so.

    What a stopped, failed or killed scan staged stays: this survey takes a note's vectors from
    there when its text is still the same (so a first scan that Obsidian's closing or a crash
    interrupted resumes rather than embedding everything again), and drops it once it has
    staged every changed note itself. Staging of a day ago goes in any case."""
    now = time.time_ns()
    scan = scan or scan_id(now, embedder.model_id)
    queue.drop_staged(before=scan_id(now - STALE_STAGING_NS))
    leftovers = [s for s in queue.staged_scans() if s != scan and _left_over(s)]
    reusable = [s for s in leftovers if s.split("-")[3] == _model_tag(embedder.model_id)]
    for other in set(leftovers) - set(reusable):  # another embedder's vectors
        queue.drop_staged(other)
    queue.keep_newest_staged(reusable)  # one row per note, however often scans stopped
    seen = _survey(config, queue, embedder, should_stop or (lambda: False), scan, reusable)
    for done in reusable:
        queue.drop_staged(done)
    return seen


def _survey(config: Config, queue: Queue, embedder: Embedder, stop: StopCheck,
            scan: str, leftovers: list[str]) -> Survey:
    limits = get_thresholds()
    settings = known_privacy(load_vault_settings(config.vault, config.data))
    key = survey_key(embedder.model_id, settings)
    known = queue.note_states(light=True)
    old = known if queue.get_meta(_KEY_META) == key else {}
    paths = [rel for rel in iter_note_paths(config.vault) if not is_excluded(settings, rel)]
    names = NameIndex(paths)
    states: dict[str, NoteState] = {}
    changed: set[str] = set()
    restat: set[str] = set()
    pending: list[NoteState] = []  # changed notes not yet staged
    texts = 0

    def stage() -> None:
        nonlocal texts
        _embed([s for s in pending if s.kind and s.vectors is None], embedder, stop)
        queue.stage(scan, pending)
        states.update((s.path, light(s)) for s in pending)
        pending.clear()
        texts = 0

    for rel in paths:
        if stop():
            raise ScanStopped
        path = vault_path(config.vault, rel)
        try:
            stat = path.stat()
            prior = old.get(rel)
            if prior and (prior.size, prior.mtime_ns) == (stat.st_size, stat.st_mtime_ns):
                states[rel] = prior
                continue
            data = read_regular(path)
            if prior and prior.hash == content_hash(data):
                prior.size, prior.mtime_ns = stat.st_size, stat.st_mtime_ns
                states[rel] = prior
                restat.add(rel)  # same bytes: saved with its new stat, not judged again
                continue
            note = parse_note(decode_note(data, rel, int(config.max_file_bytes)), rel)
        except (OSError, OraError):
            continue  # unreadable notes are the linter's to report; they cannot be judged
        state = _state(note, data, stat, names, limits, settings)
        if prior and prior.vectors is not None:
            whole = queue.full_states([rel]).get(rel)
            if whole is not None and whole.claims == state.claims:
                state.vectors = whole.vectors
        if state.kind and state.vectors is None and leftovers:
            left = queue.staged_state(rel, state.hash, leftovers)
            if left is not None and left.claims == state.claims:
                state.vectors = left.vectors
        changed.add(rel)
        pending.append(state)
        texts += max(len(state.claims), 1) if state.kind and state.vectors is None else 0
        if texts >= STAGE_TEXTS or len(pending) >= STAGE_NOTES:
            stage()
    stage()
    removed = set(known) - set(states)
    return Survey(states, changed, restat, removed, scan, key)
