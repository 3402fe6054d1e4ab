"""Extraction: conversations and documents' resource notes become proposed engrams through a
quality gate (docs/extraction.md)."""

from sidecar.extraction.accept import Accepted, Undone, accept, undo_extraction
from sidecar.extraction.engrams import IndexEngrams
from sidecar.extraction.extract import (
    chosen,
    edited,
    load_source,
    plan_extraction,
    regated,
)
from sidecar.extraction.proposals import Dropped, Plan, Proposal, Source
from sidecar.extraction.reviews import Reviews

__all__ = [
    "Accepted",
    "Dropped",
    "IndexEngrams",
    "Plan",
    "Proposal",
    "Reviews",
    "Source",
    "Undone",
    "accept",
    "chosen",
    "edited",
    "load_source",
    "plan_extraction",
    "regated",
    "undo_extraction",
]
