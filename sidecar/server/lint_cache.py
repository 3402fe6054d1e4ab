"""The LintContext that `POST /v1/lint` checks against, kept in step with the vault's files.

Building a context walks the vault and reads the schema note, too slow for every keystroke; so it
is built once and rebuilt in a thread only when file events change what it depends on: the set of
note paths, their aliases (wikilink resolution) and types (a nexus names a matrix), the schema
note (domain tags), or the vault's ora.yaml (`reload_settings`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path

from sidecar.schema import get_schema
from sidecar.vault.lint import LintContext
from sidecar.vault.properties import vault_link_facts
from sidecar.vault.scan import is_ignored, iter_note_paths, symlink_in


class LintCache:
    def __init__(self, vault: Path, max_bytes: int) -> None:
        self.vault = vault
        self.max_bytes = max_bytes
        self._paths: set[str] = set()
        self._aliases: dict[str, tuple[str, ...]] = {}
        self._types: dict[str, str | None] = {}
        self._context = LintContext()

    @property
    def context(self) -> LintContext:
        return self._context

    async def load(self) -> None:
        self._paths = await asyncio.to_thread(lambda: set(iter_note_paths(self.vault)))
        self._aliases, self._types = await asyncio.to_thread(
            vault_link_facts, self.vault, sorted(self._paths), self.max_bytes)
        await self._rebuild()

    async def _rebuild(self) -> None:
        paths = sorted(self._paths)
        self._context = await asyncio.to_thread(
            LintContext.for_vault, self.vault, paths, self.max_bytes, dict(self._aliases),
            dict(self._types))

    async def reload_settings(self) -> None:
        """The vault's ora.yaml changed (lint strictness, ignored notes): rebuild."""
        await self._rebuild()

    def _schema_note(self) -> str | None:
        names = self._context.names
        return names.resolve(get_schema().schema_note) if names is not None else None

    async def refresh(self, paths: Iterable[str]) -> None:
        """Note that these paths changed (created, modified, deleted, either side of a rename);
        rebuild when the set of notes or the schema note changed."""
        before, aliases_before, types_before = (set(self._paths), dict(self._aliases),
                                                dict(self._types))
        touched = set(paths)
        for path in touched:
            self._aliases.pop(path, None)
            self._types.pop(path, None)
            if (not is_ignored(path) and symlink_in(self.vault, path) is None
                    and (self.vault / path).is_file()):
                self._paths.add(path)
            else:
                self._paths.discard(path)
        present = sorted(touched & self._paths)
        aliases, types = await asyncio.to_thread(
            vault_link_facts, self.vault, present, self.max_bytes)
        self._aliases.update(aliases)
        self._types.update(types)
        changed = (self._paths != before or self._aliases != aliases_before
                   or self._types != types_before)
        if changed or self._schema_note() in touched:
            await self._rebuild()
