"""An adoption goes on past a note the filesystem refuses: before, the first OSError that was
not one of Ora's own (a note turned into a folder since the plan, a full disk under one
folder, a note that cannot be read) stopped the apply, the notes after it were not adopted and
nothing said which note failed or why. Now that note is refused with its path and the reason,
the others are written, and the undo covers exactly the written ones. The library, the CLI
(`ora adopt --apply`) and `POST /v1/adopt/apply` are each checked."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main
from sidecar.lint.adopt import plan_adoption
from sidecar.lint.adopt_journal import apply_adoption, undo_adoption
from sidecar.settings import Config
from tests.notes import write_notes

from ..full_disk import fill_disk

NOTES = {
    "Daily/2026-11-02.md": "Rained all day. Rewrote the rate limiter proposal.\n",
    "Recipes/Dal.md": "---\ntags: recipe\n---\n# Dal\nRed lentils, cumin, tomatoes.\n",
    "Recipes/Soup.md": "---\ntags: recipe\n---\n# Soup\nLeeks and potatoes.\n",
}
FULL = "Recipes"  # the folder whose notes the filesystem refuses to write


def _bytes(vault: Path) -> dict[str, bytes]:
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in sorted(vault.rglob("*.md"))
            if p.is_file()}


def _refused_for(refused: list[dict[str, str]], reason: str) -> list[str]:
    """The refused paths, each checked to give `reason`."""
    assert all(reason in r["reason"] and r["path"] in r["reason"] for r in refused), refused
    return sorted(r["path"] for r in refused)


def test_a_note_turned_into_a_folder_is_refused_and_the_others_adopted(tmp_path: Path) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    before = _bytes(vault)
    proposals = plan_adoption(vault, data=None).proposals
    assert [p.path for p in proposals] == sorted(NOTES)
    (vault / "Recipes/Dal.md").unlink()  # since the plan: a folder of that name
    (vault / "Recipes/Dal.md").mkdir()
    out = apply_adoption(vault, proposals)
    assert _refused_for(out.refused, "Is a directory") == ["Recipes/Dal.md"]
    assert sorted(out.done) == ["Daily/2026-11-02.md", "Recipes/Soup.md"]
    assert "type:" in (vault / "Recipes/Soup.md").read_text(encoding="utf-8")
    assert sorted(undo_adoption(vault).done) == sorted(out.done)
    assert _bytes(vault) == {k: v for k, v in before.items() if k != "Recipes/Dal.md"}


def test_the_cli_names_a_note_it_cannot_write_and_adopts_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    before = _bytes(vault)
    fill_disk(monkeypatch, vault / FULL)
    assert main(["adopt", str(vault), "--apply", "--json"]) == 1
    applied = json.loads(capsys.readouterr().out)
    assert _refused_for(applied["refused"], "No space left on device") == [
        "Recipes/Dal.md", "Recipes/Soup.md"]
    assert applied["applied"] == ["Daily/2026-11-02.md"]
    monkeypatch.undo()
    assert main(["adopt", str(vault), "--undo", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["restored"] == ["Daily/2026-11-02.md"]
    assert _bytes(vault) == before


async def test_the_api_names_a_note_it_cannot_write_and_adopts_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, configure: Callable[..., Config],
    api_for: Callable[..., Awaitable[Any]],
) -> None:
    vault = write_notes(tmp_path / "vault", NOTES)
    before = _bytes(vault)
    api = await api_for(configure(vault, tmp_path / "data"))
    await api.wait_reconciled()
    plan = (await api.get("/v1/adopt")).json
    notes = [{"path": p["path"], "digest": p["digest"]} for p in plan["proposals"]]
    fill_disk(monkeypatch, vault / FULL)
    answer = await api.post("/v1/adopt/apply", {"notes": notes})
    assert answer.status == 200
    assert _refused_for(answer.json["refused"], "No space left on device") == [
        "Recipes/Dal.md", "Recipes/Soup.md"]
    assert answer.json["applied"] == ["Daily/2026-11-02.md"]
    monkeypatch.undo()
    undone = (await api.post("/v1/adopt/undo", {})).json
    assert undone["restored"] == ["Daily/2026-11-02.md"] and undone["refused"] == []
    assert _bytes(vault) == before
