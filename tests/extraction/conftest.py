"""Extraction fixtures: a vault with engrams to repeat and contradict, the loopback chat model,
and `ora` run in-process with the settings as environment variables."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main
from sidecar.extraction import IndexEngrams, Plan, load_source, plan_extraction
from sidecar.index import open_index
from sidecar.memory.chat_note import new_note, turn_section
from sidecar.models.embedder import Embedder
from sidecar.settings import SETTINGS, Config, make_config
from tests.notes import write_notes

CRUST = "Chats/Ora/crust.md"
CRUST_TURNS = [("assistant", "Steam in the first minutes of baking gives bread a glossy crust.")]

_FAKE = Path(__file__).resolve().parents[1] / "memory" / "fake_llm.py"
_spec = importlib.util.spec_from_file_location("extraction_fake_llm", _FAKE)
assert _spec is not None and _spec.loader is not None
fake_llm = importlib.util.module_from_spec(_spec)
sys.modules["extraction_fake_llm"] = fake_llm
_spec.loader.exec_module(fake_llm)

STARTER = "Engrams/Sourdough starter.md"
CAFFEINE = "Engrams/Caffeine.md"
NOTES: dict[str, str] = {
    STARTER: (
        "---\nnexus: []\ntype: engram\ntags:\n  - baking\n"
        "date created: 2024-01-02\ndate modified: 2024-01-02\n---\n"
        "# Sourdough starter\n\nA sourdough starter is a culture of wild yeast and lactic acid "
        "bacteria.\n"
    ),
    CAFFEINE: (
        "---\nnexus: []\ntype: engram\ntags:\n  - health\n"
        "date created: 2024-02-03\ndate modified: 2024-02-03\n---\n"
        "# Caffeine\n\nCaffeine improves alertness in adults.\n"
    ),
    "Resources/Bread.md": (
        "---\nnexus: []\ntype: resource\ntags:\n  - baking\n"
        "date created: 2023-06-01\ndate modified: 2023-06-01\n---\n"
        "# Bread\n\nBread has been baked for millennia from flour, water and salt.\n"
    ),
}


WHEN = "2026-11-30T08:40:{:02d}+00:00"


def chat_text(conversation: str, turns: list[tuple[str, str]], *, private: bool = False) -> str:
    """A chat note as Ora writes one (`memory/chat_note.py`), its turns a second apart."""
    text = new_note(conversation, "default", WHEN.format(0))
    if private:
        text = text.replace("tags: []", "tags:\n  - private", 1)
    sections = [turn_section(role, content, WHEN.format(n), private=private)
                for n, (role, content) in enumerate(turns, 1)]
    return "\n".join([text, *sections])


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_notes(tmp_path / "vault", NOTES)


def chat_vault(root: Path, note: str, chat: str) -> Path:
    """The test vault's notes with the chat note `note` (its text `chat`) beside them."""
    vault = write_notes(root, NOTES)
    (vault / note).parent.mkdir(parents=True)
    (vault / note).write_text(chat, encoding="utf-8")
    return vault


def settings(vault: Path, **extra: Any) -> Config:
    """Deterministic settings: the int8 embedder, no re-ranker, no Cohere, no LLM unless given."""
    models = vault.parent / "models"
    values = {"embed_model": "int8", "models_dir": str(models), "cohere_api_key": "",
              "reranker_dir": str(models / "absent"), "llm_url": "", "llm_model": "test-model",
              "scan_delay": -1.0, **extra}
    return make_config(vault, vault / ".ora", **values)


async def planned_crust(tmp_path: Path, embedder: Embedder) -> tuple[Path, Config, Plan]:
    """A vault of one chat note (`Chats/Ora/crust.md`, one assistant claim), indexed, and the
    plan of its extraction."""
    vault = write_notes(tmp_path / "vault", {CRUST: chat_text("crust", CRUST_TURNS)})
    config = settings(vault)
    with open_index(config, embedder=embedder) as index:
        index.reconcile()
        plan = await plan_extraction(config, load_source(config, note=CRUST),
                                     IndexEngrams(index, embedder, private=False))
    return vault, config, plan


@pytest.fixture
def use_settings(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Config]:
    """Export a config's settings as the environment `ora` reads."""
    def apply(vault: Path, **extra: Any) -> Config:
        config = settings(vault, **extra)
        for s in SETTINGS:
            monkeypatch.setenv(s.env, str(config.values[s.name]))
        return config
    return apply


@pytest.fixture
def ora(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, Any]]:
    """Run `ora ARGS --json` in-process: (exit status, the JSON printed)."""
    def run(*args: str) -> tuple[int, Any]:
        capsys.readouterr()
        status = main([*args, "--json"])
        out = capsys.readouterr().out
        return status, json.loads(out) if out.strip() else None
    return run


@pytest.fixture
async def llm() -> AsyncIterator[Any]:
    server = await fake_llm.FakeLLM().start()
    yield server
    await server.stop()
