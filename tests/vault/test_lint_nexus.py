"""A `nexus` names the matrices a note serves: one naming a note that is not a matrix gets
`nexus-not-matrix`; one naming no note stays `link-broken`."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.lint.diagnostics import CODES, LintContext, lint_text, lint_vault
from sidecar.server import lint_cache
from sidecar.server.lint_cache import LintCache
from sidecar.vault.properties import vault_link_facts

Write = Callable[[str, str | bytes], str]
DATES = "date created: 2024-01-02\ndate modified: 2024-01-02\n"


def engram(nexus: str) -> str:
    return f"---\nnexus: {nexus}\ntype: engram\ntags: []\n{DATES}---\nbody\n"


def test_a_nexus_naming_an_engram_is_reported_on_the_nexus_line(vault: Path, write: Write) -> None:
    write("Engrams/Serves.md", engram('["[[Good]]", "[[Hub]]"]'))
    found = [d for d in lint_vault(vault, data=None) if d.path == "Engrams/Serves.md"]
    assert [(d.code, d.line, d.severity) for d in found] == [
        ("nexus-not-matrix", 2, CODES["nexus-not-matrix"].severity)]
    assert "nexus[0]" in found[0].message and "engram" in found[0].message


def test_a_missing_target_is_a_broken_link_not_a_non_matrix(vault: Path, write: Write) -> None:
    write("Engrams/Lost.md", engram('["[[Nowhere]]"]'))
    found = [d for d in lint_vault(vault, data=None) if d.path == "Engrams/Lost.md"]
    assert [d.code for d in found] == ["link-broken"]


def test_a_folder_typed_as_matrix_counts(vault: Path, write: Write) -> None:
    """An untyped hub in a folder the vault types as matrix is a matrix, as the index types it."""
    (vault / "ora.yaml").write_text("folders:\n  Hubs: matrix\n", encoding="utf-8")
    write("Hubs/Sleep.md", "# Sleep\n\nA hub without frontmatter.\n")
    write("Engrams/Rest.md", engram('["Sleep"]'))
    assert [d for d in lint_vault(vault, data=None) if d.path == "Engrams/Rest.md"] == []


def test_relationships_may_name_any_note(vault: Path, write: Write) -> None:
    text = engram("[]").replace("tags: []", "tags: []\nrelationships:\n  supports: ['[[Good]]']")
    write("Engrams/Backs.md", text)
    assert [d for d in lint_vault(vault, data=None) if d.path == "Engrams/Backs.md"] == []


def test_without_known_types_the_nexus_is_not_judged() -> None:
    ctx = LintContext.build(["Matrices/Hub.md", "Engrams/Good.md"])
    assert lint_text(engram('["[[Good]]"]'), "n.md", ctx) == []


def test_the_servers_lint_context_follows_a_target_becoming_a_matrix(
    vault: Path, write: Write
) -> None:
    cache = LintCache(vault, 1_000_000, data=None)
    asyncio.run(cache.load())
    text = engram('["[[Good]]"]')
    assert [d.code for d in lint_text(text, "n.md", cache.context)] == ["nexus-not-matrix"]
    good = (vault / "Engrams/Good.md").read_text().replace("type: engram", "type: matrix")
    write("Engrams/Good.md", good)
    asyncio.run(cache.refresh(["Engrams/Good.md"]))
    assert lint_text(text, "n.md", cache.context) == []


def test_the_servers_lint_context_is_read_when_first_asked_for(vault: Path, write: Write) -> None:
    """The server no longer reads every note for lint before its API answers (issue 29): the
    reconcile reads them after its words pass. A lint request that comes first waits for the
    read, never linting against an empty vault (every link reported broken)."""
    cache = LintCache(vault, 1_000_000, data=None)
    text = engram('["[[Good]]"]')
    asyncio.run(cache.refresh(["Engrams/Good.md"]))  # before any read: the read takes it
    assert cache.context.names is None

    async def first_request() -> list[str]:
        await cache.ready()
        return [d.code for d in lint_text(text, "n.md", cache.context)]

    assert asyncio.run(first_request()) == ["nexus-not-matrix"]


def test_a_private_note_stays_unresolved_outside_private_mode_while_changes_overlap(
    vault: Path, write: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refresh of a private note that comes while another change is read and rebuilt never
    makes the note resolvable outside private mode (an existence oracle)."""
    write("Engrams/Diary.md", "---\nnexus: []\ntype: engram\ntags: [private]\n---\nx\n")
    cache = LintCache(vault, 1_000_000, data=None)
    read, build = vault_link_facts, LintContext.for_vault

    def slow_read(*args: Any) -> Any:
        time.sleep(0.4)  # a large vault: each step still runs when the next change comes
        return read(*args)

    def slow_build(*args: Any, **kwargs: Any) -> LintContext:
        time.sleep(0.3)
        return build(*args, **kwargs)

    async def overlapping() -> None:
        await cache.load()
        assert cache.public_context.names is not None
        assert cache.public_context.names.resolve("Diary") is None
        monkeypatch.setattr(lint_cache, "vault_link_facts", slow_read)
        monkeypatch.setattr(LintContext, "for_vault", slow_build)
        write("Engrams/New.md", engram("[]"))
        first = asyncio.create_task(cache.refresh(["Engrams/New.md"]))  # read, then rebuild
        await asyncio.sleep(0.5)  # the first is rebuilding
        write("Engrams/Diary.md", "---\nnexus: []\ntype: engram\ntags: [private]\n---\ny\n")
        await asyncio.gather(first, cache.refresh(["Engrams/Diary.md"]))

    asyncio.run(overlapping())
    assert cache.public_context.names is not None
    assert cache.public_context.names.resolve("Diary") is None
    assert cache.context.names is not None and cache.context.names.resolve("Diary")
