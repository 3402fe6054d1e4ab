"""Related notes: by vectors and links, never the note itself, private ones in private mode."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import pytest

from sidecar.cli import main
from sidecar.errors import NotFound
from sidecar.index.scope import NoteFilter
from sidecar.retrieval.related import RelatedOptions, related

from .conftest import IndexVault, NoteSpec, SearchVault

SLEEP = "Sleep consolidates memories: deep sleep replays the day's learning in the hippocampus."
SLEEP2 = "During deep sleep the hippocampus replays memories, which consolidates learning."
SLEEP3 = "Naps with deep sleep help memory consolidation after studying."
BREAD = "Sourdough bread rises because wild yeast ferments the flour and releases gas."
TAXES = "File the quarterly tax return before the deadline to avoid a penalty."


def _paths(document: dict[str, Any]) -> list[str]:
    return [r["path"] for r in document["results"]]


async def _related(vault: SearchVault, path: str, **options: Any) -> dict[str, Any]:
    return await related(vault.index, vault.embedder, path, RelatedOptions(**options))


@pytest.fixture
def notes() -> list[NoteSpec]:
    return [
        NoteSpec("Engrams/Sleep.md", "engram", f"# Sleep\n\n{SLEEP}\n\nSee [[Taxes]]."),
        NoteSpec("Engrams/Replay.md", "engram", SLEEP2, tags=["memory"]),
        NoteSpec("Resources/Naps.md", "resource", SLEEP3),
        NoteSpec("Engrams/Bread.md", "engram", BREAD),
        NoteSpec("Engrams/Taxes.md", "engram", TAXES),
        NoteSpec("Engrams/Dream diary.md", "engram", SLEEP2 + " Last night again.",
                 tags=["private"]),
    ]


async def test_similar_notes_come_first_and_the_note_is_never_related_to_itself(
    index_vault: IndexVault, notes: list[NoteSpec]
) -> None:
    vault = index_vault(notes)
    document = await _related(vault, "Engrams/Sleep.md", k=10)
    paths = _paths(document)
    assert "Engrams/Sleep.md" not in paths and len(paths) == len(set(paths))
    assert set(paths[:2]) == {"Engrams/Replay.md", "Resources/Naps.md"}
    assert document["path"] == "Engrams/Sleep.md"
    for result in document["results"]:
        why = result["why"]
        assert result["score"] == pytest.approx(
            why["similarity"] * why["type_weight"] * why["decay"], abs=1e-5)
    # Even a note whose text is duplicated elsewhere is not its own neighbour.
    twin = index_vault([NoteSpec("A/One.md", "engram", SLEEP), NoteSpec("B/One.md", "engram",
                                                                        SLEEP)])
    assert _paths(await _related(twin, "A/One.md")) == ["B/One.md"]


async def test_a_note_saved_decomposed_is_found_by_its_name_as_typed(
    index_vault: IndexVault, notes: list[NoteSpec]
) -> None:
    # Before: "Café notes/Crème brûlée.md" typed composed was "no such note" where macOS had
    # saved the name decomposed (NFD).
    saved = unicodedata.normalize("NFD", "Café notes/Crème brûlée.md")
    vault = index_vault([*notes, NoteSpec(saved, "engram", SLEEP3 + " With a custard.")])
    document = await _related(vault, "Café notes/Crème brûlée.md", k=3)
    assert document["path"] == saved and saved not in _paths(document)
    assert "Resources/Naps.md" in _paths(document)


async def test_a_linked_note_gets_the_link_bonus(
    index_vault: IndexVault, notes: list[NoteSpec]
) -> None:
    vault = index_vault(notes)
    results = {r["path"]: r for r in (await _related(vault, "Engrams/Sleep.md"))["results"]}
    taxes, bread = results["Engrams/Taxes.md"], results["Engrams/Bread.md"]
    assert taxes["why"]["linked"] is True and bread["why"]["linked"] is False
    assert taxes["why"]["similarity"] == pytest.approx(taxes["why"]["fused"] + 0.15, abs=1e-5)
    # The link works both ways: Taxes is linked from Sleep, so Sleep is linked to Taxes.
    back = {r["path"]: r for r in (await _related(vault, "Engrams/Taxes.md"))["results"]}
    assert back["Engrams/Sleep.md"]["why"]["linked"] is True


@pytest.mark.parametrize("link", ["[the return](Taxes.md)", "[the return](<../Engrams/Taxes.md>)",
                                  "[the return](Engrams/Taxes.md#Deadline)"])
async def test_a_markdown_link_gets_the_link_bonus_both_ways(
    index_vault: IndexVault, link: str,
) -> None:
    # A vault with "Use [[Wikilinks]]" off links notes with Markdown links: they count as links.
    vault = index_vault([NoteSpec("Resources/Sleep.md", "engram", f"{SLEEP}\n\nSee {link}."),
                         NoteSpec("Engrams/Taxes.md", "engram", TAXES),
                         NoteSpec("Engrams/Bread.md", "engram", BREAD)])
    results = {r["path"]: r for r in (await _related(vault, "Resources/Sleep.md"))["results"]}
    assert results["Engrams/Taxes.md"]["why"]["linked"] is True
    assert results["Engrams/Bread.md"]["why"]["linked"] is False
    back = {r["path"]: r for r in (await _related(vault, "Engrams/Taxes.md"))["results"]}
    assert back["Resources/Sleep.md"]["why"]["linked"] is True


async def test_private_notes_stay_out_of_non_private_related_lists(
    index_vault: IndexVault, notes: list[NoteSpec]
) -> None:
    vault = index_vault(notes)
    public = await _related(vault, "Engrams/Replay.md", k=10)
    assert "Engrams/Dream diary.md" not in _paths(public)
    assert "Last night" not in json.dumps(public)
    private = await _related(vault, "Engrams/Replay.md", k=10, private=True)
    diary = next(r for r in private["results"] if r["path"] == "Engrams/Dream diary.md")
    assert diary["private"] is True
    with pytest.raises(NotFound) as hidden:
        await _related(vault, "Engrams/Dream diary.md")
    with pytest.raises(NotFound) as missing:
        await _related(vault, "Engrams/Dream journal.md")
    assert (hidden.value.code, hidden.value.message.replace("diary", "journal")) == (
        missing.value.code, missing.value.message)  # no oracle: the same answer
    assert "Engrams/Replay.md" in _paths(
        await _related(vault, "Engrams/Dream diary.md", private=True))


async def test_a_note_in_a_private_folder_not_indexed_yet_is_not_found_outside_private_mode(
    index_vault: IndexVault, notes: list[NoteSpec]
) -> None:
    # Before: a note the index had not seen yet was judged by its tag alone, so one in an
    # ora.yaml private folder was answered (and its existence told) outside private mode.
    vault = index_vault(notes)
    (vault.config.vault / "ora.yaml").write_text("private:\n  - Health/\n", encoding="utf-8")
    vault.index.reconcile()  # the settings now say Health/ is private
    (vault.config.vault / "Health").mkdir()
    (vault.config.vault / "Health/Sleep clinic.md").write_text(SLEEP2, encoding="utf-8")
    with pytest.raises(NotFound):
        await _related(vault, "Health/Sleep clinic.md")
    assert "Engrams/Replay.md" in _paths(
        await _related(vault, "Health/Sleep clinic.md", private=True))


async def test_filters_apply_and_k_notes_come_back(
    index_vault: IndexVault, notes: list[NoteSpec]
) -> None:
    vault = index_vault(notes)
    only_resources = NoteFilter.make(types=["resource"])
    assert _paths(await _related(vault, "Engrams/Sleep.md", filters=only_resources)) == [
        "Resources/Naps.md"]
    tagged = NoteFilter.make(tags=["memory"])
    assert _paths(await _related(vault, "Engrams/Sleep.md", filters=tagged)) == [
        "Engrams/Replay.md"]
    assert len(_paths(await _related(vault, "Engrams/Sleep.md", k=2))) == 2


async def test_a_note_without_stored_chunks_is_embedded_on_the_fly(
    index_vault: IndexVault, notes: list[NoteSpec]
) -> None:
    vault = index_vault([*notes, NoteSpec("Drafts/Essay.md", "working", SLEEP3 + " " + SLEEP)])
    paths = _paths(await _related(vault, "Drafts/Essay.md", k=3))
    assert paths[0] in {"Engrams/Sleep.md", "Resources/Naps.md", "Engrams/Replay.md"}
    with pytest.raises(NotFound, match="no note"):
        await _related(vault, "Drafts/Missing.md")


def test_cli_related_prints_notes_and_json(
    index_vault: IndexVault, notes: list[NoteSpec], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")
    vault = index_vault(notes)
    root = str(vault.config.vault)
    assert main(["related", root, "Engrams/Sleep.md", "--json", "--k", "2"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert len(document["results"]) == 2 and "Engrams/Sleep.md" not in _paths(document)
    assert main(["related", root, "Engrams/Sleep.md", "--folder", "Resources"]) == 0
    out = capsys.readouterr().out
    assert "1 notes related to Engrams/Sleep.md" in out and "Resources/Naps.md:" in out
    assert main(["related", root, "Engrams/Dream diary.md"]) != 0
    assert "private mode" in capsys.readouterr().err
    # The note as the shell completes it (absolute, or from the folder above the vault): it
    # used to be refused as "not a path inside the vault".
    monkeypatch.chdir(vault.config.vault.parent)
    for given in (f"{root}/Engrams/Sleep.md", f"{vault.config.vault.name}/Engrams/Sleep.md"):
        assert main(["related", root, given, "--json", "--k", "2"]) == 0
        assert json.loads(capsys.readouterr().out)["path"] == "Engrams/Sleep.md"
