from __future__ import annotations

import pytest

from sidecar.errors import BadRequest
from sidecar.web.urls import host_of, matches, normalise_url, registrable_domain


@pytest.mark.parametrize(("host", "domain"), [
    ("a.example.co.uk", "example.co.uk"),
    ("b.example.co.uk", "example.co.uk"),
    ("www.nature.com", "nature.com"),
    ("alice.github.io", "alice.github.io"),
    ("127.0.0.1", "127.0.0.1"),
    ("localhost", "localhost"),
])
def test_registrable_domain_follows_the_public_suffix_list(host: str, domain: str) -> None:
    assert registrable_domain(host) == domain


@pytest.mark.parametrize(("pattern", "url", "hit"), [
    ("nature.com", "https://nature.com/a", True),
    ("nature.com", "https://www.nature.com/a", True),
    ("nature.com", "https://notnature.com/a", False),
    ("*.nature.com", "https://nature.com/a", True),  # the bare host is one of its suffixes
    ("*.nature.com", "https://blogs.nature.com/a", True),
    ("https://en.wikipedia.org/wiki/*", "http://en.wikipedia.org/wiki/Cat", True),
    ("en.wikipedia.org/wiki/*", "https://de.wikipedia.org/wiki/Cat", False),
    ("example.org/blog/*", "https://example.org/shop/x", False),
    ("example.org/page", "https://example.org/page?x=1", False),
    ("EXAMPLE.org", "https://www.Example.ORG/", True),
    ("*.nature.com/*", "https://nature.com/articles/1", True),
    ("*.nature.com/*", "https://www.nature.com/articles/1", True),
    ("*.nature.com/articles/*", "https://www.nature.com/news/1", False),
    ("example.org/*", "https://www.example.org/x", False),
])
def test_registry_patterns(pattern: str, url: str, hit: bool) -> None:
    assert matches(pattern, url) is hit


def test_override_urls_compare_without_fragment_and_case_of_host() -> None:
    assert normalise_url("HTTPS://Example.org/A?b=1#frag") == "https://example.org/A?b=1"
    assert normalise_url("https://example.org") == "https://example.org/"


def test_non_http_urls_are_refused() -> None:
    with pytest.raises(BadRequest):
        host_of("mailto:someone@example.org")
