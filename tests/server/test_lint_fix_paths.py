"""`POST /v1/lint/fix` finds a note by the name as typed, however the vault saved it, and leaves a
note whose frontmatter it cannot read unwritten, saying why in its diagnostics."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import pytest

from sidecar.settings import Config

UNDATED = "---\nnexus: []\ntype: resource\ntags: [{tag}]\n---\n# Café\n\nEspresso and sourdough.\n"
TYPED = "Notes/Café.md"  # composed (NFC), as the plugin and a person type it


def _save_decomposed(config: Config, tag: str) -> Path:
    """The note saved under its decomposed (NFD) name, as macOS or a sync tool may leave it."""
    file = config.vault / unicodedata.normalize("NFD", TYPED)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(UNDATED.format(tag=tag), encoding="utf-8")
    return file


@pytest.mark.parametrize("private", [False, True])
async def test_lint_fix_finds_a_note_saved_decomposed_by_its_composed_name(
    api: Any, config: Config, private: bool,
) -> None:
    # Before: 404 "no note at Notes/Café.md", while /v1/related found the note by that path.
    file = _save_decomposed(config, "food")
    answer = await api.post("/v1/lint/fix", {"path": TYPED, "private": private})
    assert answer.status == 200, answer.json
    assert answer.json["changed"] is True
    assert "date created:" in file.read_text(encoding="utf-8")


async def test_lint_fix_answers_a_private_note_saved_decomposed_as_a_missing_one(
    api: Any, config: Config,
) -> None:
    file = _save_decomposed(config, "private")
    before = file.read_bytes()
    missing = await api.post("/v1/lint/fix", {"path": "Notes/Cafë.md"})
    answer = await api.post("/v1/lint/fix", {"path": TYPED})
    assert answer.status == missing.status == 404
    assert answer.body.replace(b"Caf\\u00e9", b"Caf\\u00eb") == missing.body
    assert file.read_bytes() == before


@pytest.mark.parametrize(("text", "code"), [
    ("---\ntags: [unclosed\n---\nbody\n", "yaml-invalid"),
    ("---\ntype: resource\nnever closed\n", "frontmatter-unclosed"),
])
async def test_lint_fix_leaves_a_note_with_unreadable_frontmatter_unwritten(
    api: Any, config: Config, text: str, code: str,
) -> None:
    # What docs/http-api.md says (it said 422): nothing written, the diagnostic says why.
    (config.vault / "Broken.md").write_text(text, encoding="utf-8")
    answer = await api.post("/v1/lint/fix", {"path": "Broken.md", "private": True})
    assert answer.status == 200
    assert answer.json["changed"] is False
    assert code in [d["code"] for d in answer.json["diagnostics"]]
    assert (config.vault / "Broken.md").read_text(encoding="utf-8") == text
