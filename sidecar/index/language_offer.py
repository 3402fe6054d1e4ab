"""What to offer a vault whose notes are mostly not in English: the multilingual embedder that
`language/suggest.suggestion` names (the packaged one, or a catalogue model), with what taking it
costs — about how much a pull would download (the catalogue's `download_mb`; nothing for the
packaged one) and how long re-embedding the index would take on this machine.

The model may not be there yet, so it is not timed: the embedder in use is timed on a few of
the index's chunks and scaled by the entry's `embed_cost` (schema/models.json, measured by
bench/bench_embed_cost.py). Once pulled, switching to it asks `POST /v1/models/switch-estimate`,
which times the model itself. `ora index` and `GET /v1/models/suggestion` both answer this.
"""

from __future__ import annotations

from typing import Any

from sidecar.index.index import Index
from sidecar.index.reembed import span
from sidecar.index_params import load_params
from sidecar.language.suggest import suggestion
from sidecar.models import multilingual
from sidecar.models.catalogue import entry, installed
from sidecar.settings import Config


def chosen_by_auto(config: Config) -> bool:
    """Whether the embedder was left to `embed_model = auto`: `ora index` and `GET
    /v1/models/suggestion` offer another only then. One named on purpose (`ORA_EMBED_MODEL=q8`,
    a server's by `embed_url`) is the user's choice, which an offer repeated on every run would
    only nag (`ora index --json` still reports it)."""
    return str(config.embed_model) == "auto" and not config.embed_url


def language_offer(index: Index, *, offer: bool = True) -> dict[str, Any]:
    """{"languages": {code: share}, "suggestion": None, or `suggest.suggestion`'s fields with
    "download_mb", "installed", "chunks" and "estimate_s", and its message saying them}.
    `offer` False (`GET /v1/models/suggestion` of an embedder not `chosen_by_auto`): the
    languages alone, nothing suggested and nothing timed."""
    languages = index.languages()
    saved = load_params(index.config.data)["namespaces"].get(index.namespace) or {}
    found = suggestion(languages, str(saved.get("model", ""))) if offer else None
    if found is None:
        return {"languages": languages, "suggestion": None}
    name = str(found["model"])
    if found["packaged"]:
        spec, download_mb = multilingual.spec()["embedder"], None
        there = multilingual.model_file(index.config.models_path).is_file()
    else:
        item = entry(name)
        spec, download_mb = item.embedder or {}, item.download_mb
        there = installed(index.config, item) is not None
    estimate = index.scaled_estimate(float(spec.get("embed_cost", 1.0)))
    n = estimate["chunks"]
    reembed = (f"re-embedding the index's {n} chunk{'' if n == 1 else 's'} takes "
               f"{span(estimate['estimate_s'])} on this machine.")
    told = (f" It costs a download of about {download_mb} MB; {reembed}" if download_mb else
            f" {reembed[0].upper()}{reembed[1:]}")
    return {"languages": languages, "suggestion": {
        **found, "message": f"{found['message']}{told}", "download_mb": download_mb,
        "installed": there, **estimate}}
