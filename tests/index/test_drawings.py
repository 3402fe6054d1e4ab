"""Excalidraw drawings in a real index: found by their text under their name, a private one
only in private mode, and no longer all alike (the plugin's banner was every drawing's first
chunk, so a query about switching views found the drawings first)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main
from sidecar.models.embedder import Embedder
from sidecar.retrieval.search import SearchOptions, search_sync
from tests.drawings import excalidraw

from .conftest import OpenIndex, write

KITCHEN = excalidraw([("Kitchen floor plan", "a1b2c3d4"),
                      ("Window wall faces the garden", "d4e5f6a7")])
PUMP = excalidraw([("Boiler pressure gauge reads 1.5 bar", "Zx81abcd"),
                   ("Radiator loop", "Qw12efgh")], layout="old")
NOTES = {
    "Drawings/Kitchen.excalidraw.md": KITCHEN,
    "Heating.excalidraw.md": PUMP,
    "Obsidian setup.md": ("# Obsidian setup\n\nI switch between the editing view and the "
                          "reading view with Ctrl+E.\n"),
    "Renovation.md": "# Renovation\n\nWe renovate the kitchen in spring; new glazing too.\n",
    "Sourdough.md": "A starter ferments flour with wild yeast.\n",
}


def _lines(text: str, first: int, last: int) -> str:
    return "\n".join(text.split("\n")[first - 1 : last])


def test_a_private_drawing_is_found_only_in_private_mode_by_its_text(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    vault = tmp_path / "vault"
    secret = excalidraw([("Safe combination is left 32 right 17", "s4f3c0d3")],
                        tags="[excalidraw, private]")
    write(vault, "Drawings/Safe.excalidraw.md", secret)
    write(vault, "Drawings/Kitchen.excalidraw.md", KITCHEN)
    index = open_idx(vault)
    index.reconcile()
    query = "safe combination"
    public = search_sync(index, embedder, None, query, SearchOptions(k=5, rerank=False))
    assert "Drawings/Safe.excalidraw.md" not in [r["path"] for r in public["results"]]
    assert index.bm25_search("combination", 5, private=False) == []
    private = search_sync(index, embedder, None, query,
                          SearchOptions(k=5, rerank=False, private=True))
    top = private["results"][0]
    assert top["path"] == "Drawings/Safe.excalidraw.md" and top["private"] is True
    assert top["text"] == "Safe combination is left 32 right 17 ^s4f3c0d3"
    assert top["text"] == _lines(secret, top["line_start"], top["line_end"])
    assert top["title"] == "Safe" and top["block_ids"] == ["s4f3c0d3"]


@pytest.fixture(autouse=True)
def _int8(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")  # the test embedder, from its PyPI package
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))


def _ora(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_ora_search_finds_drawings_by_their_text_not_the_plugins_banner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "vault"
    for rel, text in NOTES.items():
        write(vault, rel, text)
    indexed = _ora(capsys, "index", str(vault))
    assert indexed["files"] == len(NOTES) and indexed["chunks"] == len(NOTES)  # one each

    banner = _ora(capsys, "search", str(vault), "Switch to Excalidraw view", "--no-rerank")
    paths = [r["path"] for r in banner["results"]]
    assert paths[0] == "Obsidian setup.md"
    assert all("Switch" not in r["text"] for r in banner["results"])

    found = _ora(capsys, "search", str(vault), "boiler pressure gauge", "--no-rerank")
    top = found["results"][0]
    assert top["path"] == "Heating.excalidraw.md" and top["title"] == "Heating"
    assert top["text"] == _lines(PUMP, top["line_start"], top["line_end"])
    assert top["text"].startswith("Boiler pressure gauge reads 1.5 bar ^Zx81abcd")
