"""The external web tier: classify search results by the user's registry and corroboration."""

from sidecar.web.classify import classify, parse_results
from sidecar.web.registry import Registry, load_registry, parse_registry
from sidecar.web.urls import matches, registrable_domain

__all__ = [
    "Registry",
    "classify",
    "load_registry",
    "matches",
    "parse_registry",
    "parse_results",
    "registrable_domain",
]
