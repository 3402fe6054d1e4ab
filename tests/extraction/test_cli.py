"""`ora extract` keeps what the user chooses, records it in the chat note, undoes it byte for byte
(refusing what was edited since), and treats a private conversation as absent without
`--private`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main

from .conftest import chat_text

TURNS = [
    ("user", "What do I need for a good crust?"),
    ("assistant", "Steam in the first minutes of baking gives bread a glossy crust. "
                  "A hot baking stone stores heat for the base of the loaf."),
    ("user", "I bake my bread in a cast iron pot."),
]
NOTE = "Chats/Ora/crust.md"


@pytest.fixture
def chat(vault: Path, use_settings: Callable[..., Any],
         ora: Callable[..., tuple[int, Any]]) -> Path:
    (vault / NOTE).parent.mkdir(parents=True)
    (vault / NOTE).write_text(chat_text("crust", TURNS), encoding="utf-8")
    (vault / "Chats/Ora/diary.md").write_text(
        chat_text("diary", [("user", "My zqx starter lives in the fridge door.")],
                  private=True), encoding="utf-8")
    use_settings(vault)
    assert ora("index", str(vault))[0] == 0
    return vault


def test_accepting_some_ids_keeps_only_those_and_undo_restores_the_chat_note(
    chat: Path, ora: Callable[..., tuple[int, Any]],
) -> None:
    vault = chat
    before = (vault / NOTE).read_bytes()
    status, plan = ora("extract", str(vault), "--note", NOTE)
    assert status == 0 and len(plan["proposals"]) == 3
    first, second = plan["proposals"][0]["id"], plan["proposals"][1]["id"]
    status, kept = ora("extract", str(vault), "--note", NOTE, "--accept", f"{first},{second}")
    assert status == 0 and len(kept["written"]) == 2
    assert f'extracted:\n- "{first}"\n- "{second}"\n' in (vault / NOTE).read_text(encoding="utf-8")
    assert before.decode().split("---\n", 2)[2] == (vault / NOTE).read_text().split("---\n", 2)[2]
    status, again = ora("extract", str(vault), "--note", NOTE)
    assert [p["id"] for p in again["proposals"]] == [plan["proposals"][2]["id"]]

    status, undone = ora("extract", str(vault), "--undo")
    assert status == 0 and sorted(undone["removed"]) == sorted(kept["written"])
    assert (vault / NOTE).read_bytes() == before
    assert ora("extract", str(vault), "--undo")[0] == 2  # nothing left to undo


def test_undo_refuses_an_engram_edited_since(
    chat: Path, ora: Callable[..., tuple[int, Any]],
) -> None:
    vault = chat
    status, kept = ora("extract", str(vault), "--conversation", "crust", "--accept", "all")
    assert status == 0 and len(kept["written"]) == 3
    edited = vault / kept["written"][0]
    edited.write_text(edited.read_text(encoding="utf-8") + "\nMy own addition.\n",
                      encoding="utf-8")
    status, undone = ora("extract", str(vault), "--undo")
    assert status == 1 and [r["path"] for r in undone["refused"]] == [kept["written"][0]]
    assert sorted(undone["removed"]) == sorted(kept["written"][1:])
    assert edited.read_text(encoding="utf-8").endswith("My own addition.\n")
    assert undone["restored"] == [NOTE]


def test_an_unknown_id_writes_nothing(chat: Path, ora: Callable[..., tuple[int, Any]]) -> None:
    before = {p: p.read_bytes() for p in chat.rglob("*.md")}
    assert ora("extract", str(chat), "--note", NOTE, "--accept", "0123456789abcdef")[0] == 2
    assert {p: p.read_bytes() for p in chat.rglob("*.md")} == before


def test_a_private_conversation_needs_private_mode(
    chat: Path, ora: Callable[..., tuple[int, Any]], capsys: pytest.CaptureFixture[str],
) -> None:
    capsys.readouterr()
    assert main(["extract", str(chat), "--conversation", "diary"]) == 2
    hidden = capsys.readouterr().err
    assert main(["extract", str(chat), "--conversation", "nothing"]) == 2
    assert hidden == capsys.readouterr().err.replace("nothing", "diary")
    assert "zqx" not in hidden
    status, plan = ora("extract", str(chat), "--conversation", "diary", "--private")
    assert status == 0 and [p["text"] for p in plan["proposals"]] == [
        "My zqx starter lives in the fridge door."]
    status, kept = ora("extract", str(chat), "--conversation", "diary", "--private",
                       "--accept", "all")
    text = (chat / kept["written"][0]).read_text(encoding="utf-8")
    assert "  - private\n" in text and "ai-derived" not in text
    status, found = ora("search", str(chat), "zqx starter fridge door", "--no-rerank")
    assert all("zqx" not in r["text"] for r in found["results"])


def test_a_chat_note_in_a_private_folder_needs_private_mode(
    vault: Path, use_settings: Callable[..., Any], ora: Callable[..., tuple[int, Any]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """ora.yaml `private: [Health/]` makes an untagged chat note private as its tag would: absent
    without `--private`, and its claims kept as private engrams."""
    doctor = "Health/Doctor chat.md"
    (vault / "Health").mkdir()
    (vault / doctor).write_text(
        chat_text("doctor", [("user", "My zqx dose goes up to forty milligrams in May.")]),
        encoding="utf-8")
    (vault / "ora.yaml").write_text("private: [Health/]\n", encoding="utf-8")
    use_settings(vault)
    assert ora("index", str(vault))[0] == 0
    capsys.readouterr()
    assert main(["extract", str(vault), "--note", doctor]) == 2
    hidden = capsys.readouterr().err
    assert main(["extract", str(vault), "--note", "Health/None.md"]) == 2
    assert hidden == capsys.readouterr().err.replace("None.md", "Doctor chat.md")
    assert "zqx" not in hidden
    status, plan = ora("extract", str(vault), "--note", doctor, "--private")
    assert status == 0 and [p["text"] for p in plan["proposals"]] == [
        "My zqx dose goes up to forty milligrams in May."]
    status, kept = ora("extract", str(vault), "--note", doctor, "--private", "--accept", "all")
    assert "  - private\n" in (vault / kept["written"][0]).read_text(encoding="utf-8")
    assert ora("index", str(vault))[0] == 0
    status, found = ora("search", str(vault), "zqx dose forty milligrams", "--no-rerank")
    assert all("zqx" not in r["text"] for r in found["results"])
