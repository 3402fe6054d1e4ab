"""Notes the server must not write answer with a clear JSON error, never a 500 or a rewrite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.notes import immutable

NOTE = "Inbox/No dates.md"


async def test_lint_fix_of_a_read_only_note_is_409_and_leaves_it(api: Any, vault: Path) -> None:
    note = vault / NOTE
    before = note.read_bytes()
    note.chmod(0o444)
    answer = await api.post("/v1/lint/fix", {"path": NOTE})
    assert answer.status == 409
    assert answer.json["error"]["code"] == "note_not_writable"
    assert "read-only" in answer.json["error"]["message"]
    assert note.read_bytes() == before


async def test_lint_fix_of_an_immutable_note_is_409_not_500(api: Any, vault: Path) -> None:
    note = vault / NOTE
    before = note.read_bytes()
    with immutable(note):
        answer = await api.post("/v1/lint/fix", {"path": NOTE})
    assert answer.status == 409
    assert answer.json["error"]["code"] == "note_not_writable"
    assert "immutable" in answer.json["error"]["message"]
    assert note.read_bytes() == before
