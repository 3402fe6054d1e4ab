"""The aiohttp application factory: `init_app(config)` is what `ora serve` and the tests both run.

Middlewares, outermost first: the error middleware (one JSON error shape), then the security
checks (Host, Origin, CORS preflight, token). Resources open and close through `cleanup_ctx`, one
generator each, in dependency order (see `sidecar/server/resources.py`). Route modules are listed
in ROUTE_MODULES; each exposes `routes` (a RouteTableDef) and, if it needs one, a `context`
(a cleanup_ctx generator, run after the server's resources).
"""

from __future__ import annotations

import importlib
import threading

from aiohttp import web

from sidecar.server.connections import note_stream
from sidecar.server.errors import error_middleware
from sidecar.server.events import EventHub
from sidecar.server.limits import body_deadline
from sidecar.server.resources import CONTEXTS, LANE
from sidecar.server.security import (
    Guard,
    add_cors_headers,
    load_or_create_token,
    machine_names,
    security_middleware,
)
from sidecar.server.state import CONFIG, HUB, STATE, ServerState
from sidecar.settings import Config

# Modules under sidecar/server/ that add routes, in the order they are registered.
ROUTE_MODULES: tuple[str, ...] = (
    "routes_core", "routes_index", "routes_lint", "routes_claims", "routes_memory",
    "routes_vault_settings", "routes_adopt", "routes_web", "routes_models", "routes_extract",
    "routes_ingest",
)
_WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})
# Set when shutdown begins: long work in a worker thread (`POST /v1/web/classify`) checks it and
# stops, or the process would wait for the thread however long it runs.
STOPPING = web.AppKey("stopping", threading.Event)


def _extra_hosts(config: Config, allow_remote: bool) -> frozenset[str]:
    """Host names accepted besides loopback ones and, with `allow_remote`, the address a request
    arrives on: none, the bind name, or for a wildcard bind the machine's own names."""
    if not allow_remote:
        return frozenset()
    host = str(config.host).lower()
    return machine_names() if host in _WILDCARD_HOSTS else frozenset({host})


def _add_route_modules(app: web.Application) -> None:
    for name in ROUTE_MODULES:
        module = importlib.import_module(f"sidecar.server.{name}")
        if hasattr(module, "context"):
            app.cleanup_ctx.append(module.context)
        app.router.add_routes(module.routes)


async def _on_shutdown(app: web.Application) -> None:
    """Before connections drain and resources close: end SSE streams (or shutdown would wait for
    their clients), tell a running reconcile to stop at its next batch boundary, and any other
    work that checks STOPPING."""
    app[STOPPING].set()
    app[HUB].close()
    if LANE in app:
        app[LANE].request_stop()


def init_app(config: Config, *, allow_remote: bool = False) -> web.Application:
    """The sidecar's HTTP API for `config.vault`; the token is created in `config.data` if new."""
    guard = Guard(load_or_create_token(config.data), _extra_hosts(config, allow_remote),
                  arrival_address=allow_remote)
    app = web.Application(
        client_max_size=int(config.max_body_bytes),
        middlewares=[error_middleware, security_middleware(guard),
                     body_deadline(float(config.body_timeout))],
    )
    hub = EventHub()
    app[CONFIG] = config
    app[HUB] = hub
    app[STOPPING] = threading.Event()
    app[STATE] = ServerState(config, hub)
    app.on_response_prepare.append(add_cors_headers)
    app.on_response_prepare.append(note_stream)
    app.on_shutdown.append(_on_shutdown)
    app.cleanup_ctx.extend(CONTEXTS)
    _add_route_modules(app)
    return app
