"""The index's parameters and version, saved as JSON next to it (`DATA/index.json`).

Per namespace: the embedding model id and dimension, the chunk size, the BM25 engine (version
and analyzer) and field weights. On opening a writer the saved values are compared with the
current ones: a different model means every vector is stale (the namespace is rebuilt); a
different chunker means every file is re-chunked, reusing its vectors where the text is
unchanged. The BM25 settings invalidate no chunk: a store whose engine is of another version
rebuilds it from its own chunk table (`Bm25Store.create`), and the weights apply at query time.

The embedder choice reads it too (`models/choice.indexed_variants`: `auto` keeps the variant
an index holds), so it sits beside the packages, not inside the index's.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from sidecar import __version__
from sidecar.data_folder import FILE_MODE

FORMAT = 1


def params_path(data: Path) -> Path:
    return data / "index.json"


def load_params(data: Path) -> dict[str, Any]:
    """The saved document, or an empty one when absent or unreadable."""
    try:
        doc = json.loads(params_path(data).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"format": FORMAT, "namespaces": {}}
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        return {"format": FORMAT, "namespaces": {}}
    doc.setdefault("namespaces", {})
    return doc


def save_namespace_params(data: Path, namespace: str, values: dict[str, Any]) -> None:
    """Record one namespace's parameters (atomic replace of index.json)."""
    doc = load_params(data)
    doc["namespaces"][namespace] = values
    doc["sidecar_version"] = __version__
    tmp = params_path(data).with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.chmod(FILE_MODE)  # like every file of the data folder
    os.replace(tmp, params_path(data))


def stale_parts(saved: dict[str, Any] | None, current: dict[str, Any]) -> tuple[bool, bool]:
    """(vectors stale, chunks stale): which part of the namespace the saved values invalidate."""
    if not saved:
        return False, False
    vectors = saved.get("model") != current["model"] or saved.get("dim") != current["dim"]
    chunks = any(saved.get(key) != current[key] for key in current
                 if key not in ("model", "dim") and not key.startswith("bm25_"))
    return vectors, chunks
