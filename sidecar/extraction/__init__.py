"""Extraction: conversations become proposed engrams through a quality gate (docs/extraction.md)."""

from sidecar.extraction.accept import Accepted, Undone, accept, undo_extraction
from sidecar.extraction.engrams import IndexEngrams
from sidecar.extraction.extract import chosen, edited, load_conversation, plan_extraction
from sidecar.extraction.proposals import Conversation, Dropped, Plan, Proposal

__all__ = [
    "Accepted",
    "Conversation",
    "Dropped",
    "IndexEngrams",
    "Plan",
    "Proposal",
    "Undone",
    "accept",
    "chosen",
    "edited",
    "load_conversation",
    "plan_extraction",
    "undo_extraction",
]
