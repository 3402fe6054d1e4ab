"""A note's lead: the first sentence of its prose, embedded alone.

A note's first sentence often says what the note is for ("Graph view lets you visualize the
relationships between the notes in your vault"), in the few words a question about it uses; an
embedder trained on sentence pairs places such a sentence far better than a whole chunk, where it
is averaged with the rest (docs/benchmarks.md, "a note's meaning as a whole": the first chunk's
own vector lifted nothing, its first sentence alone four questions of 151). Search lifts a
candidate note by how near its lead is to the query, as much as the embedder's calibration says
(`models.json` `fusion.leads`); only an embedder calibrated so gets leads written
(`wanted`), after each pass of the index (`Index._refresh_leads`), into the ledger's `note_leads`
table, each keyed by its text and the embedder, so an unchanged lead is not embedded again.
"""

from __future__ import annotations

import hashlib
import re

from sidecar.models.catalogue import calibration
from sidecar.vault.links import shown

# A paragraph that starts so is not prose: a heading, a rule, an image or embed, a table, a
# callout or quote, a code fence.
_NOT_PROSE = ("#", "---", "!", "|", ">", "```", "~~~")
# A full stop of the scripts written without spaces ends a sentence with none after it.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*")
_PARAGRAPH = re.compile(r"\n\s*\n")
_LEADING_HEADINGS = re.compile(r"\A(?:#[^\n]*(?:\n|\Z))+")
# A paragraph with no sentence end (an unpunctuated line, a script without full stops) is cut
# here: a lead is a sentence, not a section.
MAX_CHARS = 400
BATCH = 64


def wanted(model_id: str) -> bool:
    """Whether search lifts by leads for the embedder `model_id` (its calibration's `leads`)."""
    return float((calibration(model_id) or {}).get("leads", 0.0)) > 0


def lead(text: str) -> str | None:
    """The first sentence of the first paragraph of prose of a note's first chunk `text`, its
    links as Obsidian shows them and without bold markers; None when the chunk has no prose."""
    for paragraph in _PARAGRAPH.split(text):
        # A heading (or a line of tags) written right above its prose, with no blank line.
        paragraph = _LEADING_HEADINGS.sub("", paragraph.strip()).strip()
        if not paragraph or paragraph.startswith(_NOT_PROSE):
            continue
        sentence = _SENTENCE_END.split(paragraph, maxsplit=1)[0]
        sentence = " ".join(shown(sentence).replace("**", "").split())[:MAX_CHARS]
        return sentence or None
    return None


def key(model_id: str, sentence: str | None) -> str:
    """What a stored lead vector was made from: the embedder and the sentence (none: '')."""
    return hashlib.sha256(f"{model_id}\0{sentence or ''}".encode()).hexdigest()
