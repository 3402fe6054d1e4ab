"""The plugin's "Adopt Ora frontmatter…" goes through these routes: the same plan as the CLI,
applied only where the confirmed digest still holds, undone byte for byte."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from sidecar.settings import Config
from tests.notes import write_notes

NOTES = {
    "Daily/2026-11-02.md": "Rained all day. Rewrote the rate limiter proposal.\n",
    "Recipes/Dal.md": "---\ntags: recipe\n---\n# Dal\nRed lentils, cumin, tomatoes.\n",
    "Journal/Secret zqx.md": "---\ntags: [private]\n---\nSecret zqx thoughts.\n",
    "Engrams/Kept.md": "---\ntype: engram\nnexus: []\ntags: []\n---\nAlready adopted.\n",
}


async def _api(tmp_path: Path, configure: Callable[..., Config],
               api_for: Callable[..., Awaitable[Any]]) -> tuple[Any, Path]:
    vault = write_notes(tmp_path / "vault", NOTES)
    api = await api_for(configure(vault, tmp_path / "data"))
    await api.wait_reconciled()
    return api, vault


def _bytes(vault: Path) -> dict[str, bytes]:
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in sorted(vault.rglob("*.md"))}


async def test_plan_apply_undo_through_the_api(
    tmp_path: Path, configure: Callable[..., Config], api_for: Callable[..., Awaitable[Any]]
) -> None:
    api, vault = await _api(tmp_path, configure, api_for)
    before = _bytes(vault)
    plan = (await api.get("/v1/adopt")).json
    assert plan["summary"]["proposed"] == 2 and plan["summary"]["private_hidden"] == 1
    assert plan["summary"]["already_adopted"] == 1
    assert "zqx" not in str(plan)
    assert _bytes(vault) == before  # the plan wrote nothing
    notes = [{"path": p["path"], "digest": p["digest"]} for p in plan["proposals"]]
    applied = (await api.post("/v1/adopt/apply", {"notes": notes})).json
    assert sorted(applied["applied"]) == ["Daily/2026-11-02.md", "Recipes/Dal.md"]
    assert applied["refused"] == [] and applied["journal"].startswith(".ora-journal/")
    assert "type: resource" in (vault / "Recipes/Dal.md").read_text(encoding="utf-8")
    undone = (await api.post("/v1/adopt/undo", {})).json
    assert sorted(undone["restored"]) == sorted(applied["applied"])
    assert _bytes(vault) == before
    assert (await api.post("/v1/adopt/undo", {})).status == 404


async def test_a_note_edited_after_the_plan_is_refused_by_the_api(
    tmp_path: Path, configure: Callable[..., Config], api_for: Callable[..., Awaitable[Any]]
) -> None:
    api, vault = await _api(tmp_path, configure, api_for)
    plan = (await api.get("/v1/adopt")).json
    (vault / "Recipes/Dal.md").write_text("---\ntags: recipe\n---\n# Dal\nMore chilli.\n", "utf-8")
    edited = (vault / "Recipes/Dal.md").read_bytes()
    notes = [{"path": p["path"], "digest": p["digest"]} for p in plan["proposals"]]
    applied = (await api.post("/v1/adopt/apply", {"notes": notes})).json
    assert applied["applied"] == ["Daily/2026-11-02.md"]
    assert [r["path"] for r in applied["refused"]] == ["Recipes/Dal.md"]
    assert (vault / "Recipes/Dal.md").read_bytes() == edited


async def test_a_private_folders_notes_are_hidden_and_not_applied_outside_private_mode(
    tmp_path: Path, configure: Callable[..., Config], api_for: Callable[..., Awaitable[Any]]
) -> None:
    """ora.yaml `private: [Health/]` hides a note as its #private tag would: the dry run only
    counts it, and an apply outside private mode refuses it without naming it."""
    vault = write_notes(tmp_path / "vault", {
        **NOTES, "ora.yaml": "private: [Health/]\n",
        "Health/Therapy.md": "Talked about the zqx nightmares.\n"})
    api = await api_for(configure(vault, tmp_path / "data"))
    await api.wait_reconciled()
    plan = (await api.get("/v1/adopt")).json
    assert "zqx" not in str(plan).casefold() and "Therapy" not in str(plan)
    assert plan["summary"]["private_hidden"] == 2
    therapy = next(p for p in (await api.get("/v1/adopt?private=true")).json["proposals"]
                   if p["path"] == "Health/Therapy.md")
    assert therapy["private"]
    wanted = {"notes": [{"path": therapy["path"], "digest": therapy["digest"]}]}
    refused = (await api.post("/v1/adopt/apply", wanted)).json
    assert refused["applied"] == [] and refused["private_hidden"] == 1
    assert "Therapy" not in str(refused)
    assert (vault / "Health/Therapy.md").read_text(encoding="utf-8").startswith("Talked")


async def test_private_notes_are_adopted_only_in_private_mode(
    tmp_path: Path, configure: Callable[..., Config], api_for: Callable[..., Awaitable[Any]]
) -> None:
    api, vault = await _api(tmp_path, configure, api_for)
    plan = (await api.get("/v1/adopt?private=true")).json
    secret = next(p for p in plan["proposals"] if p["private"])
    wanted = {"notes": [{"path": secret["path"], "digest": secret["digest"]}]}
    refused = (await api.post("/v1/adopt/apply", wanted)).json
    assert refused["applied"] == [] and refused["private_hidden"] == 1
    assert "zqx" not in str(refused)
    applied = (await api.post("/v1/adopt/apply", {**wanted, "private": True})).json
    assert applied["applied"] == ["Journal/Secret zqx.md"]
    undone = (await api.post("/v1/adopt/undo", {})).json
    assert undone["restored"] == [] and undone["private_hidden"] == 1
    assert (vault / "Journal/Secret zqx.md").read_text(encoding="utf-8") == NOTES[
        "Journal/Secret zqx.md"]
