"""The one name a non-private response gives that a private conversation's note touches, its
public twin's note (`c-base 2.md`), is the name an unknown id's note takes where a note holds
`c-base.md`: responses outside private mode are the same, word for word, whether the note at
`Chats/Ora/c-base.md` is the private conversation's or its owner's own private note.

Side by side as in `test_private_conversation_twins.py`: vault A holds private conversations of
the ids asked and the owner's private note at `Chats/Ora/x-base.md`; vault B the private
conversations of other ids and that same private note at `Chats/Ora/c-base.md`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tests.notes import write_notes
from tests.server.conftest import NOTES
from tests.server.test_private_conversation_twins import HELD, _public_sequence, _with_private

OWN_NOTE = "---\ntags: [private]\n---\nThe code of the locker is 31-12-07.\n"


async def _run(api_for: Callable[..., Awaitable[Any]], configure: Callable[..., Any],
               root: Path, ids: dict[str, str], own: str) -> list[Any]:
    vault = write_notes(root / "vault", {**NOTES, f"Chats/Ora/{own}.md": OWN_NOTE})
    api = await api_for(configure(vault, root / "data"))
    await _with_private(api, vault, ids)
    return await _public_sequence(api)


async def test_a_twins_note_is_named_as_an_unknown_ids_where_a_private_note_holds_its_name(
    api_for: Callable[..., Awaitable[Any]], configure: Callable[..., Any], tmp_path: Path,
) -> None:
    held = await _run(api_for, configure, tmp_path / "a",
                      {"base": "c-base", "renamed": "c-renamed"}, HELD["c-base"])
    other = await _run(api_for, configure, tmp_path / "b",
                       {"base": HELD["c-base"], "renamed": HELD["c-renamed"]}, "c-base")
    for step, (mine, theirs) in enumerate(zip(held, other, strict=True)):
        assert mine == theirs, f"response {step} differs"
    text = json.dumps(held, sort_keys=True)
    assert "Chats/Ora/c-base 2.md" in text and "Chats/Ora/c-base.md" not in text
