"""Which embedder suits a vault's languages (`schema/languages.json` `suggest`): what `embed_model
= auto` decides by before any note is indexed, and what `ora index` and the plugin suggest for a
vault mostly not in English searched by an English-only embedder.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sidecar.language.languages import shares, spec
from sidecar.schema import load_json
from sidecar.vault.note import split_frontmatter
from sidecar.vault.scan import iter_note_paths, read_regular
from sidecar.vault.vault_settings import is_excluded, load_vault_settings, note_language


def not_english(found: Mapping[str, float]) -> float:
    """The share of notes not in English, of language shares (`shares`)."""
    return 1.0 - found.get("en", 0.0) if found else 0.0


def wants_multilingual(found: Mapping[str, float]) -> bool:
    """Whether a vault of these language shares is searched better by the multilingual embedder
    (`suggest.model`) than by an English-only one: when at least `suggest.share` of its notes are
    in a language that embedder was trained on (its catalogue entry's `languages`) or that it
    ranked better when measured (`suggest.also`). A Czech vault keeps MiniLM, which ranked its
    help vault better, and so do Greek, Hebrew or Bengali ones: there the multilingual vectors
    are noise that its fusion weighs above BM25 (docs/benchmarks.md)."""
    rule = load_json("languages.json")["suggest"]
    wanted = {*_catalogue_entry(str(rule["model"])).get("languages", ()), *rule["also"]}
    share = sum(n for code, n in found.items() if code != "en" and code in wanted)
    return share >= float(rule["share"])


def _catalogue_entry(model: str) -> dict[str, Any]:
    models = load_json("models.json")
    packaged = models["packaged"]["embedders"]
    entry: dict[str, Any] = packaged[model] if model in packaged else models["models"][model]
    return entry


def vault_shares(vault: Path, *, data: Path | None) -> dict[str, float]:
    """The language shares of a sample of the vault's notes (`suggest.notes` of them, spread
    over its paths), read from the files: what `embed_model = auto` decides by before any note
    is indexed. Excluded notes are left out, and ora.yaml's `language:` settings apply."""
    settings = load_vault_settings(vault, data)
    paths = [rel for rel in iter_note_paths(vault)
             if rel.endswith(".md") and not is_excluded(settings, rel)]
    wanted = int(load_json("languages.json")["suggest"]["notes"])
    step = max(1, len(paths) // wanted)
    limit = spec().max_chars * 2
    notes = []
    for rel in paths[::step][:wanted]:
        try:
            text = read_regular(vault / rel, limit).decode("utf-8", "replace")
        except OSError:
            continue  # gone, unreadable, or not a regular file: the sample is a sample
        block = split_frontmatter(text)
        notes.append((text if block is None else block.body, note_language(settings, rel) or ""))
    return shares(notes)


def english_only(model_id: str) -> bool:
    """Whether the embedder of `model_id` knows English only (`suggest.english_only`)."""
    prefixes = load_json("languages.json")["suggest"]["english_only"]
    return any(model_id.startswith(prefix) for prefix in prefixes)


def suggestion(found: Mapping[str, float], model_id: str) -> dict[str, Any] | None:
    """The multilingual embedder to suggest for a vault of these language shares searched with
    `model_id`, or None (mostly English, or the embedder is not English-only)."""
    rule = load_json("languages.json")["suggest"]
    foreign = not_english(found)
    if not wants_multilingual(found) or not english_only(model_id):
        return None
    model = str(rule["model"])
    packaged = model in load_json("models.json")["packaged"]["embedders"]
    about = _catalogue_entry(model)["about"]
    get = ("it comes with Ora (`ora models build` builds it)" if packaged else
           f"after `ora models pull {model}`")
    return {"model": model, "about": about, "packaged": packaged,
            "share_not_english": round(foreign, 3),
            "message": (f"{foreign:.0%} of the notes are not in English, and the embedder "
                        f"({model_id.split(':')[0]}) knows English only: set ORA_EMBED_MODEL="
                        f"{model} ({about}); {get}. The next `ora index` re-embeds and first "
                        "says how long that takes.")}
