"""An engram's title and text come from outside (a turn, a model, a review's edits): the engram
holds no control character of them (a NUL makes Ora take it for a binary file, never indexed),
and its file is named for its title as a reader would type it, without the invisible mark that
keeps a tag of the turn from being one."""

from __future__ import annotations

from pathlib import Path

from sidecar.cleaning import Queue
from sidecar.extraction import IndexEngrams, accept, edited, load_source, plan_extraction
from sidecar.index import open_index
from sidecar.models.embedder import Embedder
from sidecar.vault.inert import inert_mark
from sidecar.vault.note import read_note
from tests.notes import write_notes

from .conftest import chat_text, settings

NOTE = "Chats/Ora/tagged.md"


async def _kept(tmp_path: Path, embedder: Embedder, claim: str,
                edits: dict[str, dict[str, str]] | None = None) -> tuple[Path, list[str]]:
    """A vault of one chat note holding `claim` as an answer, its proposals kept (with `edits`
    given by their order: "0" the first); the vault and the engrams written."""
    vault = write_notes(tmp_path / "vault", {NOTE: chat_text("tagged", [("assistant", claim)])})
    config = settings(vault)
    with open_index(config, embedder=embedder) as index:
        index.reconcile()
        plan = await plan_extraction(config, load_source(config, note=NOTE),
                                     IndexEngrams(index, embedder, private=False))
    assert plan.proposals
    chosen = edited(plan.proposals, {plan.proposals[int(n)].id: e
                                     for n, e in (edits or {}).items()})
    queue = Queue(config.data, vault)
    try:
        done = accept(vault, int(config.max_file_bytes), plan, chosen, queue, data=None)
    finally:
        queue.close()
    return vault, done.written


async def test_an_engram_from_a_turn_with_a_tag_is_named_without_the_inert_mark(
    tmp_path: Path, embedder: Embedder,
) -> None:
    # Before: the chat note's text holds `#` + mark + `baking`; the title taken from it kept the
    # mark, in the file name too: a name no one can type in a [[link]].
    claim = "Steam in the first minutes of baking gives bread a glossy crust #baking."
    vault, written = await _kept(tmp_path, embedder, claim)
    assert written == ["Engrams/Steam in the first minutes of baking gives bread a glossy crust "
                       "baking.md"]
    note = read_note(vault, written[0], 1 << 20)
    assert "baking" not in note.tags  # the turn's tag is still no tag of the engram: inert
    heading = note.body.strip().splitlines()[0]
    assert heading.replace(inert_mark(), "") == f"# {claim.removesuffix('.')}"


async def test_an_engram_holds_no_control_character_of_a_review_edit(
    tmp_path: Path, embedder: Embedder,
) -> None:
    # Before: the edit's NUL, ESC and BEL were written: Ora took the engram for a binary file.
    claim = "Steam in the first minutes of baking gives bread a glossy crust."
    edit = {"text": "Steam \x00gives bread\x1b[2J a glossy\x07 crust.", "title": "Steam\x00 crust"}
    vault, written = await _kept(tmp_path, embedder, claim, {"0": edit})
    assert written == ["Engrams/Steam crust.md"]
    data = (vault / written[0]).read_bytes()
    assert not any(byte < 0x20 and byte not in b"\t\n" for byte in data), data
    note = read_note(vault, written[0], 1 << 20)  # a note, not a binary file
    assert "Steam  gives bread [2J a glossy  crust." in note.body
