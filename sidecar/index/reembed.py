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
    return {"from": old_model, "to": embedder.model_id, "chunks": chunks,
            "estimate_s": round(seconds_per_chunk(embedder, sample) * chunks, 1)}


def seconds_per_chunk(embedder: _Embeds, sample: Sequence[str]) -> float:
    """Wall seconds `embedder` takes a chunk, timed on (a few of) `sample`."""
    texts = list(sample[:_SAMPLE]) or ["a short note"]
    started = time.perf_counter()
    embedder.embed(texts)
    return (time.perf_counter() - started) / len(texts)


def span(seconds: float) -> str:
    """"about 4 min", "about 20 s", "under a second"."""
    minutes = seconds / 60
    if minutes >= 1:
        return f"about {minutes:.0f} min"
    return f"about {seconds:.0f} s" if seconds >= 1 else "under a second"


def describe(estimate: dict[str, Any]) -> str:
    n = estimate["chunks"]
    return (f"the embedding model changed ({estimate['from']} → {estimate['to']}): re-embedding "
            f"{n} chunk{'' if n == 1 else 's'}, {span(estimate['estimate_s'])} on this machine")
