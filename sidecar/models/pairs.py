"""A BERT-style sequence-pair classifier from a folder: model.onnx + tokenizer.json (+ config.json).

The shape optimum gives `cross-encoder/ms-marco-MiniLM-L-6-v2` (one logit) and NLI
cross-encoders (three logits) with `--task text-classification`. Pairs are encoded as
[CLS] a [SEP] b [SEP] with token_type_ids, truncated longest-first to the model's positions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from sidecar.errors import ModelUnavailable
from sidecar.models.catalogue import check_pulled
from sidecar.models.files import file_sha256
from sidecar.models.session import (
    TOKEN_BUDGET,
    LazySession,
    batches,
    input_names,
    read_tokenizer,
)

DEFAULT_MAX_TOKENS = 512


def missing_files(folder: Path) -> list[str]:
    """Which of model.onnx and tokenizer.json are not files in `folder`."""
    return [name for name in ("model.onnx", "tokenizer.json") if not (folder / name).is_file()]


class PairModel:
    """One InferenceSession returning (n, labels) logits for (a, b) text pairs."""

    def __init__(self, folder: Path, threads: int | None = None, *,
                 max_tokens: int = DEFAULT_MAX_TOKENS,
                 token_budget: int | None = TOKEN_BUDGET) -> None:
        absent = missing_files(folder)
        if absent:
            raise ModelUnavailable(f"{folder} lacks {', '.join(absent)}")
        check_pulled(folder)  # before any of its files is read
        self.folder = folder
        self.config = _read_config(folder / "config.json")
        self.token_budget = token_budget
        max_tokens = min(int(self.config.get("max_position_embeddings", DEFAULT_MAX_TOKENS)),
                         max_tokens)
        self.tokenizer = read_tokenizer(folder / "tokenizer.json", max_tokens)
        self.session = LazySession(folder / "model.onnx", threads)
        self.inputs = input_names(self.session)
        outputs = [o.name for o in self.session.get_outputs()]
        if "logits" not in outputs:
            raise ModelUnavailable(f"{folder}/model.onnx has outputs {outputs}, not `logits`")
        self.sha256 = file_sha256(folder / "model.onnx")

    def logits(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float32]:
        """Raw logits, one row per pair, in the order given."""
        encodings = self.tokenizer.encode_batch([(a, b) for a, b in pairs])
        rows: list[npt.NDArray[np.float32]] = [np.zeros(0, np.float32)] * len(pairs)
        for batch in batches(encodings, self.inputs, token_budget=self.token_budget):
            (out,) = self.session.run(["logits"], batch.feed)
            for row, i in enumerate(batch.positions):
                rows[i] = np.asarray(out[row], dtype=np.float32)
        if not rows:
            return np.zeros((0, self.num_labels), dtype=np.float32)
        return np.stack(rows)

    def release(self, idle_s: float) -> bool:
        return self.session.release(idle_s)

    @property
    def num_labels(self) -> int:
        shape = self.session.get_outputs()[0].shape
        return int(shape[-1]) if isinstance(shape[-1], int) else 1


def _read_config(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelUnavailable(f"cannot read {path}: {exc}") from exc
    if not isinstance(config, dict):
        raise ModelUnavailable(f"{path} is not a JSON object")
    return config
