"""A note's lead sentence (`sidecar/index/leads.py`): which sentence it is, and that the index keeps
its vector in step with the note when the embedder's calibration lifts by it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from sidecar.index import Index, leads, open_index
from sidecar.models.embedder import Embedder
from sidecar.settings import make_config


@pytest.mark.parametrize(("text", "expected"), [
    ("Graph view lets you see your notes. It has filters.", "Graph view lets you see your notes."),
    ("# Graph view\n\nGraph view shows links. More here.", "Graph view shows links."),
    ("# Recipes\nMy favourite is a potato omelette. It takes eggs.",
     "My favourite is a potato omelette."),
    ("## Graph\n#tools #visual\nGraph view shows links.", "Graph view shows links."),
    ("> [!note] Tip\n> A callout first.\n\n| a | b |\n\n![[pic.png]]\n\n```\ncode\n```\n\n"
     "Then the prose.", "Then the prose."),
    ("A [[Core plugins|core plugin]] that shows **every** [[Backlinks]].",
     "A core plugin that shows every Backlinks."),
    ("图谱视图显示笔记之间的关系。它有筛选器。", "图谱视图显示笔记之间的关系。"),
    ("# Only a heading", None),
    ("", None),
])
def test_the_lead_is_the_first_sentence_of_prose(text: str, expected: str | None) -> None:
    assert leads.lead(text) == expected


def test_a_lead_without_a_sentence_end_is_cut() -> None:
    found = leads.lead("word " * 500)
    assert found is not None and len(found) <= leads.MAX_CHARS


def test_only_an_embedder_calibrated_for_leads_gets_them() -> None:
    assert leads.wanted("use-multilingual-v3:onnx:5216e25df660")
    assert not leads.wanted("all-MiniLM-L6-v2:q8:75798cf9ba04")
    assert leads.wanted("remote:multilingual-e5-small@127.0.0.1:8765:384")


@pytest.fixture
def lifted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test embedder (MiniLM) calibrated as one that lifts by leads."""
    monkeypatch.setattr(leads, "calibration", lambda model_id: {"leads": 0.3})


@pytest.fixture
def index(tmp_path: Path, embedder: Embedder) -> Iterator[Index]:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Graph.md").write_text(
        "# Graph view\n\nGraph view shows how notes link. It has filters.\n", encoding="utf-8")
    (vault / "Empty.md").write_text("# Just a title\n", encoding="utf-8")
    (vault / "Secret.md").write_text(
        "---\nprivate: true\n---\nMy salary is kept here. Nobody reads it.\n", encoding="utf-8")
    opened = open_index(make_config(vault), embedder=embedder)
    opened.reconcile()
    yield opened
    opened.close()


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / np.linalg.norm(vector)


@pytest.mark.usefixtures("lifted")
def test_the_index_keeps_each_notes_lead_vector(index: Index, embedder: Embedder) -> None:
    found = index.note_leads(["Graph.md", "Empty.md", "Secret.md"], private=True)
    assert set(found) == {"Graph.md", "Secret.md"}  # a note without prose has none
    expected = _unit(embedder.embed(["Graph view shows how notes link."])[0])
    assert float(_unit(found["Graph.md"]) @ expected) > 0.999
    assert set(index.note_leads(["Graph.md", "Secret.md"], private=False)) == {"Graph.md"}


@pytest.mark.usefixtures("lifted")
def test_a_changed_lead_is_embedded_again_and_a_deleted_note_loses_it(
    index: Index, embedder: Embedder,
) -> None:
    vault = index.config.vault
    before = index.note_leads(["Graph.md"], private=False)["Graph.md"].copy()
    (vault / "Graph.md").write_text(
        "# Graph view\n\nTomatoes need water every morning.\n", encoding="utf-8")
    index.apply_paths(["Graph.md"])
    after = index.note_leads(["Graph.md"], private=False)["Graph.md"]
    assert float(_unit(before) @ _unit(after)) < 0.9
    expected = _unit(embedder.embed(["Tomatoes need water every morning."])[0])
    assert float(_unit(after) @ expected) > 0.999
    (vault / "Graph.md").unlink()
    index.apply_paths(["Graph.md"])
    assert index.note_leads(["Graph.md"], private=True) == {}
    assert index.ledger.lead_keys(index.namespace, ["Graph.md"]) == {}


@pytest.mark.usefixtures("lifted")
def test_an_unchanged_lead_is_not_embedded_again(
    index: Index, monkeypatch: pytest.MonkeyPatch,
) -> None:
    syncer = index._need_writer()
    asked: list[list[str]] = []
    embed = syncer.embedder.embed
    monkeypatch.setattr(syncer.embedder, "embed", lambda texts: asked.append(list(texts))
                        or embed(texts))
    index.reconcile()
    assert not any("Graph view shows how notes link." in texts for texts in asked)


def test_an_embedder_not_calibrated_for_leads_writes_none(index: Index) -> None:
    assert index.note_leads(["Graph.md", "Secret.md"], private=True) == {}
