"""The durable conversation log: `DATA/memory.sqlite` (ADR-0005 decision 4, first tier).

The ADR keeps the log in Postgres; Ora is local-first, so it is one SQLite file in the data
folder (WAL, one connection guarded by a lock so server threads can share it). Tables:
`conversations` (namespace, id), `turns` (role, content, timestamp, token count, private) and
`summaries`, one running summary per conversation and scope with the id of the last turn it
covers (the watermark). Scope `public` sees only non-private turns; scope `private` sees all.
`chat_notes` maps each conversation to its chat note and the note's hash when the log last
matched it: the note is the truth, this log is a cache of it (`sidecar/memory/notes.py`).

A conversation is keyed by (namespace, key). The key is the user's id, or, for the public twin
of a private conversation of that id (`twin_of`: a non-private ask naming an id a private
conversation holds gets a public conversation of its own, as an unknown id would), the id behind
`TWIN`, a character no user id may hold: no id can take a twin's key, and a log written before
twins existed needs no migration.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sidecar.data_folder import private_file, private_folder
from sidecar.errors import BadRequest

MEMORY_FILE = "memory.sqlite"
_CONVERSATION = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}")
ROLES = ("user", "assistant")
TWIN = "~"  # outside `_CONVERSATION`'s alphabet: a twin's key is never a user's id
_SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
  namespace TEXT NOT NULL, id TEXT NOT NULL, created TEXT NOT NULL, PRIMARY KEY (namespace, id));
CREATE TABLE IF NOT EXISTS turns (
  id INTEGER PRIMARY KEY AUTOINCREMENT, namespace TEXT NOT NULL, conversation TEXT NOT NULL,
  role TEXT NOT NULL, content TEXT NOT NULL, created TEXT NOT NULL, tokens INTEGER NOT NULL,
  private INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS turns_by_conversation ON turns (namespace, conversation, id);
CREATE TABLE IF NOT EXISTS summaries (
  namespace TEXT NOT NULL, conversation TEXT NOT NULL, scope TEXT NOT NULL, text TEXT NOT NULL,
  covered INTEGER NOT NULL, PRIMARY KEY (namespace, conversation, scope));
CREATE TABLE IF NOT EXISTS chat_notes (
  namespace TEXT NOT NULL, conversation TEXT NOT NULL, path TEXT NOT NULL, hash TEXT NOT NULL,
  PRIMARY KEY (namespace, conversation));
"""


def check_conversation(conversation: str) -> str:
    """The id, or BadRequest: 1-128 letters, digits, '_', '.', ':' or '-'."""
    if not _CONVERSATION.fullmatch(conversation):
        raise BadRequest(
            f"conversation id {conversation!r} is not valid: use 1-128 letters, digits, "
            "'_', '.', ':' or '-', starting with a letter or digit"
        )
    return conversation


def twin_of(conversation: str) -> str:
    """The log's key of the public twin of the conversation `conversation` (a user's id)."""
    return TWIN + conversation


def id_of(key: str) -> str:
    """The user's id a log key stands for (a twin's is its private conversation's id)."""
    return key.removeprefix(TWIN)


def check_key(key: str) -> str:
    """A log key (an id, or a twin's key), or BadRequest as `check_conversation`."""
    check_conversation(id_of(key))
    return key


def scope_of(private: bool) -> str:
    return "private" if private else "public"


def now() -> str:
    """A turn's timestamp: UTC, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Turn:
    id: int
    conversation: str
    role: str
    content: str
    created: str
    tokens: int
    private: bool

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "role": self.role, "content": self.content,
                "created": self.created, "tokens": self.tokens, "private": self.private}


@dataclass(frozen=True)
class Summary:
    text: str
    covered: int  # id of the last turn folded in; 0 when none


@dataclass(frozen=True)
class LoggedTurn:
    """A turn as read from a chat note, before the log gives it an id."""

    role: str
    content: str
    created: str
    tokens: int
    private: bool


@dataclass(frozen=True)
class NoteLink:
    namespace: str
    conversation: str
    path: str
    hash: str


class MemoryStore:
    """The log of every conversation in one data folder, all namespaces."""

    def __init__(self, path: Path) -> None:
        private_file(private_folder(path.parent) / path.name)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        self._guard = threading.Lock()

    def _rows(self, sql: str, args: tuple[Any, ...]) -> list[Any]:
        with self._guard:
            return self._db.execute(sql, args).fetchall()

    def append(
        self, namespace: str, conversation: str, role: str, content: str, *, tokens: int,
        private: bool, created: str | None = None,
    ) -> Turn:
        """Store one turn (creating the conversation if new) and return it with its id."""
        if role not in ROLES:
            raise BadRequest(f"unknown role {role!r}: choose from {', '.join(ROLES)}")
        created = created or now()
        with self._guard, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "INSERT OR IGNORE INTO conversations VALUES (?, ?, ?)",
                (namespace, check_key(conversation), created),
            )
            cur = self._db.execute(
                "INSERT INTO turns (namespace, conversation, role, content, created, tokens, "
                "private) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (namespace, conversation, role, content, created, tokens, int(private)),
            )
        assert cur.lastrowid is not None
        return Turn(cur.lastrowid, conversation, role, content, created, tokens, private)

    def exists(self, namespace: str, conversation: str) -> bool:
        return bool(self._rows("SELECT 1 FROM conversations WHERE namespace = ? AND id = ?",
                               (namespace, conversation)))

    def newest_first(self, namespace: str, conversation: str, *, private: bool) -> Iterator[Turn]:
        """The conversation's turns visible in this scope, newest first, read lazily."""
        before = None
        while True:
            page = self.turns(namespace, conversation, private=private, before=before, limit=64,
                              newest_first=True)
            yield from page
            if len(page) < 64:
                return
            before = page[-1].id

    def turns(
        self, namespace: str, conversation: str, *, private: bool, after: int = 0,
        before: int | None = None, limit: int = -1, newest_first: bool = False,
    ) -> list[Turn]:
        """Turns with after < id < before visible in this scope (private ones only if `private`)."""
        rows = self._rows(
            "SELECT id, conversation, role, content, created, tokens, private FROM turns "
            "WHERE namespace = ? AND conversation = ? AND id > ? AND id < ? AND private <= ? "
            f"ORDER BY id {'DESC' if newest_first else 'ASC'} LIMIT ?",
            (namespace, conversation, after, before if before is not None else 2**62,
             int(private), limit),
        )
        return [Turn(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6])) for r in rows]

    def scope(self, namespace: str, *, private: bool) -> list[Turn]:
        """Every turn of the namespace asked in private mode (`private`) or not, oldest first."""
        rows = self._rows(
            "SELECT id, conversation, role, content, created, tokens, private FROM turns "
            "WHERE namespace = ? AND private = ? ORDER BY id", (namespace, int(private)))
        return [Turn(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6])) for r in rows]

    def summary(self, namespace: str, conversation: str, *, private: bool) -> Summary:
        rows = self._rows(
            "SELECT text, covered FROM summaries WHERE namespace = ? AND conversation = ? "
            "AND scope = ?", (namespace, conversation, scope_of(private)))
        return Summary(rows[0][0], rows[0][1]) if rows else Summary("", 0)

    def save_summary(
        self, namespace: str, conversation: str, *, private: bool, summary: Summary
    ) -> None:
        with self._guard:
            self._db.execute(
                "INSERT OR REPLACE INTO summaries VALUES (?, ?, ?, ?, ?)",
                (namespace, conversation, scope_of(private), summary.text, summary.covered),
            )

    def note_link(self, namespace: str, conversation: str) -> NoteLink | None:
        """The chat note of a conversation and its hash when the log last matched it."""
        rows = self._rows("SELECT path, hash FROM chat_notes WHERE namespace = ? AND "
                          "conversation = ?", (namespace, conversation))
        return NoteLink(namespace, conversation, rows[0][0], rows[0][1]) if rows else None

    def private_conversations(self) -> set[tuple[str, str]]:
        """(namespace, conversation) of every conversation holding a private turn."""
        rows = self._rows("SELECT DISTINCT namespace, conversation FROM turns WHERE private = 1",
                          ())
        return {(r[0], r[1]) for r in rows}

    def seal(self, link: NoteLink) -> list[Turn]:
        """Treat a conversation as private while its note cannot be read: every turn becomes
        private, the public summary goes, and the link's hash is emptied so the note is read
        again (and the conversation rebuilt from it) as soon as it can be. The turns that were
        public until now, as they are stored now."""
        with self._guard, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            rows = self._db.execute(
                "SELECT id, conversation, role, content, created, tokens FROM turns WHERE "
                "namespace = ? AND conversation = ? AND private = 0 ORDER BY id",
                (link.namespace, link.conversation)).fetchall()
            self._db.execute("UPDATE turns SET private = 1 WHERE namespace = ? AND "
                             "conversation = ?", (link.namespace, link.conversation))
            self._db.execute("DELETE FROM summaries WHERE namespace = ? AND conversation = ? "
                             "AND scope = ?", (link.namespace, link.conversation,
                                               scope_of(False)))
            self._db.execute("INSERT OR REPLACE INTO chat_notes VALUES (?, ?, ?, ?)",
                             (link.namespace, link.conversation, link.path, ""))
        return [Turn(r[0], r[1], r[2], r[3], r[4], r[5], True) for r in rows]

    def note_links(self) -> list[NoteLink]:
        rows = self._rows("SELECT namespace, conversation, path, hash FROM chat_notes "
                          "ORDER BY namespace, conversation", ())
        return [NoteLink(*r) for r in rows]

    def link_note(self, link: NoteLink) -> None:
        with self._guard:
            self._db.execute("INSERT OR REPLACE INTO chat_notes VALUES (?, ?, ?, ?)",
                             (link.namespace, link.conversation, link.path, link.hash))

    def replace_conversation(
        self, link: NoteLink, turns: list[LoggedTurn], covers: dict[bool, tuple[str, int]],
    ) -> list[Turn]:
        """Make the log of one conversation exactly `turns` (read from its note), with the
        summaries `covers` (scope private? → (text, how many of the scope's turns it covers, as
        the note's watermark found them among its turns: `chat_note.covered_count`)), in one
        transaction; the stored turns with their new ids."""
        stored: list[Turn] = []
        with self._guard, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._delete(link.namespace, link.conversation)
            self._db.execute("INSERT INTO conversations VALUES (?, ?, ?)",
                             (link.namespace, link.conversation,
                              turns[0].created if turns else now()))
            for t in turns:
                cur = self._db.execute(
                    "INSERT INTO turns (namespace, conversation, role, content, created, tokens, "
                    "private) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (link.namespace, link.conversation, t.role, t.content, t.created, t.tokens,
                     int(t.private)))
                assert cur.lastrowid is not None
                stored.append(Turn(cur.lastrowid, link.conversation, t.role, t.content,
                                   t.created, t.tokens, t.private))
            for private, (text, count) in covers.items():
                scope = [t for t in stored if private or not t.private]
                if text and 0 < count <= len(scope):
                    self._db.execute("INSERT INTO summaries VALUES (?, ?, ?, ?, ?)",
                                     (link.namespace, link.conversation, scope_of(private), text,
                                      scope[count - 1].id))
            self._db.execute("INSERT OR REPLACE INTO chat_notes VALUES (?, ?, ?, ?)",
                             (link.namespace, link.conversation, link.path, link.hash))
        return stored

    def drop_conversation(self, namespace: str, conversation: str) -> None:
        """Forget a conversation whose note is gone: turns, summaries, the note link."""
        with self._guard, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._delete(namespace, conversation)

    def _delete(self, namespace: str, conversation: str) -> None:
        for table, column in (("conversations", "id"), ("turns", "conversation"),
                              ("summaries", "conversation"), ("chat_notes", "conversation")):
            self._db.execute(f"DELETE FROM {table} WHERE namespace = ? AND {column} = ?",
                             (namespace, conversation))

    def close(self) -> None:
        with self._guard:
            self._db.close()


def open_store(data: Path) -> MemoryStore:
    """The log of the data folder `data` (`DATA/memory.sqlite`)."""
    return MemoryStore(data / MEMORY_FILE)
