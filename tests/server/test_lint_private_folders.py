"""Lint outside private mode tells nothing of a note private by where it lies (ora.yaml
`private:` folders), exactly as of a `#private` one: a link to it is a link to nothing, and
`lint/fix` answers it as a missing note and leaves it unwritten."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sidecar.server.resources import LINT
from tests.notes import write_notes
from tests.settled_save import settle

from .conftest import NOTES

BLOOD = "Health/Bloodwork.md"
UNDATED = "---\nnexus: []\ntype: resource\ntags: [health]\n---\n# {0}\n\nMy {0} secret.\n"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_notes(tmp_path / "vault", {
        **NOTES, "ora.yaml": "private:\n  - Health/\n", BLOOD: UNDATED.format("ferritin"),
        "Journal/Lintme.md": UNDATED.format("tagged").replace("[health]", "[private]"),
        "Notes/Later.md": UNDATED.format("later")})


async def _links(api: Any, target: str, private: bool = False) -> Any:
    text = f"---\nnexus: ['[[{target}]]']\ntype: engram\ntags: [learning]\n---\nx\n"
    answer = await api.post("/v1/lint", {"path": "Engrams/Draft.md", "text": text,
                                         **({"private": True} if private else {})})
    assert answer.status == 200
    return [d for d in answer.json["diagnostics"] if "nexus" in d["message"]]


async def test_a_link_to_a_folder_private_note_is_a_link_to_nothing(api: Any,
                                                                     vault: Path) -> None:
    nothing = await _links(api, "Nobody")
    assert [d["message"] for d in nothing] == [
        "nexus[0]: no note named 'Nobody' outside private mode"]
    assert json.dumps(await _links(api, "Bloodwork")).replace("Bloodwork", "Nobody") == (
        json.dumps(nothing))
    assert "not a matrix" in json.dumps(await _links(api, "Bloodwork", private=True))
    # ora.yaml changes: lint follows (the watcher reloads it) both ways.
    (vault / "ora.yaml").write_text("private: [Notes/]\n", encoding="utf-8")
    # it drops `Health/`: trusted only once settled (a save read halfway drops it too)
    settle(vault / "ora.yaml")
    await api.app[LINT].reload_settings()
    assert "not a matrix" in json.dumps(await _links(api, "Bloodwork"))
    assert json.dumps(await _links(api, "Later")).replace("Later", "Nobody") == (
        json.dumps(nothing))


@pytest.mark.parametrize("path", [BLOOD, "Journal/Lintme.md"])
async def test_lint_fix_answers_a_private_note_as_a_missing_one(api: Any, vault: Path,
                                                                 path: str) -> None:
    before = (vault / path).read_bytes()
    missing = await api.post("/v1/lint/fix", {"path": "Journal/Nothing.md"})
    answer = await api.post("/v1/lint/fix", {"path": path})
    assert answer.status == missing.status == 404
    assert answer.json["error"]["message"].replace(path, "X") == (
        missing.json["error"]["message"].replace("Journal/Nothing.md", "X"))
    assert json.dumps(answer.json).replace(path, "X") == json.dumps(missing.json).replace(
        "Journal/Nothing.md", "X")
    assert (vault / path).read_bytes() == before
    fixed = await api.post("/v1/lint/fix", {"path": path, "private": True})
    assert fixed.status == 200 and fixed.json["changed"] is True
    assert "date created:" in (vault / path).read_text(encoding="utf-8")


async def test_lint_fix_of_a_link_in_a_private_folder_is_answered_as_a_missing_note(
    api: Any, vault: Path, tmp_path: Path,
) -> None:
    # Before: 400 "… is a symbolic link", which told that something lay there.
    (tmp_path / "elsewhere.md").write_text("Diagnosis.\n", encoding="utf-8")
    (vault / "Health/Diagnosis.md").symlink_to(tmp_path / "elsewhere.md")
    missing = await api.post("/v1/lint/fix", {"path": "Health/Nothing.md"})
    answer = await api.post("/v1/lint/fix", {"path": "Health/Diagnosis.md"})
    assert answer.status == missing.status == 404
    assert json.dumps(answer.json).replace("Diagnosis", "Nothing") == json.dumps(missing.json)
