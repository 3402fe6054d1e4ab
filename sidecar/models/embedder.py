"""Sentence vectors from all-MiniLM-L6-v2 on CPU (onnxruntime + tokenizers, no torch).

Two variants of the same weights: `int8` (the packaged quantised export) and `fp32` (built from
the packaged safetensors by `ora models build`). Vectors are the sentence-transformers recipe:
mean of the last hidden state over the attention mask, then L2 normalisation, reading at most
256 tokens (the model's `max_seq_length`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer

from sidecar.errors import BadRequest, ModelUnavailable
from sidecar.models.files import (
    EMBED_NAME,
    file_sha256,
    fp32_model_file,
    int8_model_file,
    minilm_source_dir,
)
from sidecar.models.session import batches, input_names, open_session, read_tokenizer
from sidecar.settings import Config

DIM = 384
MAX_TOKENS = 256
VARIANTS = ("fp32", "int8")
# `auto` takes the first of these that is available; the order is the measured decision
# recorded under "## Embedding models" in docs/benchmarks.md.
AUTO_ORDER = ("fp32", "int8")

FloatArray = npt.NDArray[np.float32]


def load_tokenizer() -> Tokenizer:
    """all-MiniLM-L6-v2's tokenizer, counting every token (no truncation, no padding)."""
    return read_tokenizer(minilm_source_dir() / "tokenizer.json")


def model_id(variant: str, sha256: str) -> str:
    """`all-MiniLM-L6-v2:<variant>:<sha256 prefix>`: another model file gives another id, so an
    index can tell that its stored vectors are stale."""
    return f"{EMBED_NAME}:{variant}:{sha256[:12]}"


def variant_file(variant: str, models_path: Path) -> Path:
    """The ONNX file of a variant, whether or not it exists yet."""
    if variant == "int8":
        return int8_model_file()
    if variant == "fp32":
        return fp32_model_file(models_path)
    raise BadRequest(f"unknown embed_model {variant!r}: choose from auto, {', '.join(VARIANTS)}")


def available_variants(models_path: Path) -> list[str]:
    """The variants whose model file is present, in AUTO_ORDER."""
    found = []
    for variant in AUTO_ORDER:
        try:
            if variant_file(variant, models_path).is_file():
                found.append(variant)
        except ModelUnavailable:
            continue
    return found


def choose_variant(setting: str, models_path: Path) -> str:
    """The variant `embed_model` names; `auto` is the first available in AUTO_ORDER."""
    if setting != "auto":
        path = variant_file(setting, models_path)
        if not path.is_file():
            hint = "run `ora models build`" if setting == "fp32" else "reinstall (make setup)"
            raise ModelUnavailable(f"embedder {setting} not found at {path}: {hint}")
        return setting
    found = available_variants(models_path)
    if not found:
        raise ModelUnavailable("no embedding model installed: reinstall (make setup)")
    return found[0]


class Embedder:
    """One InferenceSession of all-MiniLM-L6-v2 and the tokenizer that feeds it."""

    dim = DIM

    def __init__(
        self,
        model_file: Path,
        variant: str,
        *,
        max_tokens: int = MAX_TOKENS,
        threads: int | None = None,
    ) -> None:
        self.variant = variant
        self.model_file = model_file
        self.sha256 = file_sha256(model_file)
        self.model_id = model_id(variant, self.sha256)
        self.max_tokens = max_tokens
        self.tokenizer = load_tokenizer()
        self._truncating = read_tokenizer(minilm_source_dir() / "tokenizer.json", max_tokens)
        self._session = open_session(model_file, threads)
        self._inputs = input_names(self._session)

    def _hidden_states(
        self, texts: Sequence[str]
    ) -> list[tuple[list[int], FloatArray, npt.NDArray[np.int64]]]:
        """Per batch: original positions, last_hidden_state, attention mask."""
        encodings = self._truncating.encode_batch(list(texts))
        out = []
        for batch in batches(encodings, self._inputs):
            (hidden,) = self._session.run(["last_hidden_state"], batch.feed)
            out.append((batch.positions, np.asarray(hidden, dtype=np.float32), batch.mask))
        return out

    def embed(self, texts: Sequence[str]) -> FloatArray:
        """(n, 384) float32 unit vectors, in the order of `texts`."""
        result = np.zeros((len(texts), DIM), dtype=np.float32)
        for positions, hidden, mask in self._hidden_states(texts):
            weights = mask[:, :, None].astype(np.float32)
            summed = (hidden * weights).sum(axis=1)
            pooled = summed / np.clip(weights.sum(axis=1), 1e-9, None)
            result[positions] = _normalise(pooled)
        return result

    def embed_tokens(self, texts: Sequence[str]) -> list[FloatArray]:
        """Per text, its tokens' unit vectors (n_tokens, 384), [CLS]/[SEP] included, no padding.

        For a late-interaction (MaxSim) second stage: score = Σ_q max_d q·d.
        """
        result: list[FloatArray] = [np.zeros((0, DIM), dtype=np.float32)] * len(texts)
        for positions, hidden, mask in self._hidden_states(texts):
            for row, i in enumerate(positions):
                n = int(mask[row].sum())
                result[i] = _normalise(hidden[row, :n])
        return result


def _normalise(x: FloatArray) -> FloatArray:
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    unit: FloatArray = (x / np.clip(norms, 1e-12, None)).astype(np.float32)
    return unit


def open_embedder(variant: str, models_path: Path, threads: int | None = None) -> Embedder:
    """An Embedder of one named variant (`int8` or `fp32`)."""
    variant = choose_variant(variant, models_path)
    return Embedder(variant_file(variant, models_path), variant, threads=threads)


def load_embedder(config: Config) -> Embedder:
    """The Embedder the `embed_model` setting asks for (auto = best available)."""
    return open_embedder(str(config.embed_model), config.models_path)
