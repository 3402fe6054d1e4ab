"""URLs of external results: their host, registrable domain, and registry pattern matching.

Registrable domain ("eTLD+1") comes from the Public Suffix List shipped in the `publicsuffixlist`
package, so `a.example.co.uk` and `b.example.co.uk` are one site (`example.co.uk`) while
`alice.github.io` and `bob.github.io` are two (github.io is a public suffix).

Registry patterns (documented in schema/README.md): a leading `http://` or `https://` is
ignored; `*` matches any run of characters. A pattern without `/` names a site: the host and its
subdomains (`nature.com` covers `www.nature.com`). A pattern with `/` names pages: its host part
must match the host exactly, unless it starts with `*.` (then the host or any subdomain), and
its path part must match the whole of `/path?query`.
"""

from __future__ import annotations

import ipaddress
import re
from functools import cache
from urllib.parse import urlsplit

from publicsuffixlist import PublicSuffixList

from sidecar.errors import BadRequest

_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*://", re.I)


@cache
def _psl() -> PublicSuffixList:
    return PublicSuffixList()


def host_of(url: str) -> str:
    """The lower-case host of an http(s) URL; BadRequest for anything else."""
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise BadRequest(f"not an http(s) URL: {url!r}")
    return parts.hostname.lower().rstrip(".")


def registrable_domain(host: str) -> str:
    """eTLD+1 of a host (the host itself for IP addresses and bare public suffixes)."""
    try:
        ipaddress.ip_address(host.strip("[]"))
        return host
    except ValueError:
        pass
    return _psl().privatesuffix(host) or host


def normalise_url(url: str) -> str:
    """Scheme and host lower-cased, fragment dropped: the form exact overrides compare."""
    parts = urlsplit(url.strip())
    netloc = parts.netloc.lower()
    query = f"?{parts.query}" if parts.query else ""
    return f"{parts.scheme.lower()}://{netloc}{parts.path or '/'}{query}"


def _glob(pattern: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if c == "*" else re.escape(c) for c in pattern) + r"\Z")


def _host_matches(pattern: str, host: str, subdomains: bool) -> bool:
    if pattern.startswith("*."):
        pattern, subdomains = pattern[2:], True
    glob = _glob(pattern.lower())
    if not subdomains:
        return glob.match(host) is not None
    labels = host.split(".")
    return any(glob.match(".".join(labels[i:])) for i in range(len(labels)))


def matches(pattern: str, url: str) -> bool:
    """Does a registry pattern cover this URL?"""
    host_pattern, slash, path_pattern = _SCHEME.sub("", pattern.strip()).partition("/")
    host = host_of(url)
    if not slash:
        return _host_matches(host_pattern, host, subdomains=True)
    parts = urlsplit(url.strip())
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return (_host_matches(host_pattern, host, subdomains=False)
            and _glob("/" + path_pattern).match(target) is not None)
