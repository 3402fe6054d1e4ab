"""Chat notes are the truth of conversation memory; the log and the recall vectors are caches.

Every turn is appended to its conversation's chat note (through `vault/edit.py`, atomically,
keeping every existing byte) before it enters the log (`memory.sqlite`) and episodic recall
(`mem__*`). The log remembers each note's hash when it last matched it; `sync()` re-reads every
chat note whose hash differs (the user edited it, or `.ora/` was deleted) and rebuilds that
conversation — turns, summaries, vectors — from the note, and forgets conversations whose note is
gone. An append to a note that changed since the log matched it re-imports the note the same way,
so a user's edit is never overwritten by the cache. A note gone from its path when a turn is
appended is looked for in the chats folder by its conversation id first (renamed while an answer
was being generated, before any sync or rename event): the turn goes there, and only a note
found nowhere starts the conversation afresh. A note another program is saving (held open for
writing, or empty between an editor's truncate and its write) is tried again for a few seconds;
a turn it still refuses is kept, to be written with the conversation's next one or at the next
sync (`_append`), and a sync that reads a note empty passes over it as over an unreadable one,
not forgetting its conversation — until the note has stayed empty for `EMPTY_GRACE_S`: then its
owner emptied it, and it counts as deleted (`_emptied`), its next turns going to a new note.
Turns kept for a note the user then deleted are dropped with it, never re-creating it; a turn a
note still refuses when the server stops is written into a new note of the conversation
(`flush(final=True)`). A note that cannot be read (not UTF-8, over
`max_file_bytes`) may carry a private tag no one can see: its conversation is sealed — every turn
private, the public summary and public vectors gone — until the note reads again (`_seal`).
A question asked again when its conversation ends with that same question, unanswered and with
nothing after it (the server was killed while answering it), is that turn, not a second one
(`_unanswered`): asked again after an answer, or after a `no answer` line, it is a new turn.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ruamel.yaml.comments import CommentedMap

from sidecar.errors import BadRequest, Conflict, NotFound, OraError
from sidecar.index.chroma import ChromaStore
from sidecar.memory.chat_note import (
    SUMMARY_KEYS,
    ChatNote,
    ends_with_question,
    local_day,
    new_note,
    note_content,
    note_rel,
    parse_chat,
    turn_section,
)
from sidecar.memory.episodic import Episodic
from sidecar.memory.store import (
    LoggedTurn,
    MemoryStore,
    NoteLink,
    Turn,
    check_conversation,
    id_of,
    now,
    twin_of,
)
from sidecar.memory.tokens import TurnEmbedder, count_tokens
from sidecar.retrieval.private_now import settings_now_of
from sidecar.settings import Config
from sidecar.vault.edit import append_to_note, edit_frontmatter
from sidecar.vault.frontmatter_edit import add_tag, set_value
from sidecar.vault.note import decode_note, parse_note
from sidecar.vault.scan import is_ignored, iter_note_paths, vault_path
from sidecar.vault.vault_settings import VaultSettings, is_private_path, load_vault_settings
from sidecar.vault.write import check_not_empty, content_hash, create_note

log = logging.getLogger("sidecar.memory")
Read = tuple[str, ChatNote | None]  # a chat note's hash and what it holds
# How long an append waits out a note held by another program's save (milliseconds, mostly;
# longer on a sync client or network drive), and how often it tries meanwhile.
WRITE_RETRY_S = 3.0
WRITE_RETRY_PAUSE_S = 0.05
# How long a chat note may stay empty and still be taken for one an editor is saving (its
# truncate and its write are milliseconds apart, seconds on a sync client): past this, from the
# first time it was seen empty, the user emptied it on purpose, as if deleting it.
EMPTY_GRACE_S = 10.0


def chats_folder(config: Config) -> str:
    """The vault folder chat notes go to: `chats_folder` of the vault's own settings
    (`VAULT/ora.yaml`, default `schema/vault_defaults.json`)."""
    return load_vault_settings(config.vault, config.data).chats_folder


@dataclass(frozen=True)
class _Entry:
    """A section bound for a chat note, and what it changes in the frontmatter."""

    section: str
    private: bool
    created: str
    topic: str | None


@dataclass(frozen=True)
class SyncReport:
    imported: list[str]  # conversations rebuilt from their notes
    dropped: list[str]  # conversations whose note is gone

    def as_json(self) -> dict[str, Any]:
        return {"imported": self.imported, "dropped": self.dropped}


class ChatNotes:
    """The chat notes of one vault, and the caches they feed."""

    def __init__(self, config: Config, store: MemoryStore, chroma: ChromaStore,
                 embedder: TurnEmbedder) -> None:
        self.config, self.store, self.chroma, self.embedder = config, store, chroma, embedder
        self._episodic: dict[str, Episodic] = {}
        # Appends and syncs compare the note's hash with the log's: one at a time.
        self._lock = threading.RLock()
        # entries no write could put in their note yet, by (namespace, conversation): `_append`
        self._pending: dict[tuple[str, str], list[_Entry]] = {}
        # when each chat note (vault-relative path) was first seen empty: `_emptied`
        self._empty_since: dict[str, float] = {}

    def episodic(self, namespace: str, given: Episodic | None = None) -> Episodic:
        if given is not None:
            self._episodic.setdefault(namespace, given)
        if namespace not in self._episodic:
            self._episodic[namespace] = Episodic(self.chroma, namespace)
        return self._episodic[namespace]

    def path_of(self, namespace: str, conversation: str) -> str | None:
        link = self.store.note_link(namespace, conversation)
        return link.path if link is not None else None

    def shown_path(self, namespace: str, conversation: str, *, private: bool) -> str | None:
        """The conversation's note as a request may name it: outside private mode None when
        the conversation is private (a private turn in the log) or the vault's settings make
        its path private now (`retrieval/private_now.py`): a private note's path names it."""
        rel = self.path_of(namespace, conversation)
        if rel is None or private:
            return rel
        if any(t.private for t in self.store.turns(namespace, conversation, private=True)):
            return None
        return None if settings_now_of(self.config).private_paths()(rel) else rel

    def hidden(self, namespace: str, conversation: str) -> bool:
        """Whether outside private mode the conversation is one to keep out of sight: it has a
        private turn, or a note `shown_path` would not name."""
        if any(t.private for t in self.store.turns(namespace, conversation, private=True)):
            return True
        return (self.path_of(namespace, conversation) is not None
                and self.shown_path(namespace, conversation, private=False) is None)

    def new_note_path(self, namespace: str, conversation: str) -> str:
        """Where a new note of the conversation goes; BadRequest when that is in a hidden folder
        (`chats_folder: .obsidian/…` in ora.yaml): Ora writes into no dot-folder."""
        rel = note_rel(chats_folder(self.config), namespace, id_of(conversation),
                       str(self.config.namespace))
        if is_ignored(rel):
            raise BadRequest(f"the chats folder of ora.yaml puts {rel!r} in a hidden folder: "
                             "Ora never writes into a dot-folder; change chats_folder")
        return rel

    def moved(self, old_rel: str, new_rel: str) -> bool:
        """The user moved or renamed a chat note (Obsidian's rename event, through the plugin):
        its conversation follows it, wherever it went (`sync()` walks only the chats folder, so a
        note moved out of it would otherwise be forgotten and the next turn start a new one).
        Whether a conversation's note was `old_rel`."""
        with self._lock:
            links = [k for k in self.store.note_links() if k.path == old_rel]
            for link in links:
                self.store.link_note(NoteLink(link.namespace, link.conversation, new_rel,
                                              link.hash))
        return bool(links)

    # ---- writing -----------------------------------------------------------------------------

    def append(
        self, namespace: str, conversation: str, role: str, content: str, *, private: bool,
        sources: Sequence[str] = (), topic: str | None = None,
    ) -> Turn | None:
        """Append one turn to the note, then to the log and recall; the logged turn (None when
        the note, re-imported after a user's edit, no longer holds it). The log holds the text
        as the note does (`note_content`: inert). The OraError that kept it from the note
        (`_append`): then it is kept to be written with the conversation's next one."""
        content = note_content(content)
        if role == "user":
            with self._lock:
                asked = self._unanswered(namespace, conversation, content, private=private)
            if asked is not None:
                return asked
        created = now()
        entry = _Entry(turn_section(role, content, created, private=private, sources=sources),
                       private, created, topic)

        def log_turn(private: bool) -> Turn:
            return self.store.append(namespace, conversation, role, content, private=private,
                                     created=created,
                                     tokens=count_tokens(self.embedder.tokenizer, content))

        return self._append(namespace, conversation, entry, log_turn)

    def _unanswered(self, namespace: str, conversation: str, content: str, *,
                    private: bool) -> Turn | None:
        """The conversation's last turn when it is the question `content` (as the note holds
        it), asked in the same mode, with nothing after it in the note: a question whose answer
        a crash never wrote, asked again. None otherwise, and when the note is not as the log
        last matched it, or turns are still kept from it (then the append reads it again)."""
        if (namespace, conversation) in self._pending:
            return None
        link = self.store.note_link(namespace, conversation)
        last = self.store.turns(namespace, conversation, private=True, limit=1,
                                newest_first=True)
        if link is None or not last or (last[0].role, last[0].private) != ("user", private) or (
                last[0].content.strip() != content.strip()):
            return None
        try:
            data = vault_path(self.config.vault, link.path).read_bytes()
            note = parse_note(decode_note(data, link.path, int(self.config.max_file_bytes)),
                              link.path)
        except (OSError, OraError):
            return None
        return last[0] if content_hash(data) == link.hash and ends_with_question(note) else None

    def append_no_answer(self, namespace: str, conversation: str, reason: str, *,
                         private: bool) -> None:
        """Say in the note that no answer was generated; memory gets no assistant turn. The
        OraError that kept it from the note, as for `append`."""
        created = now()
        section = turn_section("assistant", f"No answer was generated: {reason}.", created,
                               private=private, no_answer=True)
        self._append(namespace, conversation, _Entry(section, private, created, None), None)

    def _append(self, namespace: str, conversation: str, entry: _Entry,
                log_turn: Callable[[bool], Turn] | None) -> Turn | None:
        """Write `entry` to the note after the entries kept from it before, then log the turn
        (`log_turn(private)`, None for a line that is no turn). A note held by an editor's save
        (Conflict: open for writing, empty, changed between read and write) or gone mid-way is
        tried again for `WRITE_RETRY_S`; what still cannot be written is kept, in order, to be
        written with the conversation's next entry or at the next `sync()`, and the error that
        kept it is raised: an answer is never lost to a save that takes milliseconds."""
        key = (namespace, conversation)
        deadline = time.monotonic() + WRITE_RETRY_S
        while True:
            with self._lock:
                kept = self._pending.get(key, [])
                try:
                    written = self._write(namespace, conversation, kept, entry)
                except (Conflict, NotFound):
                    if time.monotonic() >= deadline:
                        self._pending[key] = [*kept, entry]
                        raise
                except OraError:
                    self._pending[key] = [*kept, entry]
                    raise
                else:
                    assert written is not None  # a new entry always finds a note
                    matched, link = written
                    self._pending.pop(key, None)
                    return self._logged(link, matched, entry.private, log_turn)
            time.sleep(WRITE_RETRY_PAUSE_S)

    def _logged(self, link: NoteLink, matched: bool, private: bool,
                log_turn: Callable[[bool], Turn] | None) -> Turn | None:
        """The log and recall after an append to `link`'s note (under the lock)."""
        try:
            read = self._read_back(link, matched=matched, private=private)
        except (OSError, OraError):  # its privacy cannot be established: private
            turn = log_turn(True) if log_turn is not None else None
            self._seal(link)
        else:
            if read is not None:
                stored = self._import(link, read)
                return stored[-1] if stored and log_turn is not None else None
            turn = log_turn(private) if log_turn is not None else None
            self.store.link_note(link)
        if turn is not None:
            self.episodic(link.namespace).add(turn, self.embedder.embed([turn.content])[0])
        return turn

    def flush(self, *, final: bool = False) -> None:
        """Write the entries kept from their notes (`_append`), one try each: at each sync, and
        (`final`) when the server stops. A conversation written is rebuilt from its note by the
        next sync. Entries whose note the user deleted since are dropped, never re-creating it
        (`_write`). When the server stops, entries their note still refuses are written into a
        new note of the conversation beside it (`_rescue`): a turn is never lost to memory."""
        with self._lock:
            for (namespace, conversation), entries in list(self._pending.items()):
                try:
                    written = self._write(namespace, conversation, entries, None)
                except OraError as err:
                    if final and self._rescue(namespace, conversation, entries):
                        del self._pending[(namespace, conversation)]
                        continue
                    log.warning("the chat note of %s is still not written: %s", conversation,
                                err.message)
                    continue
                del self._pending[(namespace, conversation)]
                if written is not None:
                    self.store.link_note(replace(written[1], hash=""))  # not matched: read it

    def _rescue(self, namespace: str, conversation: str, entries: Sequence[_Entry]) -> bool:
        """Write entries their note refuses into a new chat note of the conversation (its next
        free name, `c1 2.md`), logged; whether it was written. The conversation's own note stays
        the one the log follows while it can be read: the new one holds only these turns."""
        text = new_note(id_of(conversation), namespace, entries[0].created)
        if any(e.private for e in entries):
            text = text.replace("tags: []", "tags:\n  - private", 1)
        body = "\n".join(["", *(e.section for e in entries)])
        try:
            rel, _ = self._new_file(namespace, conversation, text + body)
        except (OSError, OraError) as err:
            log.error("%d turn(s) of conversation %s could not be written to any chat note: %s",
                      len(entries), conversation, err)
            return False
        log.warning("%d turn(s) of conversation %s its chat note refused were written to %s",
                    len(entries), conversation, rel)
        return True

    def save_summary(self, namespace: str, conversation: str, *, private: bool, text: str,
                     covers: str) -> None:
        """Write a running summary and its watermark (`chat_note.covers_mark`: the last turn it
        covers, and a digest of all it covers) to the note."""
        text_key, mark_key = SUMMARY_KEYS[private]

        def mutate(cm: CommentedMap) -> None:
            set_value(cm, text_key, text)
            set_value(cm, mark_key, covers)

        with self._lock:
            link = self.store.note_link(namespace, conversation)
            if link is None:
                return
            try:
                new_hash = edit_frontmatter(self.config.vault, link.path, mutate, link.hash)
            except OraError as err:  # the user edited it: the next sync re-reads it
                log.warning("summary not written to %s: %s", link.path, err.message)
                return
            self.store.link_note(NoteLink(namespace, conversation, link.path, new_hash))

    def _read_back(self, link: NoteLink, *, matched: bool, private: bool) -> Read | None:
        """The note as read after an append, when the conversation must be rebuilt from it:
        the log did not match it before (a user's edit), or it carries the private tag while
        the log holds public turns of it or this turn is not private (every turn of a private
        note is private). None when the log only needs the new turn. OSError or OraError when
        the note cannot be read (undecodable, grown past the size limit): then whether it is
        private cannot be known, and the caller treats it as private (`_seal`)."""
        if not matched:
            return self._read(link.path)
        if private and not self.store.turns(link.namespace, link.conversation, private=False):
            return None
        read = self._read(link.path)
        return read if read[1] is not None and read[1].private else None

    def _seal(self, link: NoteLink) -> None:
        """A conversation whose note cannot be read is private until the note can be read
        again: its turns leave every non-private tier (log, summary, recall), as they would if
        the note were tagged private, which it may well be (privacy fails closed)."""
        flipped = self.store.seal(link)
        episodic = self.episodic(link.namespace)
        episodic.drop_conversations([link.conversation], scopes=(False,))
        if flipped:
            episodic.add_many(flipped, self.embedder.embed([t.content for t in flipped]))

    def _write(
        self, namespace: str, conversation: str, kept: Sequence[_Entry], entry: _Entry | None,
    ) -> tuple[bool, NoteLink] | None:
        """Append the sections of the entries `kept` from the note before and of the new
        `entry` to the conversation's note (creating it); whether the log matched the note
        before this write and holds all but the new entry, and the note's new link.

        A note the user deleted (gone, found nowhere in the chats folder) or emptied for
        `EMPTY_GRACE_S` is forgotten with its conversation. After a deletion the entries kept
        from it are dropped (the user deleted the conversation they belonged to, logged): only
        a new entry starts a fresh note, and None without one (a sync or the server stopping
        never re-creates a deleted note). An emptied note's entries go into the fresh note."""
        link = self.store.note_link(namespace, conversation)
        if link is not None and not vault_path(self.config.vault, link.path).is_file():
            gone, link = link, self._renamed(link)
            if link is None:
                self._forget(gone)  # the user deleted the note: the conversation starts afresh
                if kept:
                    log.warning("%d turn(s) of conversation %s were dropped: its chat note was "
                                "deleted before they could be written", len(kept), conversation)
                    kept = []
            else:
                self.store.link_note(link)
        elif link is not None and self._emptied(link.path):
            log.warning("%s stayed empty: the user emptied it, conversation %s starts afresh",
                        link.path, conversation)
            self._forget(link)
            link = None
        entries = [*kept, *([entry] if entry is not None else [])]
        if not entries:
            return None
        section = "\n".join(e.section for e in entries)
        private, created = any(e.private for e in entries), entries[-1].created
        topic = next((e.topic for e in entries if e.topic), None)
        if link is None:
            matched, link = self._create(namespace, conversation, section, private=private,
                                         created=created)
            return matched and not kept, link

        def mutate(cm: CommentedMap) -> None:
            set_value(cm, "date modified", local_day(created))
            if private:
                add_tag(cm, "private")
            if topic and not cm.get("cluster"):
                set_value(cm, "cluster", topic)

        read_hash, new_hash = append_to_note(self.config.vault, link.path, section, mutate)
        # entries kept until now are in the note, not yet in the log: rebuild it from the note
        return (read_hash == link.hash and not kept,
                NoteLink(namespace, conversation, link.path, new_hash))

    def _emptied(self, rel: str) -> bool:
        """Whether the note at `rel` is empty and has stayed so for `EMPTY_GRACE_S` since it was
        first seen empty: emptied by the user, no longer an editor's save in progress."""
        try:
            empty = not vault_path(self.config.vault, rel).read_bytes().strip()
        except OSError:
            empty = False
        if not empty:
            self._empty_since.pop(rel, None)
            return False
        first = self._empty_since.setdefault(rel, time.monotonic())
        return time.monotonic() - first >= EMPTY_GRACE_S

    def _renamed(self, link: NoteLink) -> NoteLink | None:
        """Where the note of `link`, gone from its path, is now in the chats folder: a chat note
        of the same conversation (the one still holding the bytes the log matched, if any: a
        plain rename), linked with the log's hash so the append compares with it as before; None
        when there is none (the note was deleted, or moved out of the folder unannounced)."""
        settings = self._settings()
        folder = settings.chats_folder.strip("/")
        root = vault_path(self.config.vault, folder)
        found: list[tuple[bool, str]] = []
        # a private conversation and its public twin claim the same id: not each other's note
        others = {k.path for k in self.store.note_links()
                  if (k.namespace, k.conversation) != (link.namespace, link.conversation)}
        for name in sorted(iter_note_paths(root)) if root.is_dir() else []:
            rel = f"{folder}/{name}"
            if rel in others:
                continue
            try:
                note_hash, chat = self._read(rel, settings)
            except (OSError, OraError):
                continue
            if chat is not None and (chat.namespace, chat.conversation) == (
                    link.namespace, id_of(link.conversation)):
                found.append((note_hash != link.hash, rel))
        return replace(link, path=min(found)[1]) if found else None

    def _create(self, namespace: str, conversation: str, section: str, *, private: bool,
                created: str) -> tuple[bool, NoteLink]:
        # Turns logged before conversations had notes are written into the new note first.
        earlier = self.store.turns(namespace, conversation, private=True)
        sections = [turn_section(t.role, t.content, t.created, private=t.private)
                    for t in earlier]
        text = new_note(id_of(conversation), namespace, created)
        if private or any(t.private for t in earlier):
            text = text.replace("tags: []", "tags:\n  - private", 1)
        body = "\n".join(["", *sections, section])
        rel, new_hash = self._new_file(namespace, conversation, text + body)
        # A brand-new note matches a log that holds nothing of it yet.
        return not earlier, NoteLink(namespace, conversation, rel, new_hash)

    def _new_file(self, namespace: str, conversation: str, text: str) -> tuple[str, str]:
        """Create a new chat note of the conversation at its first free name; its path and
        hash."""
        base = self.new_note_path(namespace, conversation)
        for n in range(1, 1000):
            rel = base if n == 1 else base.removesuffix(".md") + f" {n}.md"
            try:
                return rel, create_note(self.config.vault, rel, text)
            except Conflict:
                continue
        raise Conflict(f"no free file name for conversation {conversation!r} under {base}")

    # ---- reading back ------------------------------------------------------------------------

    def _settings(self) -> VaultSettings:
        """The vault's settings: which folders ora.yaml makes private."""
        return load_vault_settings(self.config.vault, self.config.data)

    def _read(self, rel: str, settings: VaultSettings | None = None) -> Read:
        """The note's hash and conversation; Conflict when it is empty (as for the writer: most
        often an editor between its truncate and its write, never a note that ceased to be a
        chat), OSError or OraError when it cannot be read."""
        data = vault_path(self.config.vault, rel).read_bytes()
        check_not_empty(data, rel)
        text = decode_note(data, rel, int(self.config.max_file_bytes))
        return content_hash(data), parse_chat(parse_note(text, rel), settings or self._settings())

    def _newly_private(self, settings: VaultSettings, link: NoteLink) -> bool:
        """The note lies in a private folder (ora.yaml changed, or it was moved there) while the
        log holds public turns of it: its bytes did not change, but its privacy did."""
        return is_private_path(settings, link.path) and bool(
            self.store.turns(link.namespace, link.conversation, private=False, limit=1))

    def _unchanged(self, rel: str, note_hash: str) -> bool:
        try:
            return content_hash(vault_path(self.config.vault, rel).read_bytes()) == note_hash
        except OSError:
            return False

    def _import(self, link: NoteLink, read: Read) -> list[Turn]:
        return self._import_many([(link, read)])[0]

    def _import_many(
        self, notes: Sequence[tuple[NoteLink, tuple[str, ChatNote | None]]],
    ) -> list[list[Turn]]:
        """Rebuild these conversations from their notes: log first, then recall (one delete,
        one embedding pass and one upsert per namespace)."""
        done: list[list[Turn]] = []
        by_namespace: dict[str, list[Turn]] = {}
        for link, (note_hash, chat) in notes:
            turns = [] if chat is None else [
                LoggedTurn(t.role, t.content, t.created,
                           count_tokens(self.embedder.tokenizer, t.content), t.private)
                for t in chat.turns]
            link = NoteLink(link.namespace, link.conversation, link.path, note_hash)
            done.append(self.store.replace_conversation(
                link, turns, {} if chat is None else chat.summaries))
            if chat is not None and chat.old_marks:
                self._rewrite_marks(link, chat.old_marks)
            by_namespace.setdefault(link.namespace, []).extend(done[-1])
        for namespace in {link.namespace for link, _ in notes}:
            episodic = self.episodic(namespace)
            episodic.drop_conversations([link.conversation for link, _ in notes
                                         if link.namespace == namespace])
            stored = by_namespace[namespace]
            if stored:
                episodic.add_many(stored, self.embedder.embed([t.content for t in stored]))
        return done

    def _rewrite_marks(self, link: NoteLink, marks: dict[bool, str]) -> None:
        """Write summaries' watermarks read as a count of turns (notes written before
        `covers_mark`) in the form naming the turns covered, once: a count read again after a
        turn is deleted by hand would cover other turns. A note changed meanwhile keeps its
        count (read again at the next sync)."""
        def mutate(cm: CommentedMap) -> None:
            for private, mark in marks.items():
                set_value(cm, SUMMARY_KEYS[private][1], mark)

        try:
            new_hash = edit_frontmatter(self.config.vault, link.path, mutate, link.hash)
        except (OSError, OraError) as err:
            log.warning("summary watermark not rewritten in %s: %s", link.path, err)
            return
        self.store.link_note(replace(link, hash=new_hash))

    def sync(self) -> SyncReport:
        """Bring the log and recall in line with the chat notes (cheap when nothing changed:
        one hash per note)."""
        with self._lock:
            self.flush()
            links = {(k.namespace, k.conversation): k for k in self.store.note_links()}
            settings = self._settings()
            folder = settings.chats_folder.strip("/")
            root = vault_path(self.config.vault, folder)  # only the chats folder is walked
            paths = ({f"{folder}/{rel}" for rel in iter_note_paths(root)} if root.is_dir()
                     else set())
            paths |= {k.path for k in links.values()
                      if vault_path(self.config.vault, k.path).is_file()}
            seen: set[tuple[str, str]] = set()
            unreadable: set[str] = set()
            imported: list[str] = []
            by_path = {k.path: key for key, k in links.items()}
            pending: list[tuple[NoteLink, tuple[str, ChatNote | None]]] = []
            parsed: list[tuple[str, str, ChatNote]] = []
            for rel in sorted(paths):
                known_key = by_path.get(rel)
                if known_key is not None and self._newly_private(settings, links[known_key]):
                    links[known_key] = replace(links[known_key], hash="")  # rebuild it
                if known_key is not None and known_key not in seen and self._unchanged(
                        rel, links[known_key].hash):
                    seen.add(known_key)  # the log already matches this note: no parse
                    continue
                try:
                    note_hash, chat = self._read(rel, settings)
                    self._empty_since.pop(rel, None)
                except Conflict:  # empty: an editor's save between its truncate and its write
                    if not self._emptied(rel):  # (it hides no tag: its conversation stays as
                        unreadable.add(rel)  # it was), unless it stays empty: emptied
                    continue
                except (OSError, OraError):
                    unreadable.add(rel)  # not a reason to forget its conversation, but a
                    if known_key is not None:  # reason to keep it from non-private requests
                        self._seal(links[known_key])
                    continue
                if chat is not None:
                    parsed.append((rel, note_hash, chat))
            claims = self._private_claims(links, paths, parsed)
            for rel, note_hash, chat in parsed:  # after every note is read: `_key_of`
                key = self._key_of(rel, chat, links, claims)
                known = links.get(key)
                if key in seen or (known is not None and known.path != rel
                                   and known.path in paths):
                    continue  # a copy of another conversation's note: the first one counts
                seen.add(key)
                if known is not None and known.path == rel and known.hash == note_hash:
                    continue
                try:
                    check_conversation(chat.conversation)
                except BadRequest:
                    continue
                pending.append((NoteLink(*key, rel, note_hash), (note_hash, chat)))
                imported.append(chat.conversation)
            self._import_many(pending)
            dropped = []
            for key, link in links.items():
                if key not in seen and link.path not in unreadable:
                    self._forget(link)
                    dropped.append(id_of(link.conversation))
        return SyncReport(imported, dropped)

    def _private_claims(self, links: dict[tuple[str, str], NoteLink], paths: set[str],
                        parsed: Sequence[tuple[str, str, ChatNote]],
                        ) -> dict[tuple[str, str], set[str]]:
        """The notes of private conversations on disk, by (namespace, id): the ones read now
        that are private (`ChatNote.holds_private`), and the unchanged ones of conversations the log
        holds as private."""
        held = self.store.private_conversations()
        claims: dict[tuple[str, str], set[str]] = {}
        for rel, _, chat in parsed:
            if chat.holds_private:
                claims.setdefault((chat.namespace, chat.conversation), set()).add(rel)
        for key, link in links.items():
            if key in held and key[1] == id_of(key[1]) and link.path in paths:
                claims.setdefault(key, set()).add(link.path)
        return claims

    @staticmethod
    def _key_of(rel: str, chat: ChatNote, links: dict[tuple[str, str], NoteLink],
                claims: dict[tuple[str, str], set[str]]) -> tuple[str, str]:
        """The log's key of the conversation the note at `rel` holds: the key the log already
        gives that note; else its id's public twin (`twin_of`) when it is a public note and
        another note of a private conversation claims the same id (the twin's note names the
        id the user gave, nothing else: it is read as any public conversation's); else its id."""
        key = (chat.namespace, chat.conversation)
        twin = (chat.namespace, twin_of(chat.conversation))
        for mine in (twin, key):
            if mine in links and links[mine].path == rel:
                return mine
        if not chat.holds_private and claims.get(key, set()) - {rel}:
            return twin
        return key

    def key_for(self, namespace: str, conversation: str, *, private: bool) -> str:
        """The log's key of the conversation a request naming `conversation` means. Private
        mode: that id's own conversation, private or not. Outside private mode an id a private
        conversation holds (`hidden`) names its public twin, created as an unknown id's would be
        (`twin_of`); so does an id whose twin outlived it: the answers outside private mode are
        the same whether or not a private conversation holds the id."""
        if private:
            return conversation
        twin = twin_of(check_conversation(conversation))
        if self.store.exists(namespace, twin):
            own_public = self.store.exists(namespace, conversation) and not self.hidden(
                namespace, conversation)
            return conversation if own_public else twin
        if self.store.exists(namespace, conversation) and self.hidden(namespace, conversation):
            return twin
        return conversation

    def _forget(self, link: NoteLink) -> None:
        self.store.drop_conversation(link.namespace, link.conversation)
        self.episodic(link.namespace).drop_conversations([link.conversation])
