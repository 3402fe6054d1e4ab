"""What an adoption does when the filesystem refuses its journal, or a note on undo.

Before: the undo stopped at the first note the filesystem refused (a folder now, a full disk),
leaving the notes after it adopted, the journal as it was and `POST /v1/adopt/undo` answering
500 without re-indexing the notes it had restored; a journal that could not be written (a full
disk) answered 507 naming "Ora's data folder", though the journal is in the vault; a journal
that could not be rewritten once the notes were written answered 507 "notes are written whole
or not at all" with every note changed and none re-indexed; and an apply that wrote no note
left an empty `.ora-journal/` in the vault.

The server's watcher is left out of the app, so what the index holds after an answer is what
the route itself re-indexed.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

import sidecar.lint.adopt_journal as adopt_journal
from sidecar.cli import main
from sidecar.lint.adopt import plan_adoption
from sidecar.lint.adopt_journal import apply_adoption, undo_adoption
from sidecar.server import resources
from sidecar.settings import Config
from sidecar.vault.journal import journal_folder
from tests.notes import write_notes

from ..full_disk import fill_disk

NOTES = {
    "Daily/2026-11-02.md": "Rained all day. Rewrote the rate limiter proposal.\n",
    "Recipes/Dal.md": "---\ntags: recipe\n---\n# Dal\nRed lentils, cumin, tomatoes.\n",
    "Recipes/Soup.md": "---\ntags: recipe\n---\n# Soup\nLeeks and potatoes.\n",
}
JOURNALS = ".ora-journal"
Api = Any  # tests/server/conftest.py's Api


def _bytes(vault: Path) -> dict[str, bytes]:
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in sorted(vault.rglob("*.md"))
            if p.is_file()}


def _refused_for(refused: list[dict[str, str]], reason: str) -> list[str]:
    """The refused paths, each checked to name its note and give `reason`."""
    assert all(reason in r["reason"] and r["path"] in r["reason"] for r in refused), refused
    return sorted(r["path"] for r in refused)


def _adopted(vault: Path) -> dict[str, bytes]:
    """Every note of NOTES adopted (by the library)."""
    assert sorted(apply_adoption(vault, plan_adoption(vault, data=None).proposals).done) == sorted(
        NOTES)
    return _bytes(vault)


def _pending(vault: Path) -> list[str]:
    """The notes the latest adoption journal still holds."""
    (journal,) = journal_folder(vault).glob("adopt-*.json")
    return sorted(e["path"] for e in json.loads(journal.read_text(encoding="utf-8"))["files"])


def _into_folder(vault: Path, rel: str) -> None:
    (vault / rel).unlink()
    (vault / rel).mkdir()


async def _idle(index: Any, stop: asyncio.Event, *args: Any, **kwargs: Any) -> None:
    await stop.wait()  # a watcher that hears nothing


async def _served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                  configure: Callable[..., Config],
                  api_for: Callable[..., Awaitable[Api]]) -> tuple[Path, Api]:
    """NOTES served without a watcher, indexed."""
    monkeypatch.setattr(resources, "watch", _idle)
    vault = write_notes(tmp_path / "vault", NOTES)
    api = await api_for(configure(vault, tmp_path / "data"))
    await api.wait_reconciled()
    return vault, api


async def _confirmed(api: Api) -> list[dict[str, str]]:
    plan = (await api.get("/v1/adopt")).json
    return [{"path": p["path"], "digest": p["digest"]} for p in plan["proposals"]]


async def _typed_in_index(api: Api) -> dict[str, bool]:
    """Whether the index holds each note's type as written (False: inferred, not adopted)."""
    query = {"query": "rain lentils leeks", "private": True, "k": 20, "rerank": False}
    results = (await api.post("/v1/search", query)).json["results"]
    return {r["path"]: not r["type_inferred"] for r in results}


def test_undo_refuses_a_note_turned_into_a_folder_and_restores_the_others(
        tmp_path: Path) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    before = _bytes(vault)
    adopted = _adopted(vault)
    _into_folder(vault, "Recipes/Dal.md")
    undone = undo_adoption(vault)
    assert _refused_for(undone.refused, "Is a directory") == ["Recipes/Dal.md"]
    assert sorted(undone.done) == ["Daily/2026-11-02.md", "Recipes/Soup.md"]
    assert _pending(vault) == ["Recipes/Dal.md"]  # kept for the next undo
    (vault / "Recipes/Dal.md").rmdir()
    (vault / "Recipes/Dal.md").write_bytes(adopted["Recipes/Dal.md"])
    assert undo_adoption(vault).done == ["Recipes/Dal.md"]
    assert _bytes(vault) == before and not journal_folder(vault).exists()


def test_undo_refuses_the_notes_of_a_full_disk_and_restores_the_others(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    before = _bytes(vault)
    _adopted(vault)
    with monkeypatch.context() as full:
        fill_disk(full, vault / "Recipes")
        undone = undo_adoption(vault)
    assert _refused_for(undone.refused, "No space left on device") == [
        "Recipes/Dal.md", "Recipes/Soup.md"]
    assert undone.done == ["Daily/2026-11-02.md"]
    assert _pending(vault) == ["Recipes/Dal.md", "Recipes/Soup.md"]
    assert sorted(undo_adoption(vault).done) == ["Recipes/Dal.md", "Recipes/Soup.md"]
    assert _bytes(vault) == before


async def test_the_api_undo_refuses_a_note_turned_into_a_folder_and_reindexes_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, configure: Callable[..., Config],
    api_for: Callable[..., Awaitable[Api]],
) -> None:
    vault, api = await _served(tmp_path, monkeypatch, configure, api_for)
    applied = await api.post("/v1/adopt/apply", {"notes": await _confirmed(api)})
    assert sorted(applied.json["applied"]) == sorted(NOTES)
    _into_folder(vault, "Recipes/Dal.md")
    undone = await api.post("/v1/adopt/undo", {})
    assert undone.status == 200, undone.json
    assert _refused_for(undone.json["refused"], "Is a directory") == ["Recipes/Dal.md"]
    assert sorted(undone.json["restored"]) == ["Daily/2026-11-02.md", "Recipes/Soup.md"]
    typed = await _typed_in_index(api)
    assert typed["Daily/2026-11-02.md"] is False and typed["Recipes/Soup.md"] is False


def test_a_journal_that_cannot_be_written_refuses_every_note_untouched(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    before = _bytes(vault)
    proposals = plan_adoption(vault, data=None).proposals
    fill_disk(monkeypatch, vault / JOURNALS)
    out = apply_adoption(vault, proposals)
    assert _refused_for(out.refused, "No space left on device") == sorted(NOTES)
    assert all(f"{JOURNALS}/" in r["reason"] for r in out.refused)
    assert out.done == [] and out.journal is None
    assert _bytes(vault) == before and not (vault / JOURNALS).exists()


def test_the_cli_refuses_every_note_when_the_disk_is_full_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    before = _bytes(vault)
    fill_disk(monkeypatch, vault)
    assert main(["adopt", str(vault), "--apply", "--json"]) == 1  # refused, not an error (2)
    answer = json.loads(capsys.readouterr().out)
    assert _refused_for(answer["refused"], "No space left on device") == sorted(NOTES)
    assert answer["applied"] == [] and _bytes(vault) == before


async def test_the_api_refuses_every_note_naming_the_journal_folder_when_it_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, configure: Callable[..., Config],
    api_for: Callable[..., Awaitable[Api]],
) -> None:
    vault, api = await _served(tmp_path, monkeypatch, configure, api_for)
    before = _bytes(vault)
    notes = await _confirmed(api)
    fill_disk(monkeypatch, vault / JOURNALS)
    answer = await api.post("/v1/adopt/apply", {"notes": notes})
    assert answer.status == 200, answer.json
    assert _refused_for(answer.json["refused"], f"the vault's {JOURNALS}/ folder") == sorted(NOTES)
    assert "data folder" not in json.dumps(answer.json)
    assert answer.json["applied"] == [] and _bytes(vault) == before


async def test_a_journal_rewrite_that_fails_keeps_the_first_journal_and_reindexes_the_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, configure: Callable[..., Config],
    api_for: Callable[..., Awaitable[Api]],
) -> None:
    vault, api = await _served(tmp_path, monkeypatch, configure, api_for)
    before = _bytes(vault)
    create = adopt_journal.create_journal

    def then_full(*args: Any) -> tuple[Path, str]:
        """The journal is written, then the disk under it fills (its rewrite will fail)."""
        made = create(*args)
        fill_disk(full, made[0].parent)
        return made

    with monkeypatch.context() as full:
        full.setattr(adopt_journal, "create_journal", then_full)
        answer = await api.post("/v1/adopt/apply", {"notes": await _confirmed(api)})
    assert answer.status == 200, answer.json
    assert sorted(answer.json["applied"]) == sorted(NOTES) and answer.json["journal"]
    assert all((await _typed_in_index(api)).values())
    undone = (await api.post("/v1/adopt/undo", {})).json
    assert sorted(undone["restored"]) == sorted(NOTES) and _bytes(vault) == before


def test_an_apply_that_writes_no_note_leaves_no_journal_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = write_notes(tmp_path / "vault", {"Recipes/Dal.md": NOTES["Recipes/Dal.md"]})
    proposals = plan_adoption(vault, data=None).proposals
    fill_disk(monkeypatch, vault / "Recipes")
    out = apply_adoption(vault, proposals)
    assert _refused_for(out.refused, "No space left on device") == ["Recipes/Dal.md"]
    assert out.journal is None and not (vault / JOURNALS).exists()
