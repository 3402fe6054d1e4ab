"""What to offer a vault whose notes are mostly not in English: the multilingual embedder that
`languages.suggestion` names, with what taking it costs — about how much the pull downloads (the
catalogue's `download_mb`) and how long re-embedding the index would take on this machine.

The model is not downloaded yet, so it cannot be timed: the embedder in use is timed on a few of
the index's chunks and scaled by the entry's `embed_cost` (schema/models.json, measured by
bench/bench_embed_cost.py). Once pulled, switching to it asks `POST /v1/models/switch-estimate`,
which times the model itself. `ora index` and `GET /v1/models/suggestion` both answer this.
"""

from __future__ import annotations

from typing import Any

from sidecar.index.index import Index
from sidecar.index.languages import suggestion
from sidecar.index.params import load_params
from sidecar.index.reembed import span
from sidecar.models.catalogue import entry, installed


def language_offer(index: Index) -> dict[str, Any]:
    """{"languages": {code: share}, "suggestion": None, or languages.suggestion's fields with
    "download_mb", "installed", "chunks" and "estimate_s", and its message saying them}."""
    languages = index.languages()
    saved = load_params(index.config.data)["namespaces"].get(index.namespace) or {}
    found = suggestion(languages, str(saved.get("model", "")))
    if found is None:
        return {"languages": languages, "suggestion": None}
    item = entry(str(found["model"]))
    estimate = index.scaled_estimate(float((item.embedder or {}).get("embed_cost", 1.0)))
    size = f"a download of about {item.download_mb} MB; " if item.download_mb else ""
    n = estimate["chunks"]
    told = (f" It costs {size}re-embedding the index's {n} chunk{'' if n == 1 else 's'} takes "
            f"{span(estimate['estimate_s'])} on this machine.")
    return {"languages": languages, "suggestion": {
        **found, "message": f"{found['message']}{told}", "download_mb": item.download_mb,
        "installed": installed(index.config, item) is not None, **estimate}}
