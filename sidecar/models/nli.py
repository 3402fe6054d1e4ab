"""A local NLI cross-encoder (e.g. nli-deberta-v3-xsmall exported by optimum) as a judge.

Three logits per (premise, hypothesis) pair; their order comes from config.json `id2label`
(nli-deberta-v3 uses contradiction, entailment, neutral), softmaxed into probabilities.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from sidecar.errors import ModelUnavailable
from sidecar.models.files import TamperedModel
from sidecar.models.pairs import PairModel
from sidecar.settings import Config

# What a judge says of a pair: the NLI model's labels, which the LLM judge answers in too.
LABELS = ("contradiction", "entailment", "neutral")


class OnnxNLI:
    """predict([(premise, hypothesis), …]) → [{"entailment", "neutral", "contradiction"}, …]."""

    def __init__(self, folder: Path, threads: int | None = None) -> None:
        self._model = PairModel(folder, threads)
        id2label = self._model.config.get("id2label")
        if not isinstance(id2label, dict):
            raise ModelUnavailable(f"{folder}/config.json has no id2label mapping")
        order = [str(id2label[k]).lower() for k in sorted(id2label, key=int)]
        if sorted(order) != sorted(LABELS) or self._model.num_labels != len(LABELS):
            raise ModelUnavailable(f"{folder} labels {order} are not {', '.join(LABELS)}")
        self._order = order
        self.name = f"onnx-nli:{folder.name}:{self._model.sha256[:12]}"

    def release(self, idle_s: float) -> bool:
        return self._model.release(idle_s)

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[dict[str, float]]:
        """Probabilities of each label per pair, summing to 1, in the order given."""
        logits = self._model.logits(pairs)
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        probs = shifted / shifted.sum(axis=1, keepdims=True)
        return [{label: float(p) for label, p in zip(self._order, row, strict=True)}
                for row in probs]


def nli_folder(config: Config) -> Path:
    """The NLI model folder: `nli_dir`, else <models_dir>/nli."""
    return Path(config.nli_dir).expanduser() if config.nli_dir else config.models_path / "nli"


def load_nli(config: Config) -> OnnxNLI:
    """The configured NLI model; ModelUnavailable (with instructions) when it is not installed."""
    folder = nli_folder(config)
    try:
        return OnnxNLI(folder)
    except TamperedModel:
        raise  # its message says how to repair it: pulling the model again
    except ModelUnavailable as err:
        raise ModelUnavailable(f"{err.message}; `ora models` explains how to add one") from err
