"""`ora serve VAULT [--parent-pid PID]`: the loopback HTTP API for the Obsidian plugin.

Runs until SIGINT or SIGTERM (or, with `--parent-pid`, until that process is gone), then shuts
down in order: open streams end, the reconcile stops within one
embedding slice (the index is crash-safe, so the next start completes it), the watcher
stops, and the index closes. Once listening it records itself in `DATA/server.json` (pid, port,
vault, parent pid: see `sidecar/server/instance.py`), removed again at a clean exit.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import signal

from aiohttp import web

from sidecar.cli.common import config_from_args, log
from sidecar.errors import BadRequest, OraError
from sidecar.index.watcher import data_folder_deleted
from sidecar.models.build import ensure_embedders
from sidecar.server.app import init_app
from sidecar.server.connections import ConnectionGuard
from sidecar.server.instance import remove_record, watch_parent, watch_record, write_record
from sidecar.server.limits import connection_limits
from sidecar.server.security import is_loopback, token_path
from sidecar.server.state import STATE
from sidecar.settings import Config


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "serve", help="serve the HTTP API for the Obsidian plugin",
        description="Serve the loopback HTTP API the Obsidian plugin talks to, keeping the index "
        "up to date as the vault changes, until SIGINT or SIGTERM (or, with --parent-pid, "
        "until that process is gone). The token clients need is in DATA/token.",
    )
    parser.add_argument("vault", metavar="VAULT", help="the vault folder")
    parser.add_argument("--data", metavar="DIR", help="index folder (default VAULT/.ora)")
    parser.add_argument("--host", help="address to bind (default 127.0.0.1, setting `host`)")
    parser.add_argument("--port", type=int, help="port (default 47113, setting `port`; 0 = any)")
    parser.add_argument(
        "--allow-remote", action="store_true",
        help="allow binding a non-loopback address (anyone who can reach it may try the token)",
    )
    parser.add_argument(
        "--parent-pid", type=int, metavar="PID",
        help="exit cleanly soon after process PID is gone (the plugin passes its own)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args, host=args.host, port=args.port)
    _check_port(int(config.port))
    if not is_loopback(str(config.host)):
        if not args.allow_remote:
            raise BadRequest(
                f"refusing to listen on {config.host}, which other machines can reach; "
                "use --host 127.0.0.1, or --allow-remote if you really mean it"
            )
        log(f"warning: listening on {config.host}: the API is reachable from other machines")
    # Before the server starts, so the plugin's first start uses the model later indexes will.
    ensure_embedders(config, log)
    logging.basicConfig(format="ora serve: %(levelname)s: %(message)s", level=logging.WARNING)
    asyncio.run(serve(config, allow_remote=args.allow_remote, parent_pid=args.parent_pid))
    return 0


def _check_port(port: int) -> None:
    """BadRequest for a port no socket can bind (it used to escape as an OverflowError)."""
    if not 0 <= port <= 65535:
        raise BadRequest(f"port {port} is out of range 0–65535 (from --port or the `port` "
                         "setting, ORA_PORT); 0 picks any free port")


def _bind_error(config: Config, exc: OSError) -> OraError:
    """The bind failure in words that say what to do: only an address in use suggests another
    `ora serve`; a privileged port or an address this machine lacks say so instead."""
    where = f"cannot listen on {config.host}:{config.port} ({exc.strerror or exc})"
    if exc.errno == errno.EADDRINUSE:
        return OraError(f"{where}; is another `ora serve` running? Try --port",
                        code="address_in_use")
    if exc.errno == errno.EACCES:
        return OraError(f"{where}; ports below 1024 need privileges: use a higher --port",
                        code="permission_denied")
    if exc.errno == errno.EADDRNOTAVAIL:
        return OraError(f"{where}; no network interface of this machine has that address: "
                        "check --host", code="address_not_available")
    return OraError(where, code="cannot_listen")


async def serve(config: Config, *, allow_remote: bool = False,
                parent_pid: int | None = None) -> None:
    """Serve until SIGINT/SIGTERM or the parent's end; the app's cleanup runs before this
    returns."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    parent = (asyncio.create_task(watch_parent(parent_pid, stop), name="ora-parent")
              if parent_pid is not None else None)
    app = init_app(config, allow_remote=allow_remote)
    runner = web.AppRunner(app, access_log=None,
                           keepalive_timeout=float(config.keepalive_timeout))
    await runner.setup()
    assert runner.server is not None  # made by setup()
    connections, backlog = connection_limits(int(config.max_connections))
    ConnectionGuard(runner.server, connections, float(config.header_timeout),
                    max_anonymous=int(config.max_anonymous_connections),
                    max_streams=int(config.max_streams))
    record: asyncio.Task[bool] | None = None
    try:
        site = web.TCPSite(runner, str(config.host), int(config.port), shutdown_timeout=10.0,
                           backlog=backlog)
        try:
            await site.start()
        except OSError as exc:
            raise _bind_error(config, exc) from exc
        for address in runner.addresses:
            host, port = address[0], address[1]
            shown = f"[{host}]" if ":" in host else host
            log(f"ora serve: listening on http://{shown}:{port}")
        log(f"ora serve: token in {token_path(config.data)}")
        write_record(config, int(runner.addresses[0][1]), parent_pid)
        state = app[STATE]

        def deleted() -> None:
            state.data_deleted = True

        record = asyncio.create_task(watch_record(config.data, stop, on_deleted=deleted),
                                     name="ora-record")
        await stop.wait()
        log("ora serve: shutting down")
    finally:
        await runner.cleanup()
        remove_record(config.data)  # after cleanup: no record, no lock
        stop.set()
        if parent is not None:
            await parent
    if record is not None and await record:
        raise data_folder_deleted(config.data, "serving", "ora serve")
