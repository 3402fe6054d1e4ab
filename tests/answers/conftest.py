"""Answer fixtures: a small indexed vault (with one private note) and the fake chat endpoint."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from sidecar.index import Index, open_index
from sidecar.models.embedder import Embedder
from sidecar.settings import Config, make_config
from tests.notes import write_notes

_FAKE = Path(__file__).resolve().parents[1] / "memory" / "fake_llm.py"
_spec = importlib.util.spec_from_file_location("answers_fake_llm", _FAKE)
assert _spec is not None and _spec.loader is not None
fake_llm = importlib.util.module_from_spec(_spec)
sys.modules["answers_fake_llm"] = fake_llm
_spec.loader.exec_module(fake_llm)

NOTES: dict[str, str] = {
    "Engrams/Spaced repetition.md": (
        "---\nnexus: []\ntype: engram\ntags:\n  - learning\n---\n"
        "# Spaced repetition\n\nReviewing a card just before it is forgotten strengthens memory.\n"
        "The intervals grow each time the recall succeeds.\n"
    ),
    "Engrams/Forgetting curve.md": (
        "---\nnexus: []\ntype: engram\ntags:\n  - memory\n---\n"
        "# Forgetting curve\n\nEbbinghaus measured how recall decays exponentially over days.\n"
    ),
    "Resources/Sourdough.md": (
        "---\nnexus: []\ntype: resource\ntags:\n  - science\n---\n"
        "# Sourdough\n\nBread has been baked for millennia.\n\n## Leavening\n\n"
        "A sourdough starter of wild yeast and lactobacilli leavens the bread dough.\n"
        "Feed the starter flour and water every day.\n"
    ),
    "Engrams/Kitchen diary.md": (
        "---\nnexus: []\ntype: engram\ntags:\n  - private\n---\n"
        "# Kitchen diary\n\nMy sourdough starter secret: a spoon of honey in the starter.\n"
    ),
}
PRIVATE_PATH = "Engrams/Kitchen diary.md"


def settings(tmp_path: Path, **extra: Any) -> Config:
    """Deterministic settings: the int8 embedder, no re-ranker, no Cohere, no LLM unless given."""
    models = tmp_path / "models"
    values = {"embed_model": "int8", "models_dir": str(models), "cohere_api_key": "",
              "reranker_dir": str(models / "absent"), "llm_url": "", "llm_model": "test-model"}
    return make_config(tmp_path / "vault", tmp_path / "data", **{**values, **extra})


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_notes(tmp_path / "vault", NOTES)


@pytest.fixture
def indexed(vault: Path, tmp_path: Path, embedder: Embedder) -> Iterator[Index]:
    """The vault, indexed for real; the index stays open as the writer until the test ends."""
    index = open_index(settings(tmp_path), writer=True, embedder=embedder)
    index.reconcile()
    yield index
    index.close()


@pytest.fixture
async def llm() -> AsyncIterator[Any]:
    server = await fake_llm.FakeLLM().start()
    yield server
    await server.stop()
