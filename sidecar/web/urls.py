"""URLs of external results: their host as a browser reads it, registrable domain, and registry
pattern matching.

A result's URL is opened by Obsidian (Electron), whose URL parser follows the WHATWG URL Standard,
so Ora reads an http(s) URL the same way (`parse_url`): tabs and line breaks are dropped and
spaces and controls trimmed at the ends; `\\` is a `/` before the query, so
`https://evil.example\\@nature.com/` is a page of evil.example; any run of slashes may follow
`http:`; the user name and password before the authority's last `@` are not the host; the host is
percent-decoded, mapped by IDNA (UTS #46: full-width letters, the ideographic full stop `。` and
the full-width `．` are plain letters and dots, upper case is lower case) and written in ASCII
(`xn--…` for other letters); a host ending in a number is an IPv4 address in any of its forms
(`0x7f.1` is `127.0.0.1`); `.` and `..` segments of the path are resolved. A URL a browser would
refuse (`http://[::1`, a host holding `/` once decoded) is BadRequest.

Registrable domain ("eTLD+1") comes from the Public Suffix List shipped in the `publicsuffixlist`
package, so `a.example.co.uk` and `b.example.co.uk` are one site (`example.co.uk`) while
`alice.github.io` and `bob.github.io` are two (github.io is a public suffix).

Registry patterns (documented in schema/README.md): a leading `http://` or `https://` is
ignored; `*` matches any run of characters. A pattern without `/` names a site: the host and its
subdomains (`nature.com` covers `www.nature.com`). A pattern with `/` names pages: its host part
must match the host exactly, unless it starts with `*.` (then the host or any subdomain), and
its path part must match the whole of `/path?query`. A pattern's host is read as a URL's is.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from urllib.parse import quote, unquote_to_bytes

import idna
from publicsuffixlist import PublicSuffixList

from sidecar.errors import BadRequest

_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*://", re.I)
_WEB_SCHEME = re.compile(r"(https?):", re.I)
_DEFAULT_PORTS = {"http": "80", "https": "443"}
_TRIMMED = "".join(map(chr, range(0x21)))  # C0 controls and space, trimmed at both ends
_DROPPED = re.compile("[\t\n\r]")  # removed wherever they are
_AUTHORITY_END = re.compile(r"[/\\]")
# The user name and password of an http(s) URL: up to the last `@` before the authority's end.
_USERINFO = re.compile(r"[\x00-\x20]*https?:[/\\]*([^/\\?#]*@)", re.I)
# What no host may hold once decoded (WHATWG "forbidden domain code point").
_FORBIDDEN = re.compile(r"[\x00-\x20#%/:<>?@\[\\\]^|\x7f]")
_NUMBER = re.compile(r"(?:0[xX][0-9A-Fa-f]*|[0-9]+)\Z")
# What a link destination in a note must not hold as it is: whitespace and controls (they end
# the link or the line), `<` and `>` (they end an autolink) and a backtick (it opens code).
_LINK_UNSAFE = re.compile(r"[\s\x00-\x1f\x7f<>`]")


@dataclass(frozen=True)
class WebUrl:
    """An http(s) URL as a browser reads it."""

    scheme: str  # "http" or "https"
    host: str  # ASCII, lower case: a name, an IPv4 address, or an IPv6 one without brackets
    port: str  # "" for the scheme's default
    path: str  # from "/", dot segments resolved
    query: str  # without its "?", "" when none
    userinfo: str = ""  # `user:password` as written before the host's `@`, "" when none


@cache
def _psl() -> PublicSuffixList:
    return PublicSuffixList()


@lru_cache(maxsize=4096)  # a search's results meet every registry pattern: parse each once
def parse_url(url: str) -> WebUrl:
    """`url` read as a browser reads an http(s) URL (WHATWG URL Standard, "basic URL parser");
    BadRequest for anything else or anything a browser would refuse."""
    text = _DROPPED.sub("", url.strip(_TRIMMED))
    scheme = _WEB_SCHEME.match(text)
    if scheme is None:
        raise BadRequest(f"not an http(s) URL: {url!r}")
    rest = text[scheme.end():].lstrip("/\\").partition("#")[0]
    before_query, _, query = rest.partition("?")
    end = _AUTHORITY_END.search(before_query)
    at = end.start() if end else len(before_query)
    authority, path = before_query[:at], before_query[at:]
    userinfo, _, hostport = authority.rpartition("@")
    try:
        host, port = _host_and_port(hostport)
    except (ValueError, UnicodeError) as err:  # idna's errors are UnicodeErrors
        raise BadRequest(f"not an http(s) URL: {url!r} ({err})") from err
    if not host:
        raise BadRequest(f"not an http(s) URL: {url!r} (no host)")
    name = scheme[1].lower()
    return WebUrl(name, host, "" if port == _DEFAULT_PORTS[name] else port,
                  _resolved(path.replace("\\", "/")), query, userinfo)


def _host_and_port(hostport: str) -> tuple[str, str]:
    if hostport.startswith("["):
        inner, bracket, port = hostport[1:].partition("]")
        if not bracket or "%" in inner or (port and not port.startswith(":")):
            raise ValueError("not an IPv6 address in brackets")
        return _ipv6(inner), _port(port[1:])
    host, _, port = hostport.partition(":")
    return _domain(host), _port(port)


def _port(port: str) -> str:
    if port and not (port.isascii() and port.isdigit() and int(port) <= 65535):
        raise ValueError(f"bad port {port!r}")
    return str(int(port)) if port else ""


def _ipv6(text: str) -> str:
    """An IPv6 address as WHATWG writes it: lower-case hex pieces, the first longest run of two
    or more zero pieces as `::`, an IPv4-mapped one in hex too (`::ffff:102:304`: Python's own
    form of it changed in 3.13)."""
    packed = ipaddress.IPv6Address(text).packed
    pieces = [f"{int.from_bytes(packed[i:i + 2], 'big'):x}" for i in range(0, 16, 2)]
    start, length, n = 0, 1, 0
    while n < len(pieces):
        end = n
        while end < len(pieces) and pieces[end] == "0":
            end += 1
        if end - n > length:
            start, length = n, end - n
        n = max(end, n + 1)
    if length < 2:
        return ":".join(pieces)
    return ":".join(pieces[:start]) + "::" + ":".join(pieces[start + length:])


def _ascii(raw: str) -> str:
    """A host name percent-decoded, mapped by UTS #46 (not strict: `_` and the like kept, as a
    browser keeps them) and written in ASCII, each other label as `xn--…` (Punycode)."""
    decoded = unquote_to_bytes(raw).decode("utf-8")
    mapped = idna.uts46_remap(decoded, std3_rules=False, transitional=False)
    return ".".join(label if label.isascii() else "xn--" + label.encode("punycode").decode()
                    for label in mapped.split("."))


def _domain(raw: str) -> str:
    """A host name as a browser writes it (`_ascii`); an IPv4 address when it ends in a
    number."""
    if not raw:
        return ""
    host = _ascii(raw)
    if _FORBIDDEN.search(host):
        raise ValueError(f"{host!r} holds a character no host may hold")
    labels = host.split(".")
    last = labels[-2] if labels[-1] == "" and len(labels) > 1 else labels[-1]
    return _ipv4(host) if _NUMBER.match(last) else host


def _ipv4(host: str) -> str:
    """WHATWG's IPv4 parser: up to four dotted numbers, each decimal, octal (`0…`) or hex
    (`0x…`), the last filling the bytes left."""
    parts = host.split(".")
    if parts[-1] == "":
        parts.pop()
    if not 1 <= len(parts) <= 4 or "" in parts:
        raise ValueError(f"{host!r} is not an IPv4 address")
    numbers = [_ipv4_number(p) for p in parts]
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        raise ValueError(f"{host!r} is not an IPv4 address")
    value = numbers[-1] + sum(n << 8 * (3 - i) for i, n in enumerate(numbers[:-1]))
    return str(ipaddress.IPv4Address(value))


def _ipv4_number(part: str) -> int:
    if part[:2].lower() == "0x":
        return int(part[2:] or "0", 16)
    if len(part) > 1 and part.startswith("0"):
        return int(part[1:], 8)
    return int(part)


def _resolved(path: str) -> str:
    """The path with its `.` and `..` segments (`%2e` too) resolved, as a browser does."""
    segments: list[str] = []
    parts = path.split("/")[1:] if path else [""]
    for n, segment in enumerate(parts):
        dots = segment.lower().replace("%2e", ".")
        last = n == len(parts) - 1
        if dots == "..":
            if segments:
                segments.pop()
            if last:
                segments.append("")
        elif dots == ".":
            if last:
                segments.append("")
        else:
            segments.append(segment)
    return "/" + "/".join(segments)


def host_of(url: str) -> str:
    """The host of an http(s) URL as a browser reads it, without a trailing dot; BadRequest for
    anything else."""
    return parse_url(url).host.rstrip(".")


def readable_host(host: str) -> str:
    """A host as a person reads it: its `xn--` labels in their own letters (`bücher.example`),
    those that are not valid Punycode as they are."""
    labels = host.split(".")
    for n, label in enumerate(labels):
        if label.startswith("xn--") and len(label) > 4:
            with contextlib.suppress(UnicodeError):
                labels[n] = label[4:].encode().decode("punycode")
    return ".".join(labels)


def registrable_domain(host: str) -> str:
    """eTLD+1 of a host (the host itself for IP addresses and bare public suffixes)."""
    try:
        ipaddress.ip_address(host.strip("[]"))
        return host
    except ValueError:
        pass
    return _psl().privatesuffix(host) or host


def normalise_url(url: str) -> str:
    """The URL as a browser reads it, without user name, default port and fragment: the form
    exact overrides compare. BadRequest when it is not an http(s) URL."""
    parts = parse_url(url)
    host = f"[{parts.host}]" if ":" in parts.host else parts.host
    port = f":{parts.port}" if parts.port else ""
    query = f"?{parts.query}" if parts.query else ""
    return f"{parts.scheme}://{host}{port}{parts.path}{query}"


def request_url(url: str) -> str:
    """The URL a browser requests for `url`: `normalise_url`'s form (`\\` as `/`, which aiohttp
    refuses), its user name and password kept to be sent."""
    userinfo = parse_url(url).userinfo
    scheme, _, rest = normalise_url(url).partition("://")
    return f"{scheme}://{userinfo}@{rest}" if userinfo else f"{scheme}://{rest}"


def without_userinfo(url: str) -> str:
    """`url` as written, without the user name and password before its host: what a note may
    record of it."""
    found = _USERINFO.match(url)
    return url[:found.start(1)] + url[found.end(1):] if found else url


def link_safe(url: str) -> str:
    """`url` as a link destination in a note: what would end the link or the line, or open code,
    percent-encoded (the same address to a browser)."""
    return _LINK_UNSAFE.sub(lambda m: quote(m.group(), safe=""), url)


@lru_cache(maxsize=1024)
def _glob(pattern: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if c == "*" else re.escape(c) for c in pattern) + r"\Z")


def _host_matches(pattern: str, host: str, subdomains: bool) -> bool:
    if pattern.startswith("*."):
        pattern, subdomains = pattern[2:], True
    glob = _glob(_pattern_host(pattern))
    if not subdomains:
        return glob.match(host) is not None
    labels = host.split(".")
    return any(glob.match(".".join(labels[i:])) for i in range(len(labels)))


@lru_cache(maxsize=1024)
def _pattern_host(pattern: str) -> str:
    """A pattern's host read as a URL's (`Bücher.example` is `xn--bcher-kva.example`), its `*`
    kept; as written, lower case, when it is no host (`*` alone)."""
    try:
        return "*".join(_ascii(part) for part in pattern.split("*"))
    except (ValueError, UnicodeError):
        return pattern.lower()


def matches(pattern: str, url: str) -> bool:
    """Does a registry pattern cover this URL?"""
    host_pattern, slash, path_pattern = _SCHEME.sub("", pattern.strip()).partition("/")
    parts = parse_url(url)
    host = parts.host.rstrip(".")
    if not slash:
        return _host_matches(host_pattern, host, subdomains=True)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    return (_host_matches(host_pattern, host, subdomains=False)
            and _glob("/" + path_pattern).match(target) is not None)
