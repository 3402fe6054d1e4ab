"""`ora models pull`'s progress bars: a file whose transfer stalls shows the bytes it has and,
after a while, that nothing is arriving (QA: it stayed at 0%)."""

from __future__ import annotations

import asyncio
import contextlib
import io
from pathlib import Path

from sidecar.cli.models import _STALLED_S, _Bars, _pull_drawn
from sidecar.settings import make_config

from .loopback_hub import LoopbackHub, RunningApp, repo_files

ONNX = "onnx/model.onnx"


def _shown(out: io.StringIO) -> str:
    """The bar as the terminal shows it now: the text after the last carriage return."""
    return out.getvalue().rsplit("\r", 1)[-1]


async def _until(out: io.StringIO, text: str) -> str:
    for _ in range(400):  # a failure's deadline only: redrawn every second
        if text in _shown(out):
            return _shown(out)
        await asyncio.sleep(0.05)
    raise AssertionError(f"{text!r} never shown: {out.getvalue()!r}")


def test_a_stalled_file_shows_the_bytes_received_then_that_it_is_stalled(
    tmp_path: Path, tiny_reranker_dir: Path
) -> None:
    hub = LoopbackHub({"cross-encoder/ms-marco-MiniLM-L-6-v2": repo_files(tiny_reranker_dir)},
                      stall={ONNX: 1})
    now = [1000.0]
    out = io.StringIO()
    bars = _Bars(out, clock=lambda: now[0])

    async def pulling() -> tuple[str, str]:
        task = asyncio.create_task(_pull_drawn(config, "ms-marco-minilm-l6", bars))
        try:
            half = await _until(out, "50%")  # half of model.onnx came, then nothing
            now[0] += _STALLED_S + 7
            stalled = await _until(out, "stalled")
        finally:
            task.cancel()  # what Ctrl-C does
            with contextlib.suppress(asyncio.CancelledError):
                await task
        return half, stalled

    with RunningApp(hub.app()) as url:
        config = make_config(tmp_path, hf_endpoint=url, models_dir=str(tmp_path / "models"))
        try:
            half, stalled = asyncio.run(pulling())
        finally:
            hub.unstall.set()
            bars.close()
    assert half.startswith("model.onnx:") and "stalled" not in half
    assert "50%" in stalled and f"nothing received for {int(_STALLED_S) + 7} s" in stalled


def test_a_file_received_whole_is_not_called_stalled() -> None:
    now = [0.0]
    out = io.StringIO()
    bars = _Bars(out, clock=lambda: now[0])
    bars("config.json", 600, 600)
    now[0] += 60
    bars.tick()
    bars.close()
    assert "stalled" not in out.getvalue()
