"""Who may talk to the sidecar: a bearer token, the Obsidian origin, and loopback Host names.

The token guards against other local programs; the Origin and Host checks guard against web pages
in a browser (cross-site requests and DNS rebinding), which can reach 127.0.0.1 but cannot read the
token file.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import secrets
import socket
import stat
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from sidecar.data_folder import private_folder
from sidecar.errors import OraError
from sidecar.privacy.egress import is_local_host
from sidecar.server.connections import connection_of

ALLOWED_ORIGIN = "app://obsidian.md"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
# Reachable without a token: the plugin probes it to tell "not running" from "wrong token".
PUBLIC_ROUTES = frozenset({("GET", "/v1/health")})
CORS_METHODS = "GET, POST, OPTIONS"
CORS_HEADERS = "Authorization, Content-Type"
_TOKEN_FILE = "token"


class Unauthorized(OraError):
    """The request carries no bearer token, or the wrong one."""

    code = "unauthorized"
    status = 401


class Forbidden(OraError):
    """The request comes from a foreign web origin or names a non-loopback Host."""

    code = "forbidden"
    status = 403


def token_path(data: Path) -> Path:
    return data / _TOKEN_FILE


def load_or_create_token(data: Path) -> str:
    """The API token in DATA/token, created on first run with mode 0600 (tightened if looser)."""
    private_folder(data)
    path = token_path(data)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        if stat.S_IMODE(path.stat().st_mode) & 0o077:
            path.chmod(0o600)
        token = path.read_text(encoding="utf-8").strip()
        if token:
            return token
        # An empty file (a crash between create and write) is replaced, not trusted.
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC, 0o600)
    token = secrets.token_urlsafe(32)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(token + "\n")
    return token


def is_loopback(host: str) -> bool:
    """True for names and addresses that only this machine can reach."""
    return is_local_host(host)


def machine_names() -> frozenset[str]:
    """This machine's own host names (short and fully qualified), lower-cased: what a wildcard
    --allow-remote bind accepts as Host besides its addresses. Loopback names are left out (they
    are accepted on the server's port only)."""
    names = {socket.gethostname(), socket.getfqdn()}
    return frozenset(n.lower() for n in names if n and not is_loopback(n))


@dataclass(frozen=True)
class Guard:
    """The checks every request passes, in order: Host, Origin, CORS preflight, token."""

    token: str
    # Host names accepted besides loopback ones, on any port: with --allow-remote, the bind
    # name, or for a wildcard bind the machine's own names (`machine_names`). Never any Host:
    # a name an attacker controls could be rebound to this machine (DNS rebinding).
    extra_hosts: frozenset[str] = frozenset()
    # With --allow-remote: the address the request arrived on is accepted too, on the server's
    # port (an IP literal cannot be rebound to another site's page).
    arrival_address: bool = False

    def check_host(self, request: web.Request) -> None:
        host = request.headers.get("Host", "")
        name, port = _split_host(host)
        if name in self.extra_hosts:
            return
        on_our_port = (port or "80") == str(_local_port(request))
        if on_our_port and (name in LOOPBACK_HOSTS
                            or (self.arrival_address and _arrived_at(request, name))):
            return
        raise Forbidden(f"Host {host!r} is not a loopback address or a name of this server")

    @staticmethod
    def check_origin(request: web.Request) -> None:
        origin = request.headers.get("Origin")
        if origin is not None and origin != ALLOWED_ORIGIN:
            raise Forbidden(f"requests from origin {origin!r} are not accepted")

    def check_token(self, request: web.Request) -> None:
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            raise Unauthorized("send the token from DATA/token as 'Authorization: Bearer TOKEN'")
        # The token is ASCII; any other header text (even bytes that are not UTF-8) is wrong.
        if not given.isascii() or not hmac.compare_digest(given.strip().encode(),
                                                          self.token.encode()):
            raise Unauthorized("wrong token; copy it again from DATA/token")


def _split_host(host: str) -> tuple[str, str]:
    """("name", "port") from a Host header; IPv6 literals keep their brackets."""
    if host.startswith("["):
        name, _, rest = host.partition("]")
        return name.lower() + "]", rest.removeprefix(":")
    name, _, port = host.partition(":")
    return name.lower(), port


def _arrived_at(request: web.Request, name: str) -> bool:
    """Whether Host name `name` is the address the request's connection arrived on (an IPv6
    literal in brackets; an IPv4 client of a dual-stack bind arrives at `::ffff:a.b.c.d`)."""
    sockname = request.transport.get_extra_info("sockname") if request.transport else None
    if not isinstance(sockname, tuple) or not sockname:
        return False
    try:
        given = ipaddress.ip_address(name.removeprefix("[").removesuffix("]"))
        local = ipaddress.ip_address(str(sockname[0]).partition("%")[0])  # no IPv6 zone
    except ValueError:
        return False
    mapped = getattr(local, "ipv4_mapped", None)
    return given in (local, mapped) and name.startswith("[") == (given.version == 6)


def _local_port(request: web.Request) -> int | None:
    sockname = request.transport.get_extra_info("sockname") if request.transport else None
    return int(sockname[1]) if isinstance(sockname, tuple) and len(sockname) >= 2 else None


def _preflight() -> web.Response:
    return web.Response(
        status=204,
        headers={
            "Access-Control-Allow-Origin": ALLOWED_ORIGIN,
            "Access-Control-Allow-Methods": CORS_METHODS,
            "Access-Control-Allow-Headers": CORS_HEADERS,
            "Access-Control-Max-Age": "600",
            "Vary": "Origin",
        },
    )


def security_middleware(guard: Guard) -> Middleware:
    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        guard.check_host(request)
        guard.check_origin(request)
        if request.method == "OPTIONS":
            if request.headers.get("Origin") == ALLOWED_ORIGIN:
                return _preflight()
            raise web.HTTPMethodNotAllowed(request.method, ["GET", "POST"])
        if (request.method, request.path) not in PUBLIC_ROUTES:
            guard.check_token(request)
            conn = connection_of(request)
            if conn is not None:  # its connection is no longer anonymous (connections.py)
                conn.sent_the_token()
        return await handler(request)

    return middleware


async def add_cors_headers(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: let the Obsidian app read every answer, errors and streams included."""
    if request.headers.get("Origin") == ALLOWED_ORIGIN:
        response.headers["Access-Control-Allow-Origin"] = ALLOWED_ORIGIN
        response.headers["Vary"] = "Origin"
