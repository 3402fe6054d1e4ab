"""Vaults written on the fly and indexes opened on them, with the real embedder and stores."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from sidecar.index import Index, open_index
from sidecar.models.embedder import Embedder
from sidecar.settings import make_config


def note(type_: str, body: str, tags: Sequence[str] = (), **extra: Any) -> str:
    """A note's text: frontmatter (nexus, type, tags, extra keys with '_' for ' ') and body."""
    lines = ["---", "nexus: []", f"type: {type_}", f"tags: {json.dumps(list(tags))}"]
    lines += [f"{key.replace('_', ' ')}: {json.dumps(value)}" for key, value in extra.items()]
    return "\n".join([*lines, "---", "", body, ""])


def write(vault: Path, rel: str, text: str | bytes) -> Path:
    target = vault / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        target.write_bytes(text)
    else:
        target.write_text(text, encoding="utf-8")
    return target


SPACED = note(
    "engram",
    "# Spaced repetition\n\nReviewing at growing intervals beats cramming for retention.\n\n"
    "## Why it works\n\nEach retrieval after a gap strengthens the memory trace.",
    tags=["learning"],
)
KETTLE = note("engram", "# Kettle descaling\n\nVinegar dissolves limescale in a kettle.")
FERMENT = note("resource", "# Sourdough\n\nA starter ferments flour with wild yeast.")


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A small vault: two engrams, a resource, and a matrix note (not retrievable)."""
    root = tmp_path / "vault"
    write(root, "Engrams/Spaced repetition.md", SPACED)
    write(root, "Engrams/Kettle.md", KETTLE)
    write(root, "Resources/Sourdough.md", FERMENT)
    write(root, "Matrices/Home.md", note("matrix", "# Home\n\nLinks to everything."))
    return root


OpenIndex = Callable[..., Index]


@pytest.fixture
def open_idx(tmp_path: Path, embedder: Embedder) -> Iterator[OpenIndex]:
    """Open (writer) indexes on a vault; all are closed at teardown."""
    opened: list[Index] = []

    def opener(
        root: Path, *, data: Path | None = None, emb: Embedder | None = None, **settings: Any
    ) -> Index:
        config = make_config(root, data or tmp_path / "data", **settings)
        index = open_index(config, writer=True, embedder=emb or embedder)
        opened.append(index)
        return index

    yield opener
    for index in opened:
        index.close()


def stored_models(index: Index, namespace: str = "default") -> set[str]:
    """The model ids stored with the public vectors of `namespace`."""
    got = index.chroma.collection(namespace, False, create=False)
    assert got is not None
    metas = got.get(include=["metadatas"])["metadatas"] or []
    return {str(m["model"]) for m in metas}
