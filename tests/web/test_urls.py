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


@pytest.mark.parametrize(("url", "host"), [
    # Before: read with urlsplit, each of these had another host than the browser opens.
    ("https://evil.example\\@nature.com/x", "evil.example"),  # `\` is `/` before the query
    ("https://evil\u3002example/", "evil.example"),  # the ideographic full stop is a dot
    ("https://evil\uff0eexample/", "evil.example"),  # the full-width one too
    ("https://\uff25\uff36\uff29\uff2c.example/", "evil.example"),  # full-width letters
    ("https://evil%2Eexample/", "evil.example"),  # a host is percent-decoded
    ("https://evil.example\\.nature.com/", "evil.example"),
    ("http:evil.example/x", "evil.example"),  # any run of slashes, none too
    ("https:\\\\evil.example", "evil.example"),
    ("https://user:pw@B\u00fccher.Example:443/", "xn--bcher-kva.example"),  # IDNA, in ASCII
    ("http://0x7f.1/", "127.0.0.1"),  # an IPv4 address in another form
    ("http://2130706433/", "127.0.0.1"),
    ("http://[::FFFF:1.2.3.4]:80/", "::ffff:102:304"),
    ("https://nature.com./a", "nature.com"),
])
def test_a_host_is_read_as_a_browser_reads_it(url: str, host: str) -> None:
    assert host_of(url) == host


@pytest.mark.parametrize("url", [
    "http://[::1",  # Before: urlsplit's ValueError, a 500 wherever a result held one
    "http://[::1]x/", "http://[fe80::1%eth0]/", "https://a.example:99999/", "https://x%25y/",
    "https://a b.example/", "http://1.2.3.4.5/", "http://256.1.1.1/", "https://", "http://@/",
])
def test_a_url_a_browser_would_refuse_is_a_bad_request(url: str) -> None:
    with pytest.raises(BadRequest):
        host_of(url)


@pytest.mark.parametrize(("pattern", "url", "hit"), [
    ("evil.example", "https://evil\u3002example/", True),
    ("evil.example", "https://EVIL.example./", True),
    ("nature.com", "https://evil.example\\@nature.com/x", False),
    ("B\u00fccher.example", "https://xn--bcher-kva.example/", True),  # a pattern's host too
    ("spam.example/bad/*", "https://spam.example/good/../bad/x", True),  # dot segments
    ("spam.example/bad/*", "https://spam.example/good/%2e%2e/bad/x", True),
    ("spam.example/bad/*", "https://spam.example\\bad\\x", True),
    ("192.168.1.*", "http://192.168.1.7/", True),
])
def test_registry_patterns_cover_what_the_browser_opens(pattern: str, url: str, hit: bool) -> None:
    assert matches(pattern, url) is hit


def test_an_override_url_compares_as_the_browser_reads_it() -> None:
    assert normalise_url("https://u@Example.org:443/a/./b/../c?x#f") == "https://example.org/a/c?x"
    assert normalise_url("http://[::1]:8080") == "http://[::1]:8080/"
