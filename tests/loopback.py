"""A real aiohttp server on 127.0.0.1 (a free port) for the fake endpoints the sidecar talks to."""

from __future__ import annotations

from typing import Self

from aiohttp import web


class LoopbackServer:
    """Subclasses add their routes in `routes(app)`; `await start()` serves them at `self.url`."""

    def __init__(self) -> None:
        self.url = ""
        self._runner: web.AppRunner | None = None

    def routes(self, app: web.Application) -> None:
        raise NotImplementedError

    async def start(self) -> Self:
        app = web.Application()
        self.routes(app)
        self._runner = web.AppRunner(app, shutdown_timeout=0.5)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
