"""Which endpoints may receive private text: the one rule every outgoing request follows.

Private text — a private note's passages and claims, a question or query asked in private mode,
a private conversation's turns — goes only to endpoints on this machine: a loopback address
(127.0.0.0/8, ::1), the name `localhost`, or a unix socket. An endpoint elsewhere receives it
only when the user names its host in `private_remote_ok` (ORA_PRIVATE_REMOTE_OK): the trust is
given to a host, so pointing a setting at another host never carries it over. A host name is
never looked up: what it resolves to can change between this check and the request, so only
the literal loopback forms count as this machine. A service that passes what it receives on to
others (`relays`: SearXNG sends every query to public search engines) is no safer on this
machine: it receives private text only when its host is named in `private_remote_ok`.

Every path that sends text off the process asks `may_send_private` before it sends private text
(`models/chat.complete` for answers, summaries, the contradiction judge and any future caller
such as engram extraction; the Cohere re-ranker; the embeddings server; a Chroma server; the web
search), and says `withheld(...)` when it did not. `endpoints_report` names each configured
endpoint, what it receives and whether private text may go to it, for `ora models` and
`GET /v1/status`.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from sidecar.settings import Config

_UNIX_SCHEMES = frozenset({"unix", "http+unix", "https+unix"})
ENV = "ORA_PRIVATE_REMOTE_OK"


@dataclass(frozen=True)
class Service:
    """A kind of endpoint Ora may contact: its setting, when it is used, what it receives."""

    name: str
    setting: str
    enabled_by: str  # the setting that must be non-empty for it to be contacted at all
    receives: str
    relays: bool = False  # it passes what it receives on elsewhere: trusted only by name


SERVICES: tuple[Service, ...] = (
    Service("llm", "llm_url", "llm_url",
            "a question with its numbered passages and the conversation's recent turns "
            "(answers), earlier turns (running summaries), two claims at a time (the "
            "contradiction judge)"),
    Service("rerank", "cohere_url", "cohere_api_key",
            "a search's query with its best candidate passages (Cohere re-ranking)"),
    Service("embed", "embed_url", "embed_url",
            "the text of every chunk indexed, every query, every conversation turn, and the "
            "claims compared for contradictions"),
    Service("chroma", "chroma_url", "chroma_url",
            "the text and vector of every chunk indexed (it is the vector index)"),
    Service("web", "searxng_url", "searxng_url",
            "the query of a search or question asked with web results (never a passage), "
            "which it passes on to public search engines", relays=True),
    Service("hub", "hf_endpoint", "",
            "nothing from the vault: only `ora models pull` downloads from it"),
)


def is_local_host(host: str) -> bool:
    """Whether `host` (a URL's host, without port) is this machine: `localhost`, or a literal
    loopback address. Other names are not resolved (see the module docstring)."""
    name = host.strip().strip("[]").rstrip(".").casefold()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def endpoint_host(url: str) -> str:
    """The URL's host, lower case ("" for a unix socket or an unparsable URL)."""
    try:
        parts = urlsplit(url.strip())
        return (parts.hostname or "").casefold()
    except ValueError:
        return ""


def _on_this_machine(url: str) -> bool:
    scheme = urlsplit(url.strip()).scheme.casefold()
    return scheme in _UNIX_SCHEMES or is_local_host(endpoint_host(url))


def trusted_hosts(config: Config) -> frozenset[str]:
    """The hosts of `private_remote_ok`: comma-separated host names or addresses (a full URL is
    read as its host)."""
    hosts = set()
    for entry in str(config.private_remote_ok).split(","):
        entry = entry.strip()
        if entry:
            host = endpoint_host(entry) if "://" in entry else entry.strip("[]").casefold()
            hosts.add(host.rstrip("."))
    return frozenset(hosts)


def may_send_private(config: Config, url: str, *, relays: bool = False) -> bool:
    """Whether the endpoint at `url` may receive private text: it is on this machine (unless it
    `relays` what it receives to others), or its host is named in `private_remote_ok`. Every
    sender of private text asks this first."""
    if _on_this_machine(url) and not relays:
        return True
    host = endpoint_host(url)
    return bool(host) and host.rstrip(".") in trusted_hosts(config)


def withheld(what: str, url: str, *, relays: bool = False) -> str:
    """Why private text was not sent to `what` at `url`, and how to allow it."""
    host = endpoint_host(url) or url
    if relays:
        return (f"private text is not sent to {what} at {host}: wherever it runs, it passes "
                f"every query on to public search engines, and {host} is not named in "
                f"private_remote_ok ({ENV})")
    return (f"private text is not sent to {what} at {host}: it is not on this machine and "
            f"{host} is not named in private_remote_ok ({ENV})")


def endpoints_report(config: Config) -> list[dict[str, Any]]:
    """Every endpoint the settings make Ora contact, what it receives, and whether private text
    may go to it (`private`: "on this machine", "allowed by private_remote_ok" or "withheld")."""
    rows = []
    for service in SERVICES:
        url = str(config.values[service.setting])
        if not url or (service.enabled_by and not config.values[service.enabled_by]):
            continue
        local = _on_this_machine(url)
        if service.name == "hub":
            private = "never sent"
        elif local and not service.relays:
            private = "on this machine"
        elif may_send_private(config, url, relays=service.relays):
            private = "allowed by private_remote_ok"
        else:
            private = "withheld"
        rows.append({"service": service.name, "setting": service.setting, "url": url,
                     "host": endpoint_host(url), "on_this_machine": local,
                     "receives": service.receives, "private": private,
                     "receives_private": private in ("on this machine",
                                                     "allowed by private_remote_ok")})
    return rows
