"""The loopback HTTP API for the Obsidian plugin (`ora serve`): `init_app(config)`."""

from sidecar.server.app import init_app

__all__ = ["init_app"]
