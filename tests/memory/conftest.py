"""Memory fixtures: a fake chat endpoint, an (empty) index for its Chroma client, the log."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sidecar.index import Index, open_index
from sidecar.memory import ConversationMemory, Episodic, MemoryLimits, MemoryStore, open_store
from sidecar.models.embedder import Embedder
from sidecar.settings import Config, make_config

_spec = importlib.util.spec_from_file_location("memory_fake_llm",
                                               Path(__file__).with_name("fake_llm.py"))
assert _spec is not None and _spec.loader is not None
fake_llm = importlib.util.module_from_spec(_spec)
sys.modules["memory_fake_llm"] = fake_llm
_spec.loader.exec_module(fake_llm)
FakeLLM = fake_llm.FakeLLM

SMALL = MemoryLimits(window_tokens=40, recall_k=3, recall_min_similarity=0.3, recall_tokens=200,
                     summary_max_tokens=64)


@pytest.fixture
async def llm() -> AsyncIterator[Any]:
    server = await FakeLLM().start()
    yield server
    await server.stop()


class Opened:
    """A data folder's index and memory log, reopenable to test durability."""

    def __init__(self, config: Config, embedder: Embedder) -> None:
        self.config, self.embedder = config, embedder
        self.index: Index = open_index(config, writer=True, embedder=embedder)
        self.store: MemoryStore = open_store(config.data)
        self.closed = False

    def memory(self, conversation: str = "c1", *, private: bool = False,
               limits: MemoryLimits = SMALL, config: Config | None = None) -> ConversationMemory:
        episodic = Episodic(self.index.chroma, self.index.namespace)
        return ConversationMemory(config or self.config, self.store, episodic, self.embedder,
                                  conversation, private=private, limits=limits)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.store.close()
            self.index.close()


@pytest.fixture
def open_memory(tmp_path: Path, embedder: Embedder) -> Iterator[Callable[..., Opened]]:
    """Open (or reopen) the index and log of one vault; `llm_url` etc. as keyword settings."""
    (tmp_path / "vault").mkdir()
    opened: list[Opened] = []

    def make(**settings: Any) -> Opened:
        settings = {"llm_url": "", "llm_model": "test-model", **settings}
        config = make_config(tmp_path / "vault", tmp_path / "data", **settings)
        for earlier in opened:
            earlier.close()
        opened.append(Opened(config, embedder))
        return opened[-1]

    yield make
    for item in opened:
        item.close()
