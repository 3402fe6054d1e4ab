"""Undoing extractions of a chat note that changed since: the conversation went on (Ora appended
turns and properties), its owner edited the frontmatter or took the ids out by hand. Each undo
takes exactly its extraction's record back out of the note, keeping every other edit, so its
claims are proposed again; one it cannot take back is refused once, saying what to do, and the
next undo goes on to the extraction before it.

Before: an undo only restored a note byte-identical to what Ora wrote; any other was refused
("edited") and its journal stayed the latest, so every later undo gave the same refusal, the
earlier extractions could never be undone, and the refused ids stayed in `extracted`, where the
gate skips them: those claims were never proposed again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sidecar.cleaning import Queue
from sidecar.errors import NotFound
from sidecar.extraction import IndexEngrams, Undone, accept, load_source, plan_extraction
from sidecar.extraction.accept import undo_extraction
from sidecar.extraction.proposals import Plan
from sidecar.index import open_index
from sidecar.memory import ConversationMemory, Episodic, open_store
from sidecar.models.embedder import Embedder
from sidecar.settings import Config
from sidecar.vault.journal import journal_folder
from tests.notes import write_notes

from .conftest import chat_text, settings

NOTE = "Chats/Ora/crust.md"
CLAIMS = ["Cold proofing for 72 hours makes the gluten collapse.",
          "Rye flour ferments faster than white flour because it holds more enzymes.",
          "I bake my loaves in a cast iron Dutch oven at 250 degrees."]
TURNS = [("user", CLAIMS[0]), ("assistant", CLAIMS[1]), ("user", CLAIMS[2])]


def _undated(text: str) -> str:
    """A chat note without date properties (Ora's append then adds `date modified` at the end
    of the frontmatter, below `extracted`)."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if not line.startswith("date "))


class Kept:
    """Two extractions of one chat note: the first claim, then the other two."""

    def __init__(self, config: Config, embedder: Embedder) -> None:
        self.config, self.embedder = config, embedder
        self.queue = Queue(config.data, config.vault)

    async def plan(self) -> Plan:
        with open_index(self.config, embedder=self.embedder) as index:
            index.reconcile()
            return await plan_extraction(self.config, load_source(self.config, note=NOTE),
                                         IndexEngrams(index, self.embedder, private=False))

    async def keep_twice(self) -> tuple[list[str], list[str]]:
        plan = await self.plan()
        assert [p.text for p in plan.proposals] == CLAIMS
        first = accept(self.config.vault, int(self.config.max_file_bytes), await self.plan(),
                       plan.proposals[:1], self.queue, data=None).written
        plan = await self.plan()
        rest = accept(self.config.vault, int(self.config.max_file_bytes), plan,
                      plan.proposals, self.queue, data=None).written
        return first, rest

    def undo(self) -> Undone:
        return undo_extraction(self.config.vault, self.queue, private=False, data=None)

    def go_on(self) -> None:
        """The conversation goes on: Ora appends a question and its answer to the chat note."""
        with open_index(self.config, embedder=self.embedder) as index:
            store = open_store(self.config.data)
            try:
                memory = ConversationMemory(self.config, store, Episodic(index.chroma, "default"),
                                            self.embedder, "crust")
                memory.notes.sync()
                memory.remember("user", "What about spelt flour?")
                memory.remember("assistant", "Spelt ferments a little faster.", topic="Bread")
            finally:
                store.close()

    def text(self) -> str:
        return (self.config.vault / NOTE).read_text(encoding="utf-8")


@pytest.fixture
async def kept(vault: Path, embedder: Embedder) -> Any:
    write_notes(vault, {NOTE: chat_text("crust", TURNS)})
    out = Kept(settings(vault), embedder)
    yield out
    out.queue.close()


def _without(text: str, ids: list[str]) -> str:
    for i in ids:
        text = text.replace(f'- "{i}"\n', "", 1)
    return text.replace("extracted:\n", "", 1) if "extracted:\n-" not in text else text


def _ids(plan: Plan) -> list[str]:
    return [p.id for p in plan.proposals]


async def test_undo_after_the_conversation_went_on_puts_back_the_frontmatter_alone(
    kept: Kept,
) -> None:
    path = kept.config.vault / NOTE
    path.write_text(_undated(kept.text()), encoding="utf-8")
    ids = _ids(await kept.plan())
    first, rest = await kept.keep_twice()
    kept.go_on()
    went_on = kept.text()
    assert f'extracted:\n- "{ids[0]}"\n- "{ids[1]}"\n- "{ids[2]}"\ndate modified: ' in went_on
    assert "cluster: Bread\n---\n" in went_on
    assert went_on.endswith("Spelt ferments a little faster.\n")

    undone = kept.undo()
    assert undone.removed == rest and undone.restored == [NOTE] and undone.refused == []
    assert kept.text() == _without(went_on, ids[1:])  # every other byte kept
    undone = kept.undo()  # the earlier extraction is reached
    assert undone.removed == first and undone.restored == [NOTE] and undone.refused == []
    assert kept.text() == _without(went_on, ids)
    assert not journal_folder(kept.config.vault).exists()
    with pytest.raises(NotFound):
        kept.undo()
    # The claims are proposed again; the turns Ora appended are the conversation's still.
    plan = await kept.plan()
    assert [p.text for p in plan.proposals][:3] == CLAIMS and _ids(plan)[:3] == ids


async def test_undo_after_the_frontmatter_was_edited_takes_out_exactly_its_ids(
    kept: Kept,
) -> None:
    ids = _ids(await kept.plan())
    await kept.keep_twice()
    kept.go_on()
    path = kept.config.vault / NOTE
    path.write_text(kept.text().replace("tags: []", "tags: [bread]  # mine"), encoding="utf-8")
    edited = kept.text()

    undone = kept.undo()
    assert undone.restored == [NOTE] and undone.refused == []
    assert kept.text() == _without(edited, ids[1:])
    undone = kept.undo()
    assert undone.restored == [NOTE] and undone.refused == []
    assert kept.text() == _without(edited, ids)
    assert "tags: [bread]  # mine\n" in kept.text() and "extracted" not in kept.text()
    assert _ids(await kept.plan())[:3] == ids


async def test_undo_after_the_ids_were_taken_out_by_hand_is_done(kept: Kept) -> None:
    ids = _ids(await kept.plan())
    first, rest = await kept.keep_twice()
    kept.go_on()
    path = kept.config.vault / NOTE
    path.write_text(_without(kept.text(), ids), encoding="utf-8")
    by_hand = kept.text()

    undone = kept.undo()
    assert undone.removed == rest and undone.restored == [] and undone.refused == []
    undone = kept.undo()
    assert undone.removed == first and undone.refused == []
    assert kept.text() == by_hand and not journal_folder(kept.config.vault).exists()


def _anchors(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("tags: []", "tags: &mine [bread]\nkeywords: *mine"), "utf-8")


@pytest.mark.parametrize("change", ["anchors", "deleted"])
async def test_an_undo_that_cannot_take_its_record_back_lets_the_next_undo_go_on(
    kept: Kept, change: str,
) -> None:
    ids = _ids(await kept.plan())
    first, rest = await kept.keep_twice()
    path = kept.config.vault / NOTE
    if change == "anchors":  # YAML Ora never edits (an edit would expand them)
        _anchors(path)
    else:
        path.unlink()
    left = path.read_bytes() if path.exists() else None

    one = kept.undo()
    assert one.removed == rest and one.restored == []
    assert [r["path"] for r in one.refused] == [NOTE]
    assert all(i in one.refused[0]["reason"] for i in ids[1:])
    assert "by hand" in one.refused[0]["reason"]
    two = kept.undo()  # the earlier extraction, not the same refusal again
    assert two.journal != one.journal and two.removed == first
    assert ids[0] in two.refused[0]["reason"] and ids[1] not in two.refused[0]["reason"]
    with pytest.raises(NotFound):
        kept.undo()
    assert (path.read_bytes() if path.exists() else None) == left
    # Each journal stays for the record, marked done as far as it went.
    journals = sorted(journal_folder(kept.config.vault).iterdir())
    assert all("undo_kept" in json.loads(j.read_text(encoding="utf-8")) for j in journals)


async def test_a_read_only_note_is_refused_and_undone_once_writable(kept: Kept) -> None:
    before = kept.text()
    first, rest = await kept.keep_twice()
    path = kept.config.vault / NOTE
    path.chmod(0o444)
    one = kept.undo()  # before: NoteNotWritable, the journal left as if nothing was done
    assert one.removed == rest and "read-only" in one.refused[0]["reason"]
    path.chmod(0o644)
    two = kept.undo()  # the same extraction, its note now
    assert two.journal == one.journal and two.restored == [NOTE] and two.refused == []
    three = kept.undo()
    assert three.removed == first and three.restored == [NOTE] and kept.text() == before


async def test_an_engram_edited_since_does_not_hold_back_the_earlier_extraction(
    kept: Kept,
) -> None:
    first, rest = await kept.keep_twice()
    mine = kept.config.vault / rest[0]
    mine.write_text(mine.read_text(encoding="utf-8") + "\nMy own addition.\n", "utf-8")
    one = kept.undo()
    assert one.removed == rest[1:] and [r["path"] for r in one.refused] == [rest[0]]
    assert one.restored == [NOTE]
    two = kept.undo()
    assert two.removed == first and two.refused == [] and mine.is_file()
