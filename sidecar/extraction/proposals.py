"""What extraction proposes and drops, and the data both extractors and the gate share.

A source is a conversation (its chat note, one turn per message) or a document's resource note
(`ora ingest`'s, one "turn" per paragraph, role `document`: the user's own material, so not
AI-derived unless a model reworded it, and no one to push back). A proposal's id is a digest of
its source and its normalised text, so the same claim of the same source has the same id on
every run, whichever extractor found it: the note records the ids it was extracted into
(`extracted`), and a later run proposes only new ones.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from sidecar.memory.chat_note import NoteTurn
from sidecar.schema import load_json

REASONS = ("pushback", "duplicate", "not-a-claim")
_SPACES = re.compile(r"\s+")
_EDGES = re.compile(r"^[\W_]+|[\W_]+$")


@cache
def extraction_data() -> dict[str, Any]:
    """`schema/extraction.json`."""
    return dict(load_json("extraction.json"))


def normalise(text: str) -> str:
    """Lower case, one space, no punctuation at either end: what "the same text" means."""
    return _EDGES.sub("", _SPACES.sub(" ", text.casefold())).strip()


def proposal_id(source: str, text: str) -> str:
    digest = hashlib.sha256(json.dumps([source, normalise(text)],
                                       ensure_ascii=False).encode("utf-8")).hexdigest()
    return digest[:16]


@dataclass(frozen=True)
class Turn:
    """One turn of the source as extraction reads it: its position among the turns."""

    n: int  # 1-based, in the order of the note
    role: str  # "user" | "assistant" | "document"
    content: str
    private: bool
    line_start: int
    line_end: int

    @classmethod
    def of(cls, n: int, turn: NoteTurn) -> Turn:
        return cls(n, turn.role, turn.content, turn.private, turn.line_start, turn.line_end)


@dataclass(frozen=True)
class Source:
    """What extraction reads: a chat note, or a document's resource note (`kind`)."""

    id: str  # the conversation id; a resource note's path
    path: str
    hash: str  # of the note's bytes when read: accepting writes onto exactly these
    turns: list[Turn]
    nexus: list[str]
    private: bool  # the whole note is private
    extracted: frozenset[str]  # ids recorded in the note's `extracted` property
    kind: str = "conversation"  # | "document"

    @property
    def conversation(self) -> str | None:
        return self.id if self.kind == "conversation" else None

    def link(self, turn: Turn) -> str:
        """A wikilink to the note naming the turn's lines (`source_document`)."""
        target = self.path.removesuffix(".md")
        span = (f"line {turn.line_start}" if turn.line_start == turn.line_end
                else f"lines {turn.line_start}-{turn.line_end}")
        name = target.rsplit("/", 1)[-1]
        return f"[[{target}|{name}, {span}]]"


@dataclass(frozen=True)
class Candidate:
    """A claim an extractor found, before the gate: its text and the turn it came from."""

    text: str
    turn: Turn
    title: str = ""
    subtype: str = ""
    reworded: bool = False  # a model's wording, not the turn's own words (llm.py)
    stated: bool = True  # False: its turn only asks it or denies it (llm.py), no claim of it
    # private whatever its turn: a model's words written after it read a private turn (llm.py)
    private: bool = False


@dataclass(frozen=True)
class Match:
    """An existing engram's claim a proposal duplicates or contradicts."""

    path: str
    text: str
    line_start: int
    line_end: int
    similarity: float
    private: bool
    score: float = 0.0  # the judge's score (contradictions)
    evidence: dict[str, Any] = field(default_factory=dict)


@dataclass
class Proposal:
    id: str
    title: str
    text: str
    subtype: str
    turn: Turn
    source_document: str
    nexus: list[str]
    contradicts: list[Match] = field(default_factory=list)
    reworded: bool = False
    private_words: bool = False  # `Candidate.private`: may hold a private turn's words

    @property
    def ai_derived(self) -> bool:
        """It originated AI-side: the assistant said it, or a model wrote its words (the user's
        or a document's claim reworded is the model's text, not theirs)."""
        return self.turn.role == "assistant" or self.reworded

    @property
    def private(self) -> bool:
        """Its turn was private, or a model wrote it having read a private turn."""
        return self.turn.private or self.private_words

    def as_json(self, path: str) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "text": self.text,
                "ai_derived": self.ai_derived, "subtype": self.subtype, "nexus": self.nexus,
                "source": {"path": path, "line_start": self.turn.line_start,
                           "line_end": self.turn.line_end},
                "contradicts": sorted({m.path for m in self.contradicts})}


@dataclass(frozen=True)
class Dropped:
    text: str
    reason: str  # one of REASONS
    of: str | None = None  # the engram a duplicate repeats

    def as_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"text": self.text, "reason": self.reason}
        if self.of is not None:
            doc["of"] = self.of
        return doc


@dataclass
class Plan:
    """One extraction: what was proposed, what was dropped, and which extractor ran."""

    source: Source
    extractor: str
    proposals: list[Proposal]
    dropped: list[Dropped]
    fallback: str | None = None  # why the LLM extractor's answer was not used
    # what the extractor found, before the gate: a review's plan is gated again from these
    # when it is accepted (extract.py `regated`), never extracted again
    candidates: list[Candidate] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "extractor": self.extractor,
            "conversation": self.source.conversation,
            "note": self.source.path,
            "proposals": [p.as_json(self.source.path) for p in self.proposals],
            "dropped": [d.as_json() for d in self.dropped],
        }
        if self.fallback is not None:
            doc["fallback"] = self.fallback
        return doc
