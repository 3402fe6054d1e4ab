"""Ora Vault sidecar: lint, index, search and triage an Obsidian vault, offline."""

from sidecar.errors import OraError

__version__ = "0.1.0"
__all__ = ["OraError", "__version__"]
