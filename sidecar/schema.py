"""The vocabularies, weights and constants of `schema/`, read once, typed.

Code asks this module for a type's weight, the tag vocabulary or a decay constant; it never
spells those values itself. In a source checkout the files are read from `schema/` at the
repository root; an installed wheel carries them as `sidecar/_schema`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from sidecar.errors import SchemaDataError

_HERE = Path(__file__).resolve().parent


def schema_dir() -> Path:
    """The folder holding the schema data files."""
    for candidate in (_HERE / "_schema", _HERE.parent / "schema"):
        if (candidate / "types.json").is_file():
            return candidate
    raise SchemaDataError("schema data not found: reinstall the sidecar "
                          "(pip install --force-reinstall ora-vault-sidecar, or make setup)")


def load_json(name: str) -> Any:
    """One schema data file, parsed."""
    path = schema_dir() / name
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SchemaDataError(f"cannot read schema file {path}: {exc}") from exc


@dataclass(frozen=True)
class TypeInfo:
    name: str
    retrievable: bool
    tier: str | None
    weight: float
    decay_eligible: bool
    description: str


@dataclass(frozen=True)
class Schema:
    """Everything under schema/, as plain typed values."""

    types: dict[str, TypeInfo]
    tag_groups: dict[str, tuple[str, ...]]
    schema_note: str
    domain_tags_property: str
    relationship_kinds: dict[str, dict[str, Any]]
    subtypes: tuple[str, ...]
    writing: tuple[str, ...]
    project_types: tuple[str, ...]
    project_type_allowed_on: tuple[str, ...]
    nexus_target_types: tuple[str, ...]
    source_properties: tuple[str, ...]
    linter_managed_dates: tuple[str, ...]
    date_properties: tuple[str, ...]
    decay_floor: float
    decay_per_newer: float
    fusion_k: float
    fusion_weights: dict[str, float]
    candidate_pool: int
    cluster_threshold: float
    bm25_stopwords: frozenset[str]
    bm25_max_deleted: float
    web_tiers: dict[str, float]
    web_registry_note: str
    corroboration_min_domains: int
    frontmatter_schema: dict[str, Any]

    @property
    def retrievable_types(self) -> frozenset[str]:
        return frozenset(n for n, t in self.types.items() if t.retrievable)

    @property
    def decay_types(self) -> frozenset[str]:
        return frozenset(n for n, t in self.types.items() if t.decay_eligible)

    @property
    def known_tags(self) -> frozenset[str]:
        return frozenset(tag for group in self.tag_groups.values() for tag in group)

    def type_weight(self, type_name: str) -> float:
        info = self.types.get(type_name)
        return info.weight if info else 0.0


@cache
def get_schema() -> Schema:
    """The schema, loaded once per process."""
    types = load_json("types.json")["types"]
    tags = load_json("tags.json")
    rel = load_json("relationships.json")["kinds"]
    voc = load_json("vocabularies.json")
    ranking = load_json("ranking.json")
    web = load_json("web_tiers.json")
    return Schema(
        types={n: TypeInfo(name=n, **v) for n, v in types.items()},
        tag_groups={g: tuple(v) for g, v in tags["groups"].items()},
        schema_note=tags["schema_note"],
        domain_tags_property=tags["domain_tags_property"],
        relationship_kinds=rel,
        subtypes=tuple(voc["subtype"]),
        writing=tuple(voc["writing"]),
        project_types=tuple(voc["project_type"]["core"] + voc["project_type"]["domain"]),
        project_type_allowed_on=tuple(voc["project_type_allowed_on"]),
        nexus_target_types=tuple(voc["nexus_target_types"]),
        source_properties=tuple(voc["source_properties"]),
        linter_managed_dates=tuple(voc["linter_managed_dates"]),
        date_properties=tuple(voc["date_properties"]),
        decay_floor=float(ranking["decay"]["FLOOR"]),
        decay_per_newer=float(ranking["decay"]["DECAY_PER_NEWER"]),
        fusion_k=float(ranking["fusion"]["k"]),
        fusion_weights={k: float(v) for k, v in ranking["fusion"]["weights"].items()},
        candidate_pool=int(ranking["candidate_pool"]),
        cluster_threshold=float(ranking["cluster"]["assign_threshold"]),
        bm25_stopwords=frozenset(ranking["bm25"]["stopwords"]),
        bm25_max_deleted=float(ranking["bm25"]["max_deleted_share"]),
        web_tiers={k: float(v) for k, v in web["tiers"].items()},
        web_registry_note=web["registry_note"],
        corroboration_min_domains=int(web["corroboration_min_domains"]),
        frontmatter_schema=load_json("frontmatter.schema.json"),
    )
