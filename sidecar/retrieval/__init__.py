"""Hybrid retrieval and ranking: `search()` is the entry point; the rest are its stages."""

from sidecar.retrieval.search import SearchOptions, search, search_sync

__all__ = ["SearchOptions", "search", "search_sync"]
