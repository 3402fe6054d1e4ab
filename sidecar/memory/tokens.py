"""Memory counts tokens with the embedding model's own tokenizer (the ADR approximates 4
characters per token) and embeds turns with the same model."""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer


class TurnEmbedder(Protocol):
    tokenizer: Tokenizer

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]: ...


def count_tokens(tokenizer: Tokenizer, text: str) -> int:
    return len(tokenizer.encode(text, add_special_tokens=False).ids)
