"""The LintContext that `POST /v1/lint` checks against, kept in step with the vault's files.

Building a context walks the vault and reads the schema note, too slow for every keystroke; so it
is built once and rebuilt in a thread only when file events change what it depends on: the set of
note paths (wikilink resolution) or the schema note (domain tags).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path

from sidecar.schema import get_schema
from sidecar.vault.lint import LintContext
from sidecar.vault.scan import is_ignored, iter_note_paths, symlink_in


class LintCache:
    def __init__(self, vault: Path, max_bytes: int) -> None:
        self.vault = vault
        self.max_bytes = max_bytes
        self._paths: set[str] = set()
        self._context = LintContext()

    @property
    def context(self) -> LintContext:
        return self._context

    async def load(self) -> None:
        self._paths = await asyncio.to_thread(lambda: set(iter_note_paths(self.vault)))
        await self._rebuild()

    async def _rebuild(self) -> None:
        paths = sorted(self._paths)
        self._context = await asyncio.to_thread(
            LintContext.for_vault, self.vault, paths, self.max_bytes
        )

    async def reload_settings(self) -> None:
        """The vault's ora.yaml changed (lint strictness, ignored notes): rebuild."""
        await self._rebuild()

    def _schema_note(self) -> str | None:
        names = self._context.names
        return names.resolve(get_schema().schema_note) if names is not None else None

    async def refresh(self, paths: Iterable[str]) -> None:
        """Note that these paths changed (created, modified, deleted, either side of a rename);
        rebuild when the set of notes or the schema note changed."""
        before = set(self._paths)
        touched = set(paths)
        for path in touched:
            if (not is_ignored(path) and symlink_in(self.vault, path) is None
                    and (self.vault / path).is_file()):
                self._paths.add(path)
            else:
                self._paths.discard(path)
        if self._paths != before or self._schema_note() in touched:
            await self._rebuild()
