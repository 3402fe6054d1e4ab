"""URLs of external results: their host, registrable domain, and registry pattern matching.

Registrable domain ("eTLD+1") comes from the Public Suffix List shipped in the `publicsuffixlist`
package, so `a.example.co.uk` and `b.example.co.uk` are one site (`example.co.uk`) while
`alice.github.io` and `bob.github.io` are two (github.io is a public suffix).

Registry patterns (documented in schema/README.md): a leading `http://` or `https://` is
ignored; `*` matches any run of characters; a pattern without `/` names a host, matching it and
its subdomains (`nature.com` and `*.nature.com` both cover `nature.com` and `www.nature.com`); a
pattern with `/` must match the whole of `host/path?query`.
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


def matches(pattern: str, url: str) -> bool:
    """Does a registry pattern cover this URL?"""
    pattern = _SCHEME.sub("", pattern.strip())
    host = host_of(url)
    if "/" not in pattern:
        glob = _glob(pattern.lower().removeprefix("*."))
        labels = host.split(".")
        return any(glob.match(".".join(labels[i:])) for i in range(len(labels)))
    parts = urlsplit(url.strip())
    target = host + (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    head, _, tail = pattern.partition("/")
    return _glob(head.lower() + "/" + tail).match(target) is not None
