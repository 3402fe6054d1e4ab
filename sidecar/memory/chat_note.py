"""The chat note: a conversation as a markdown note anyone can read (pure text in, text out).

'The Vault': "Conversations are stored as markdown files with timestamps, attribution, and topic
metadata." One note per conversation, `type: chat`, with the conversation id and namespace in its
frontmatter, then one section per turn:

    ## You · 2026-11-30 08:40:12 UTC

    What leavens sourdough bread?

    ## Ora · 2026-11-30 08:40:14 UTC

    A starter of wild yeast [1].

    Sources:
    - [1] [[Resources/Sourdough|Sourdough]], lines 10-12

A turn asked in private mode says so in its heading (`· private`); so does the whole note, when
it carries the private tag (Ora adds it with the first private turn; its owner may add it by
hand) or lies in a folder ora.yaml makes private: every turn of a private note is private, as
the index keeps the note itself out of non-private search, and the summary of non-private turns
is not read from it. A note holding a private turn stays out of non-private search with its tag
taken off (`vault/chat_format.py`), where a conversation still reads its other turns as public.
An answer that could not be generated is written as `## Ora · … · no answer` with the reason,
and is not a turn.
The role labels and markers are `schema/memory.json` `chat_notes`. Parsing reads back exactly
the turns the memory log holds, so the log can be rebuilt from the notes; the running summaries
live in the frontmatter (`summary` / `summary covers`, and `private summary` /
`private summary covers`). A summary's `summary covers` names the last turn it folded in (its
heading's time and label) and a digest of every turn of its scope up to that one, not their
number: deleting or inserting turns by hand never makes it cover other turns. When the turns it
covered are no longer all in the note as they were (one deleted or edited by hand, one inserted
among them), no prefix of the note's turns has that digest: the summary is stale, it is not read,
and the next summary is made afresh from the turns the note holds. Notes written before this
counted the turns covered (`summary covers: 4`): a count is read as before, once
(`ChatNote.old_marks` holds the new value, which `notes.py` writes in its place).

A turn's text is text from outside (a model's answer; a question sent over HTTP), so it can
neither forge a turn nor run: it is written without control characters, inert
(`vault/inert.py`), with any block it leaves open closed (a fence left open would take in the
next turn, and the next turn's fence would close it: its fenced image would be drawn), and each
of its lines that would read as a turn heading (`## You · …`, `## Ora · …`, whatever follows)
gets a backslash in front — Markdown's own escape, shown as the same text, never as a heading.
A line that already starts with backslashes before such a heading gets one more, so reading
removes exactly one: every text reads back as written. A list of sources the text ends with
itself is marked, so it is not taken for Ora's and dropped. Notes written before this read the
same.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, Protocol

from sidecar.documents.extract import clean_text
from sidecar.documents.formats import cited_span, document_link
from sidecar.vault.chat_format import ChatFormat, chat_format
from sidecar.vault.inert import closed, encodable, inert, inert_mark
from sidecar.vault.new_notes import safe_name
from sidecar.vault.note import Note
from sidecar.vault.vault_settings import VaultSettings, note_private

_STAMP = "%Y-%m-%d %H:%M:%S"
SUMMARY_KEYS = {False: ("summary", "summary covers"),
                True: ("private summary", "private summary covers")}
_DIGEST_CHARS = 16  # of a watermark's sha256: 64 bits tell one run of turns from another


@dataclass(frozen=True)
class NoteTurn:
    role: str
    content: str
    created: str  # ISO 8601, UTC, as the memory log stores it
    private: bool
    line_start: int = 0  # the file lines of the turn's content (1-based; 0 when not from a note)
    line_end: int = 0


@dataclass(frozen=True)
class ChatNote:
    """What a chat note holds for memory."""

    conversation: str
    namespace: str
    turns: list[NoteTurn]
    summaries: dict[bool, tuple[str, int]]  # scope private? → (text, turns of the scope covered)
    private: bool = False  # the note is private (its tag, or its folder): every turn is private
    # scope private? → the watermark (`covers_mark`) to write over one read as a count of turns
    old_marks: dict[bool, str] = field(default_factory=dict)

    @property
    def holds_private(self) -> bool:
        """Whether it holds a private conversation: private itself (tag, folder) or holding a
        private-mode turn. A public conversation of the same id is kept apart from it (its
        public twin, `memory/notes.py`)."""
        return self.private or any(t.private for t in self.turns)


class SaidTurn(Protocol):
    """A turn as a watermark sees it: a note's (`NoteTurn`) or the log's (`store.Turn`)."""

    @property
    def role(self) -> str: ...

    @property
    def created(self) -> str: ...

    @property
    def content(self) -> str: ...


def note_rel(folder: str, namespace: str, conversation: str, default_namespace: str) -> str:
    """Where a new conversation's note goes: `<folder>/<id>.md`, in a sub-folder per namespace
    other than the default; ':' (allowed in ids, not in file names) becomes '-'. Both names are
    ones a file may have anywhere, as other new notes' (`safe_name`: `CON note.md`, never a
    Windows device's `CON.md`)."""
    name = safe_name(conversation.replace(":", "-"), fallback=conversation) + ".md"
    sub = [safe_name(namespace, fallback=namespace)] if namespace != default_namespace else []
    parts = [folder.strip("/"), *sub, name]
    return "/".join(p for p in parts if p)


def stamp(created: str) -> str:
    return datetime.fromisoformat(created).astimezone(UTC).strftime(_STAMP) + " UTC"


def _iso(text: str) -> str:
    return datetime.strptime(text, _STAMP).replace(tzinfo=UTC).isoformat(timespec="seconds")


def local_day(created: str) -> date:
    """The day of a turn's instant where the user is: the file's modification day as lint reads
    it, so a note written now has a current `date modified` (a UTC day is a day off in the
    evening west of Greenwich, or the morning east of it)."""
    return datetime.fromisoformat(created).astimezone().date()


def new_note(conversation: str, namespace: str, created: str, newline: str = "\n") -> str:
    """A new chat note's frontmatter and title (string values JSON-quoted: valid YAML)."""
    day = local_day(created).isoformat()
    lines = ["---", "type: chat", "nexus: []", "tags: []", f"date created: {day}",
             f"date modified: {day}", f"conversation: {json.dumps(conversation)}",
             f"namespace: {json.dumps(namespace)}", "---", f"# {conversation}"]
    return newline.join(lines) + newline


def source_line(c: dict[str, Any], flag_text: str) -> str:
    title = c.get("title") or c["path"].removesuffix(".md").rsplit("/", 1)[-1]
    # a document opens at its page (a Markdown link where its name holds a `#`, `[`…)
    link = (document_link(c["path"], c.get("page"), title) if c.get("link")
            else f"[[{c['path'].removesuffix('.md')}|{title}]]")
    return f"- [{c['n']}] {link}, {cited_span(c)}{flag_text}"


def turn_section(
    role: str, content: str, created: str, *, private: bool, sources: Sequence[str] = (),
    no_answer: bool = False,
) -> str:
    """One turn (or an answer that was not generated), to append after a blank line."""
    fmt = chat_format()
    marks = ([fmt.private_marker] if private else []) + ([fmt.no_answer_marker]
                                                          if no_answer else [])
    heading = f"## {fmt.labels[role]} · {stamp(created)}" + "".join(f" · {m}" for m in marks)
    parts = [heading, fmt.escaped.sub(r"\\\1", note_content(content).strip())]
    if sources:
        parts.append("\n".join([fmt.sources_heading, *sources]))
    return "\n\n".join(parts) + "\n"


def note_content(content: str) -> str:
    """A turn's text as its note holds it and parsing reads it back: no control character (a
    NUL makes Ora take the note for a binary file and lose the conversation; ESC, BEL would
    reach a terminal), one kind of line break (a lone carriage return ends a line for Obsidian,
    not for the turn headings), trimmed as its section holds it, inert, no block left open
    (`closed`: a fence open at its end would take in the next turn), and a list of sources of
    its own at its end marked (an invisible mark after `Sources:`), so that reading never
    takes it for the list Ora appends and drops it. Its blocks are read as the note holds
    them: trimmed (an indented first line trimmed after could open a fence) and with its
    turn-heading lines escaped (a heading made text changes what follows it: `10) ```` `
    after it opens no list, nor its fence), which `turn_section` then does again."""
    fmt = chat_format()
    held = fmt.escaped.sub(r"\\\1", clean_text(encodable(content)).strip())
    text = _unescape(closed(inert(held)), fmt)
    if _strip_sources(text.strip(), fmt) != text.strip():
        head, sep, tail = text.rpartition("\n" + fmt.sources_heading + "\n")
        text = head + sep.removesuffix("\n") + inert_mark() + "\n" + tail
    return text


def _unescape(content: str, fmt: ChatFormat) -> str:
    return re.sub(fmt.escaped.pattern.replace("^(", r"^\\(", 1), r"\1", content, flags=re.M)


def _strip_sources(content: str, fmt: ChatFormat) -> str:
    """The answer without the trailing list of sources it was written with."""
    head, sep, tail = content.rpartition("\n" + fmt.sources_heading + "\n")
    if sep and all(line.startswith("- [") for line in tail.strip().splitlines()):
        return head.rstrip()
    return content


def _prefix_digests(turns: Sequence[SaidTurn]) -> Iterator[str]:
    """The digest of the first 1, 2, … of `turns`: each turn's role, heading time and text (as
    the note holds them; the log's text may keep the spaces the note's section trims)."""
    digest = hashlib.sha256()
    for turn in turns:
        digest.update(json.dumps([turn.role, stamp(turn.created), turn.content.strip()],
                                 ensure_ascii=False).encode())
        yield digest.hexdigest()[:_DIGEST_CHARS]


def covers_mark(turns: Sequence[SaidTurn]) -> str:
    """The `summary covers` value of a summary that folded in `turns` (its scope's turns from
    the first, in order; at least one): the last one's heading time and label, for a reader,
    then the digest of them all, which `covered_count` finds again among the note's turns."""
    *_, digest = _prefix_digests(turns)
    last = turns[-1]
    return f"{stamp(last.created)} · {chat_format().labels[last.role]} · {digest}"


def covered_count(mark: object, turns: Sequence[SaidTurn]) -> int | None:
    """How many of the scope's `turns` a `summary covers` value covers: the prefix whose digest
    it names (a count, the old form, is taken as it is). None when no prefix has it (a covered
    turn was deleted or edited by hand, or one inserted among them: the summary is stale) or
    the count is not one of the turns."""
    if isinstance(mark, int) and not isinstance(mark, bool):
        return mark if 0 < mark <= len(turns) else None
    if not isinstance(mark, str):
        return None
    digest = mark.rsplit("·", 1)[-1].strip()
    return next((n for n, d in enumerate(_prefix_digests(turns), 1) if d == digest), None)


def _summaries(
    frontmatter: dict[str, Any], private_note: bool, turns: Sequence[NoteTurn],
) -> tuple[dict[bool, tuple[str, int]], dict[bool, str]]:
    """The summaries the note holds that still cover turns it holds, each with how many of its
    scope's turns it covers; and, for those whose watermark is a count (the old form), the
    watermark to write in its place."""
    found: dict[bool, tuple[str, int]] = {}
    old_marks: dict[bool, str] = {}
    for private, (text_key, mark_key) in SUMMARY_KEYS.items():
        if private_note and not private:
            continue
        text, mark = frontmatter.get(text_key), frontmatter.get(mark_key)
        scope = [t for t in turns if private or not t.private]
        count = covered_count(mark, scope)
        if not isinstance(text, str) or not text.strip() or count is None:
            continue  # none, or stale: the next summary is made from the turns present
        found[private] = (text.strip(), count)
        if not isinstance(mark, str):
            old_marks[private] = covers_mark(scope[:count])
    return found, old_marks


def ends_with_question(note: Note) -> bool:
    """Whether the chat note's last section is a question (a user turn) with nothing after it,
    not even a `no answer` line: its answer was never written (the server died generating it)."""
    fmt = chat_format()
    heads = list(fmt.heading.finditer(note.body))
    return bool(heads) and heads[-1]["label"] == fmt.labels["user"] and (
        fmt.no_answer_marker not in fmt.marks(heads[-1]))


def parse_chat(note: Note, settings: VaultSettings) -> ChatNote | None:
    """The conversation a chat note holds, or None when the note is not one of Ora's. A note
    private by its folder (ora.yaml `private`) is private as one tagged so: `note_private`."""
    private = note_private(note, settings)
    conversation, namespace = note.frontmatter.get("conversation"), note.frontmatter.get(
        "namespace")
    if note.type != "chat" or not isinstance(conversation, str) or not isinstance(namespace, str):
        return None
    fmt = chat_format()
    role_of = {label: role for role, label in fmt.labels.items()}
    heads = list(fmt.heading.finditer(note.body))
    turns: list[NoteTurn] = []
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(note.body)
        marks = fmt.marks(m)
        raw = note.body[m.end():end]
        content = raw.strip().replace("\r\n", "\n")
        if fmt.no_answer_marker in marks or not content:
            continue
        role = role_of[m["label"]]
        if role == "assistant":
            content = _strip_sources(content, fmt)
        content = _unescape(content, fmt)
        first = note.body_line + note.body.count("\n", 0, m.end() + len(raw) - len(raw.lstrip()))
        turns.append(NoteTurn(role, content, _iso(m["stamp"]),
                              private or fmt.private_marker in marks,
                              first, first + content.count("\n")))
    summaries, old_marks = _summaries(note.frontmatter, private, turns)
    return ChatNote(conversation, namespace, turns, summaries, private, old_marks)
