"""Every human-readable `ora` output, not only `ora ask`'s, shows the control sequences in text
from outside as their escapes: `ora search --web` the titles and snippets SearXNG returns, `ora
extract`'s dry run the model's proposals."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main
from sidecar.index import open_index
from sidecar.models.embedder import Embedder
from sidecar.settings import SETTINGS, Config, make_config
from tests.cli.terminal import ACTED_ON
from tests.extraction.conftest import chat_text
from tests.memory import fake_llm
from tests.notes import write_notes
from tests.web import fake_searxng as fake

NOTES = {"Resources/Sourdough.md": (
    "---\nnexus: []\ntype: resource\ntags: []\n---\n"
    "# Sourdough\n\nA sourdough starter is a culture of wild yeast.\n")}
CHAT = "Chats/Ora/crust.md"
CLAIM = "Steam in the first minutes of baking gives bread a glossy crust."


@pytest.fixture
async def searx() -> AsyncIterator[fake.FakeSearxng]:
    server = await fake.FakeSearxng().start()
    yield server
    await server.stop()


@pytest.fixture
async def llm() -> AsyncIterator[Any]:
    server = await fake_llm.FakeLLM().start()
    yield server
    await server.stop()


def _indexed(tmp_path: Path, notes: dict[str, str], embedder: Embedder,
             monkeypatch: pytest.MonkeyPatch, **settings: Any) -> Config:
    """A vault of `notes`, indexed, its settings exported as the environment `ora` reads."""
    vault = write_notes(tmp_path / "vault", notes)
    models = tmp_path / "models"
    config = make_config(vault, tmp_path / "data", embed_model="int8", models_dir=str(models),
                         cohere_api_key="", reranker_dir=str(models / "absent"), **settings)
    for s in SETTINGS:
        monkeypatch.setenv(s.env, str(config.values[s.name]))
    with open_index(config, writer=True, embedder=embedder) as index:
        index.reconcile()
    return config


async def test_ora_search_web_shows_a_web_results_control_sequences_as_escapes(
    tmp_path: Path, searx: fake.FakeSearxng, embedder: Embedder,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    # Before: a SearXNG title's OSC 0 (set the window's title) and a snippet's OSC 52 (write
    # the clipboard) reached the terminal as they came.
    searx.results = [fake.searx_result("https://b.example.net/s", "Starter\x1b]0;PWNED\x07",
                                       "Feed it \x1b]52;c;cm0=\x07 \x9b2J")]
    config = _indexed(tmp_path, NOTES, embedder, monkeypatch, searxng_url=searx.url)
    argv = ["search", str(config.vault), "sourdough starter", "--data", str(config.data),
            "--no-rerank", "--web"]
    assert await asyncio.to_thread(main, argv) == 0
    out = capsys.readouterr().out
    assert [c for c in out if c in ACTED_ON] == [], repr(out)
    assert "Starter\\x1b]0;PWNED\\x07" in out and "\\x1b]52;c;cm0=\\x07" in out


async def test_ora_extract_dry_run_shows_a_models_control_sequences_as_escapes(
    tmp_path: Path, llm: Any, embedder: Embedder, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Before: the model's proposal, printed by the dry run, sent its OSC 0 to the terminal.
    notes = {**NOTES, CHAT: chat_text("crust", [("assistant", CLAIM)])}
    config = _indexed(tmp_path, notes, embedder, monkeypatch, llm_url=llm.url,
                      llm_model="test-model")
    hostile = CLAIM[:-1] + "\x1b]0;pwned\x07."
    llm.reply = lambda body: json.dumps({"proposals": [{"turn": 1, "text": hostile}]})
    argv = ["extract", str(config.vault), "--note", CHAT, "--data", str(config.data)]
    assert await asyncio.to_thread(main, argv) == 0
    out = capsys.readouterr().out
    assert "extractor: llm:test-model" in out, out
    assert [c for c in out if c in ACTED_ON] == [], repr(out)
    assert "crust\\x1b]0;pwned\\x07." in out
