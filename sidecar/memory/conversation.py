"""Three-tier conversation memory (ADR-0005 decision 4): log, window + summary, episodic recall.

`ConversationMemory.context(query)` assembles, for the next model call: the running summary of
turns evicted from the working window, turns of the namespace recalled by similarity to `query`,
and the most recent turns within a token budget. Tokens are counted with the embedding model's
own tokenizer (the ADR approximates 4 characters per token). Evicted turns are folded into the
summary only once: the summary stores the id of the last turn it covers (in the chat note, that
turn's heading and a digest of the turns covered: `chat_note.covers_mark`; a summary whose
covered turns the user deleted or edited by hand is stale, dropped when the log is rebuilt from
the note, and the next one is made afresh from the turns the note still holds). Without a
language model there is no summary; the context says so, and evicted turns stay reachable by
recall.

Every turn is written to the conversation's chat note first (`notes.py`): the note is the truth,
the log and recall are rebuilt from it. A question asked again after a crash kept it unanswered
is that turn (`ChatNotes.append`), and the context leaves it out of the recent turns: the model
is sent the question once, after them.

A memory opened in private mode sees every turn of the conversation and writes to the private
episodic collection; one that is not never sees a private-mode turn, in any tier.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from sidecar.errors import LlmFailed
from sidecar.memory.chat_note import covers_mark, note_content
from sidecar.memory.episodic import Episodic, Recalled
from sidecar.memory.notes import ChatNotes
from sidecar.memory.store import MemoryStore, Summary, Turn, check_conversation, id_of
from sidecar.memory.tokens import TurnEmbedder, count_tokens
from sidecar.models.chat import complete, generator_name
from sidecar.schema import load_json
from sidecar.settings import Config
from sidecar.vault.inert import inert

log = logging.getLogger("sidecar.memory")
Message = dict[str, str]
SUMMARY_PROMPT = (
    "You keep a running summary of a conversation between a person and an assistant that "
    "answers from the person's notes. Fold the new turns into the summary so far. Keep facts, "
    "names, decisions and open questions; drop pleasantries. Reply with the summary only."
)


@dataclass(frozen=True)
class MemoryLimits:
    """Token budgets from settings, recall count and floor from `schema/memory.json`
    (`memory`); tests pass smaller ones."""

    window_tokens: int
    recall_k: int
    recall_min_similarity: float
    recall_tokens: int
    summary_max_tokens: int

    @classmethod
    def load(cls, config: Config) -> MemoryLimits:
        m = load_json("memory.json")["memory"]
        return cls(int(config.memory_window_tokens), int(m["recall_k"]),
                   float(m["recall_min_similarity"]), int(config.memory_recall_tokens),
                   int(config.memory_summary_tokens))


def _turn_lines(turns: list[Turn]) -> str:
    return "\n".join(f"{t.role}: {t.content}" for t in turns)


def _asked_now(window: list[Turn], query: str) -> list[Turn]:
    """`window` without its last turn when that is the question asked now (asked again, its
    answer never written): the question follows the context once, not twice."""
    last = window[-1] if window else None
    if last is not None and last.role == "user" and (
            last.content.strip() == note_content(query).strip()):
        return window[:-1]
    return window


def restore_recall(store: MemoryStore, episodic: Episodic, embedder: TurnEmbedder) -> int:
    """Embed the logged turns that episodic memory lacks; how many there were.

    A turn is logged before it is embedded, so a crash between the two leaves it durable but not
    recallable; this closes that gap when memory is opened.
    """
    restored = 0
    for private in (False, True):
        present = episodic.ids(private)
        missing = [t for t in store.scope(episodic.namespace, private=private)
                   if t.id not in present]
        if missing:
            episodic.add_many(missing, embedder.embed([t.content for t in missing]))
            restored += len(missing)
    return restored


class ConversationMemory:
    """One conversation of one namespace, seen in private mode or not; `key` is the log's key
    of it (a request outside private mode naming a private conversation's id continues that
    id's public twin: `ChatNotes.key_for`)."""

    def __init__(
        self, config: Config, store: MemoryStore, episodic: Episodic, embedder: TurnEmbedder,
        conversation: str, *, private: bool = False, limits: MemoryLimits | None = None,
        notes: ChatNotes | None = None, key: str | None = None,
    ) -> None:
        self.config = config
        self.store = store
        self.episodic = episodic
        self.embedder = embedder
        self.namespace = episodic.namespace
        self.conversation = check_conversation(conversation)
        self.private = private
        self.limits = limits or MemoryLimits.load(config)
        self.notes = notes or ChatNotes(config, store, episodic.chroma, embedder)
        self.notes.episodic(self.namespace, episodic)
        # The log's key: the id itself, or the key of its public twin a request outside
        # private mode names (`ChatNotes.key_for`); `conversation` stays the id the user gave.
        self.key = key if key is not None else self.conversation

    @property
    def note_path(self) -> str | None:
        """The conversation's chat note (vault-relative), once it has one."""
        return self.notes.path_of(self.namespace, self.key)

    def shown_note(self) -> str | None:
        """`note_path` as this memory's answers may name it: not a private note's outside
        private mode (`ChatNotes.shown_path`)."""
        return self.notes.shown_path(self.namespace, self.key, private=self.private)

    def check_writable(self) -> None:
        """BadRequest, before anything is asked, when the conversation's first note could not
        be written (its folder is hidden)."""
        if self.note_path is None:
            self.notes.new_note_path(self.namespace, self.key)

    def remember(self, role: str, content: str, *, sources: Sequence[str] = (),
                 topic: str | None = None) -> Turn | None:
        """Append one turn to the chat note, then log and embed it (one embed call per turn).

        `sources` are the answer's cited passages as note lines; `topic` becomes the note's
        `cluster` if it has none. None when a user's edit to the note, re-read first, dropped it.
        The OraError that kept it from the note: it is kept, to be written with the next turn
        (`ChatNotes.append`).
        """
        return self.notes.append(self.namespace, self.key, role, content,
                                 private=self.private, sources=sources, topic=topic)

    def no_answer(self, reason: str) -> None:
        """Record in the note that no answer was generated (never an assistant turn)."""
        self.notes.append_no_answer(self.namespace, self.key, reason,
                                    private=self.private)

    def turns(self) -> list[Turn]:
        return self.store.turns(self.namespace, self.key, private=self.private)

    def has_earlier_turns(self, query: str) -> bool:
        """Whether this conversation itself holds turns before `query` (a question asked again
        after a crash is not one; turns recalled from other conversations never are)."""
        return bool(_asked_now(self.turns(), query))

    def window(self) -> list[Turn]:
        """The most recent turns whose tokens fit `window_tokens`, oldest first, never starting
        with an answer whose question did not fit."""
        kept: list[Turn] = []
        used = 0
        for turn in self.store.newest_first(self.namespace, self.key,
                                            private=self.private):
            if used + turn.tokens > self.limits.window_tokens:
                break
            kept.append(turn)
            used += turn.tokens
        while kept and kept[-1].role == "assistant":  # its question fell out of the window
            kept.pop()
        return kept[::-1]

    async def summarise(self, window: list[Turn]) -> tuple[Summary, int]:
        """The summary, first folding in turns evicted since its watermark; and how many evicted
        turns it still does not cover (when there is no model, or the model failed)."""
        summary = self.store.summary(self.namespace, self.key, private=self.private)
        evicted = self.store.turns(
            self.namespace, self.key, private=self.private, after=summary.covered,
            before=window[0].id if window else None,
        )
        if not evicted or generator_name(self.config) is None:
            return summary, len(evicted)
        prompt = (f"Summary so far:\n{summary.text or '(none yet)'}\n\n"
                  f"New turns:\n{_turn_lines(evicted)}")
        try:
            messages = [{"role": "system", "content": SUMMARY_PROMPT},
                        {"role": "user", "content": prompt}]
            text = await complete(self.config, messages, private=self.private,
                                  max_tokens=self.limits.summary_max_tokens)
        except LlmFailed as err:  # keep the watermark: these turns are folded in next time
            log.warning("conversation summary not updated: %s", err.message)
            return summary, len(evicted)
        text = inert(text)  # the model's text, bound for the note's frontmatter
        summary = Summary(text, evicted[-1].id)
        self.store.save_summary(self.namespace, self.key, private=self.private,
                                summary=summary)
        # The note names the turns covered, not their number: a turn deleted by hand must not
        # make it cover later ones (`chat_note.covers_mark`).
        covered = self.store.turns(self.namespace, self.key, private=self.private,
                                   before=summary.covered + 1)
        await asyncio.to_thread(self.notes.save_summary, self.namespace, self.key,
                                private=self.private, text=text, covers=covers_mark(covered))
        return summary, 0

    def recall(self, query: str, window: list[Turn]) -> list[Recalled]:
        """Turns similar to `query`, not already in the window, within `recall_tokens`."""
        vector = self.embedder.embed([query])[0]
        found = self.episodic.recall(
            vector, self.limits.recall_k, private=self.private,
            exclude={t.id for t in window}, min_similarity=self.limits.recall_min_similarity,
        )
        kept, used = [], 0
        for item in found:
            cost = count_tokens(self.embedder.tokenizer, item.content)
            if used + cost <= self.limits.recall_tokens:
                kept.append(item)
                used += cost
        return kept

    async def context(self, query: str) -> list[Message]:
        """Summary + recalled + recent turns, as chat messages for the next model call."""
        window = await asyncio.to_thread(self.window)
        summary, unsummarised = await self.summarise(window)
        recalled = await asyncio.to_thread(self.recall, query, window)
        messages: list[Message] = []
        if summary.text:
            messages.append({"role": "system",
                             "content": f"Summary of the earlier conversation:\n{summary.text}"})
        if unsummarised:
            messages.append({"role": "system", "content": (
                f"{unsummarised} earlier turn(s) fell out of the working window and are not "
                "summarised (no language model summary is available); relevant ones may be "
                "recalled below.")})
        if recalled:
            lines = [f"- ({r.role}, conversation {id_of(r.conversation)}) {r.content}"
                     for r in recalled]
            messages.append({"role": "system", "content":
                             "Earlier turns recalled by similarity:\n" + "\n".join(lines)})
        messages += [{"role": t.role, "content": t.content} for t in _asked_now(window, query)]
        return messages
