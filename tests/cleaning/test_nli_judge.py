"""The NLI judge on tiny ONNX models built by the test (no downloaded weights)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sidecar.cleaning.judges import NliJudge, build_judge, judge_status
from sidecar.cleaning.scan import scan
from sidecar.cleaning.store import Queue
from sidecar.models.embedder import Embedder
from sidecar.models.nli import OnnxNLI
from sidecar.settings import make_config

LABELS = ("contradiction", "entailment", "neutral")


@pytest.fixture(scope="module")
def contradicting_nli(tmp_path_factory: pytest.TempPathFactory,
                      write_tiny: Callable[..., Path]) -> Path:
    """A tiny NLI model whose head favours `contradiction`."""
    return write_tiny(tmp_path_factory.mktemp("nli-c"), labels=LABELS,
                      classifier_bias=(3.0, 0.0, -1.0), seed=3)


async def test_probability_is_averaged_over_both_orders(contradicting_nli: Path) -> None:
    model = OnnxNLI(contradicting_nli)
    pair = ("Coffee helps focus.", "Coffee does not help focus at all, says a long study.")
    forward, backward = model.predict([pair, pair[::-1]])
    (verdict,) = await NliJudge(model).judge([pair])
    expected = (forward["contradiction"] + backward["contradiction"]) / 2
    assert verdict.score == pytest.approx(expected, abs=1e-4)
    assert verdict.contradiction and verdict.cue == "contradiction"


async def test_entailment_leaning_model_finds_no_contradiction(tiny_nli_dir: Path) -> None:
    verdicts = await NliJudge(OnnxNLI(tiny_nli_dir)).judge([("a b c", "d e f"), ("x", "y")])
    assert [v.contradiction for v in verdicts] == [False, False]
    assert all(v.cue == "entailment" for v in verdicts)
    assert await NliJudge(OnnxNLI(tiny_nli_dir)).judge([]) == []


def test_nli_is_selected_when_its_model_is_present(tmp_path: Path, tiny_nli_dir: Path) -> None:
    config = make_config(tmp_path, nli_dir=str(tiny_nli_dir), llm_url="")
    assert [(s["name"], s["selected"]) for s in judge_status(config)] == [
        ("llm", False), ("nli", True), ("rules", False)]
    assert build_judge(config).name.startswith("onnx-nli:")


async def test_scan_with_the_nli_judge_records_it_as_the_judge(
    contradicting_nli: Path, vault: Path, tmp_path: Path, embedder: Embedder
) -> None:
    config = make_config(vault, tmp_path / "data", nli_dir=str(contradicting_nli), llm_url="")
    queue = Queue(config.data)
    report = await scan(config, queue, embedder, build_judge(config))
    judges = {p.judge for p in queue.pairs("open", kind="engram")}
    queue.close()
    assert report.found >= 1 and judges == {report.judge}
    assert report.judge.startswith("onnx-nli:")
