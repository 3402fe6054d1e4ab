"""On-disk cache of passage vectors keyed by (content hash, model id), for evaluation runs.

Embedding a BEIR corpus takes minutes on a laptop CPU; a second run with the same texts and the
same model file reads the vectors back instead. Passages are cached in blocks, each named by the
hash of the model id and its texts, so an interrupted run resumes where it stopped and a changed
passage re-embeds only its own block.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from sidecar.models.embedder import FloatArray

BLOCK = 256


def default_cache_dir() -> Path:
    """`$XDG_CACHE_HOME/ora-vault/embeddings`, `~/.cache/ora-vault/embeddings` by default."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "ora-vault" / "embeddings"


def block_key(model_id: str, texts: Sequence[str]) -> str:
    """sha256 over the model id and each text, length-prefixed so boundaries cannot blur."""
    digest = hashlib.sha256(model_id.encode())
    for text in texts:
        raw = text.encode()
        digest.update(len(raw).to_bytes(8, "little"))
        digest.update(raw)
    return digest.hexdigest()


def cached_embed(
    texts: Sequence[str],
    embed: Callable[[Sequence[str]], FloatArray],
    model_id: str,
    cache_dir: Path,
    progress: Callable[[int], None] | None = None,
) -> FloatArray:
    """Vectors for `texts`, reading cached blocks and embedding (then saving) the others.

    `progress(n)` is told how many texts each block covered, cached or not.
    """
    cache_dir.mkdir(parents=True, exist_ok=True)
    parts: list[FloatArray] = []
    for start in range(0, len(texts), BLOCK):
        block = texts[start : start + BLOCK]
        path = cache_dir / f"{block_key(model_id, block)}.npy"
        vectors = _read(path, len(block))
        if vectors is None:
            vectors = np.asarray(embed(block), dtype=np.float32)
            _write(path, vectors)
        parts.append(vectors)
        if progress is not None:
            progress(len(block))
    if not parts:
        return np.zeros((0, 0), dtype=np.float32)
    return np.concatenate(parts)


def _read(path: Path, rows: int) -> FloatArray | None:
    try:
        vectors = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None
    return vectors.astype(np.float32) if vectors.shape[0] == rows else None


def _write(path: Path, vectors: FloatArray) -> None:
    # Write then rename, so a killed run never leaves a truncated block behind.
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    with tmp.open("wb") as handle:
        np.save(handle, vectors, allow_pickle=False)
    os.replace(tmp, path)
