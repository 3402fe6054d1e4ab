"""`ora ask` prints a model's answer to a terminal: the control sequences in it (clear the screen,
set the window's title, write the clipboard with OSC 52, C1 codes, backspaces) are shown as
their escapes, never sent; the conversation's chat note holds none of them either."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main
from sidecar.index import open_index
from sidecar.models.embedder import Embedder
from sidecar.settings import SETTINGS, make_config
from tests.cli.terminal import ACTED_ON
from tests.memory import fake_llm
from tests.notes import write_notes

NOTES = {"Projects/Garden/Tomatoes.md": (
    "---\nnexus: []\ntype: resource\ntags: []\n---\n"
    "# Tomatoes\n\nTomatoes need six hours of sun every day.\n")}
HOSTILE = "Sun [1]. \x1b[2J\x1b]0;PWNED\x07\x1b]52;c;cm0gLXJmIH4=\x07 \x9b31m end\x08\x08\x7f"


@pytest.fixture
async def llm() -> AsyncIterator[Any]:
    server = await fake_llm.FakeLLM().start()
    yield server
    await server.stop()


async def test_ora_ask_shows_the_answers_control_sequences_as_escapes(
    tmp_path: Path, embedder: Embedder, llm: Any, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Before: ESC[2J, OSC 0 and OSC 52 (with their BEL), CSI as C1 and backspaces went to the
    # terminal as they came, and into the chat note.
    vault = write_notes(tmp_path / "vault", NOTES)
    models = tmp_path / "models"
    config = make_config(vault, tmp_path / "data", embed_model="int8", models_dir=str(models),
                         cohere_api_key="", reranker_dir=str(models / "absent"),
                         llm_url=llm.url, llm_model="test-model")
    for s in SETTINGS:
        monkeypatch.setenv(s.env, str(config.values[s.name]))
    with open_index(config, writer=True, embedder=embedder) as index:
        index.reconcile()
    llm.reply = lambda body: HOSTILE
    argv = ["ask", str(vault), "How much sun do tomatoes need?", "--data", str(config.data),
            "--conversation", "ctl"]
    assert await asyncio.to_thread(main, argv) == 0
    out = capsys.readouterr().out
    assert [c for c in out if c in ACTED_ON] == [], repr(out)
    assert "Sun [1]. \\x1b[2J\\x1b]0;PWNED\\x07" in out and "\\x9b31m end\\x08\\x08\\x7f" in out
    note = (vault / "Chats/Ora/ctl.md").read_text(encoding="utf-8")
    assert [c for c in note if c in ACTED_ON] == [], repr(note)  # C1 (CSI \x9b) too
