"""The LintContexts that `POST /v1/lint` checks against, kept in step with the vault's files.

Building a context walks the vault and reads the schema note, too slow for every keystroke; so it
is built once and rebuilt in a thread only when file events change what it depends on: the set of
note paths, their aliases, types (a nexus names a matrix) and which are private (wikilink
resolution), the schema note (domain tags), or the vault's ora.yaml (`reload_settings`). Two
contexts: `context` resolves links against every note (private mode), `public_context` against
non-private notes only, so that outside private mode a link to a private note is reported
exactly as a link to nothing (a note that cannot be read counts as private: its tag cannot be
seen). Private means by the note's own words or by ora.yaml's `private` folders.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from sidecar.lint.diagnostics import LintContext
from sidecar.schema import get_schema
from sidecar.vault.links import NameIndex
from sidecar.vault.properties import vault_link_facts
from sidecar.vault.scan import is_ignored, iter_note_paths, symlink_in
from sidecar.vault.vault_settings import is_private_path


class LintCache:
    def __init__(self, vault: Path, max_bytes: int, *, data: Path | None) -> None:
        self.vault, self.data = vault, data  # `data`: the index's (`load_vault_settings`)
        self.max_bytes = max_bytes
        self._loading: asyncio.Task[None] | None = None  # the latest load (None: never asked)
        # One change at a time: a refresh sets a note's facts aside while it reads them again, and
        # a rebuild running meanwhile would take a private note for a public one, and keep it.
        self._changing = asyncio.Lock()
        self._paths: set[str] = set()
        self._aliases: dict[str, tuple[str, ...]] = {}
        self._types: dict[str, str | None] = {}
        self._private: set[str] = set()
        self._context = LintContext()
        self._public = LintContext(public_only=True)

    @property
    def context(self) -> LintContext:
        """Links resolve against every note (a request in private mode)."""
        return self._context

    @property
    def public_context(self) -> LintContext:
        """Links resolve against non-private notes only (a request outside private mode)."""
        return self._public

    async def ready(self) -> None:
        """Return once the context has been read from the vault (reading it now if nothing
        asked for it yet). The server reads it after the index's words pass, not before the API
        answers: it reads every note, and the words pass is what makes them findable."""
        if self._loading is None:
            self._loading = asyncio.ensure_future(self._load())
        await asyncio.shield(self._loading)

    async def load(self) -> None:
        """Read the context from the vault (again)."""
        self._loading = asyncio.ensure_future(self._load())
        await asyncio.shield(self._loading)

    async def _load(self) -> None:
        async with self._changing:
            self._paths = await asyncio.to_thread(lambda: set(iter_note_paths(self.vault)))
            self._aliases, self._types, self._private = await asyncio.to_thread(
                vault_link_facts, self.vault, sorted(self._paths), self.max_bytes)
            await self._rebuild()

    async def _rebuild(self) -> None:
        paths = sorted(self._paths)
        self._context = await asyncio.to_thread(
            LintContext.for_vault, self.vault, paths, self.max_bytes, dict(self._aliases),
            dict(self._types), data=self.data)
        # Private by its own words (`_private`, kept per note) or by where it lies: ora.yaml's
        # `private` folders, asked here, at every rebuild, so that a change of them
        # (`reload_settings`) is followed (settings that cannot tell hold every note private).
        settings = self._context.settings
        private = self._private | {p for p in paths if is_private_path(settings, p)}
        public = [p for p in paths if p not in private]
        names = NameIndex(public, {p: a for p, a in self._aliases.items() if p not in private})
        self._public = replace(self._context, names=names, public_only=True)

    async def reload_settings(self) -> None:
        """The vault's ora.yaml changed (lint strictness, ignored notes, private folders):
        rebuild."""
        if self._loading is None:
            return  # the first load reads it
        async with self._changing:
            await self._rebuild()

    def _schema_note(self) -> str | None:
        names = self._context.names
        return names.resolve(get_schema().schema_note) if names is not None else None

    async def refresh(self, paths: Iterable[str]) -> None:
        """Note that these paths changed (created, modified, deleted, either side of a rename);
        rebuild when the set of notes or the schema note changed. Before the first load there is
        nothing to refresh: that load reads them."""
        if self._loading is None:
            return
        async with self._changing:
            await self._refresh(set(paths))

    async def _refresh(self, touched: set[str]) -> None:
        before, aliases_before, types_before = (set(self._paths), dict(self._aliases),
                                                dict(self._types))
        private_before = set(self._private)
        for path in touched:
            self._aliases.pop(path, None)
            self._types.pop(path, None)
            self._private.discard(path)
            if (not is_ignored(path) and symlink_in(self.vault, path) is None
                    and (self.vault / path).is_file()):
                self._paths.add(path)
            else:
                self._paths.discard(path)
        present = sorted(touched & self._paths)
        aliases, types, private = await asyncio.to_thread(
            vault_link_facts, self.vault, present, self.max_bytes)
        self._aliases.update(aliases)
        self._types.update(types)
        self._private |= private
        changed = (self._paths != before or self._aliases != aliases_before
                   or self._types != types_before or self._private != private_before)
        if changed or self._schema_note() in touched:
            await self._rebuild()
