"""Purpose-built vaults for search tests: notes written here, indexed for real (Chroma + BM25)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from sidecar.index import Index, open_index
from sidecar.models.embedder import Embedder
from sidecar.models.reranker import Reranker
from sidecar.retrieval.fusion import FusionSettings, fusion_settings
from sidecar.retrieval.search import SearchOptions, search
from sidecar.settings import Config, make_config


@dataclass(frozen=True)
class NoteSpec:
    """One note to write: where, its type, tags and body; `extra` adds frontmatter keys."""

    path: str
    type: str
    body: str
    tags: Sequence[str] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)


def render_note(spec: NoteSpec) -> str:
    lines = ["---", "nexus: []", f"type: {spec.type}", f"tags: {json.dumps(list(spec.tags))}"]
    lines += [f"{key}: {json.dumps(value)}" for key, value in spec.extra.items()]
    return "\n".join([*lines, "---", "", spec.body, ""])


def write_vault(vault: Path, notes: Sequence[NoteSpec]) -> None:
    for spec in notes:
        target = vault / spec.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render_note(spec), encoding="utf-8")


@dataclass
class SearchVault:
    """An indexed vault and a way to search it."""

    config: Config
    index: Index
    embedder: Embedder

    async def search(
        self, query: str, reranker: Reranker | None = None, reason: str = "",
        fusion: FusionSettings | None = None, **options: Any,
    ) -> dict[str, Any]:
        return await search(
            self.index, self.embedder, reranker, query, SearchOptions(**options),
            reranker_reason=reason, fusion=fusion,
        )


IndexVault = Callable[[Sequence[NoteSpec]], SearchVault]


async def ranked_first(vault: SearchVault, query: str, **calibration: float) -> str:
    """The path of the first result of `query` with the embedder's fusion calibration changed
    as given (a lift's weight), checking every fused score stays within 0..1."""
    fusion = replace(fusion_settings(vault.embedder.model_id), **calibration)
    document = await vault.search(query, rerank=False, fusion=fusion)
    assert all(0 <= r["why"]["fused"] <= 1 for r in document["results"])
    return str(document["results"][0]["path"])


@pytest.fixture
def index_vault(tmp_path: Path, embedder: Embedder) -> Iterator[IndexVault]:
    """Write notes into a fresh vault and index them; every index is closed at teardown."""
    opened: list[Index] = []

    def build(notes: Sequence[NoteSpec]) -> SearchVault:
        vault = tmp_path / f"vault{len(opened)}"
        vault.mkdir()
        write_vault(vault, notes)
        config = make_config(vault)
        index = open_index(config, writer=True, embedder=embedder)
        opened.append(index)
        index.reconcile()
        return SearchVault(config, index, embedder)

    yield build
    for index in opened:
        index.close()
