"""How long re-embedding will take when the embedding model changed (another `embed_model`, a
pulled embedder, an embeddings server): the new model is timed on a few of the index's own chunks
and the time is scaled to every chunk, so the user is told before the wait starts."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Protocol

_SAMPLE = 8


class _Embeds(Protocol):
    model_id: str

    def embed(self, texts: Sequence[str]) -> Any: ...


def reembed_estimate(old_model: str | None, embedder: _Embeds, chunks: int,
                     sample: Sequence[str]) -> dict[str, Any] | None:
    """{"from", "to", "chunks", "estimate_s"} when an index of `chunks` chunks made with
    `old_model` is re-embedded by `embedder`; None when nothing was embedded before."""
    if not old_model or old_model == embedder.model_id or chunks == 0:
        return None
    texts = list(sample[:_SAMPLE]) or ["a short note"]
    started = time.perf_counter()
    embedder.embed(texts)
    per_chunk = (time.perf_counter() - started) / len(texts)
    return {"from": old_model, "to": embedder.model_id, "chunks": chunks,
            "estimate_s": round(per_chunk * chunks, 1)}


def describe(estimate: dict[str, Any]) -> str:
    minutes = estimate["estimate_s"] / 60
    span = f"about {minutes:.0f} min" if minutes >= 1 else f"about {estimate['estimate_s']:.0f} s"
    n = estimate["chunks"]
    return (f"the embedding model changed ({estimate['from']} → {estimate['to']}): re-embedding "
            f"{n} chunk{'' if n == 1 else 's'}, {span} on this machine")
