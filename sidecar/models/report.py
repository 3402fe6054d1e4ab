"""What models this machine has, which ones the settings choose, and how to add the rest."""

from __future__ import annotations

from typing import Any

from sidecar.errors import ModelUnavailable
from sidecar.language.suggest import english_only
from sidecar.models import multilingual
from sidecar.models.catalogue import catalogue_report
from sidecar.models.choice import embed_variant, indexed_variants
from sidecar.models.embedder import (
    AUTO_ORDER,
    available_variants,
    model_id,
    pulled_model_id,
    variant_file,
)
from sidecar.models.files import file_sha256
from sidecar.models.nli import OnnxNLI, nli_folder
from sidecar.models.remote_embedder import RemoteEmbedder, remote_model_id, remote_settings
from sidecar.models.reranker import OnnxCrossEncoder, reranker_folder
from sidecar.privacy.egress import endpoints_report
from sidecar.settings import Config

_EXPORT = (
    "Download it with `ora models pull {pull}`. Or, on a machine with internet, "
    "from a local copy of {model}: "
    "`pip install 'optimum[exporters]'` then "
    "`optimum-cli export onnx --model {model} --task text-classification DIR`; "
    "copy {files} from DIR into {folder}/ (or set {env}=DIR)."
)


def reranker_instructions(config: Config) -> str:
    return _EXPORT.format(pull="ms-marco-minilm-l6",
                          model="cross-encoder/ms-marco-MiniLM-L-6-v2",
                          files="model.onnx and tokenizer.json",
                          folder=config.models_path / "reranker", env="ORA_RERANKER_DIR")


def nli_instructions(config: Config) -> str:
    return _EXPORT.format(pull="nli-deberta-v3-xsmall",
                          model="cross-encoder/nli-deberta-v3-xsmall",
                          files="model.onnx, tokenizer.json and config.json",
                          folder=config.models_path / "nli", env="ORA_NLI_DIR")


def _multilingual(config: Config) -> dict[str, Any]:
    """The packaged multilingual embedder: whether `ora models build` (or the first `ora serve`)
    built it, and then its file and the model id its vectors carry."""
    path = multilingual.model_file(config.models_path)
    built = path.is_file()
    return {"name": multilingual.NAME, "available": built, "about": multilingual.spec()["about"],
            "file": str(path) if built else None,
            "model_id": pulled_model_id(multilingual.NAME, file_sha256(path)) if built else None}


def _embedder(config: Config, vault: bool) -> dict[str, Any]:
    variants: dict[str, Any] = {}
    for variant in AUTO_ORDER:
        try:
            path = variant_file(variant, config.models_path)
        except ModelUnavailable as err:
            variants[variant] = {"available": False, "file": None, "reason": err.message}
            continue
        entry: dict[str, Any] = {"available": path.is_file(), "file": str(path)}
        if path.is_file():
            entry["sha256"] = file_sha256(path)
            entry["model_id"] = model_id(variant, entry["sha256"])
        variants[variant] = entry
    packaged = _multilingual(config)
    out: dict[str, Any] = {"setting": config.embed_model, "auto_order": list(AUTO_ORDER),
                           "available": available_variants(config.models_path),
                           "variants": variants, "multilingual": packaged}
    if config.embed_url:
        return {**out, **_remote(config)}
    try:
        chosen = embed_variant(config, vault=vault)
    except ModelUnavailable as err:
        return {**out, "chosen": None, "reason": err.message}
    # choose_variant returns only a model whose file is there: the packaged multilingual one is
    # built, a pulled catalogue embedder (named by the setting) is pulled.
    if chosen in variants:
        found = variants[chosen]
    elif chosen == multilingual.NAME:
        found = packaged
    else:
        path = variant_file(chosen, config.models_path)
        found = {"file": str(path), "model_id": pulled_model_id(chosen, file_sha256(path))}
    return {**out, "chosen": chosen, "file": found["file"], "model_id": found["model_id"],
            "english_only": english_only(str(found["model_id"]))}


def _remote(config: Config) -> dict[str, Any]:
    """With `embed_url` set a server's model embeds: `chosen` is its name, `file` the URL it is
    asked at, and `model_id` the id its vectors carry, as the index names it when it holds this
    server's vectors of that model, else as the server's answer to one probe gives it (its
    vector size is part of the id); null and the `reason` when it cannot be used."""
    try:
        settings = remote_settings(config)
        unsized = remote_model_id(settings, 0).rpartition(":")[0]  # its id but the width
        recorded = [m for m in indexed_variants(config.data) if m.rpartition(":")[0] == unsized]
        found = recorded[0] if recorded else RemoteEmbedder(settings).model_id
    except ModelUnavailable as err:
        return {"chosen": None, "reason": err.message}
    return {"chosen": settings.model, "file": settings.url, "model_id": found,
            "english_only": english_only(found)}


def _local(loader: type[OnnxCrossEncoder] | type[OnnxNLI], folder: Any) -> dict[str, Any]:
    try:
        return {"available": True, "folder": str(folder), "name": loader(folder).name}
    except ModelUnavailable as err:
        return {"available": False, "folder": str(folder), "reason": err.message}


def _with_active(rows: list[dict[str, Any]], config: Config, embedder: dict[str, Any],
                 reranker: dict[str, Any], nli: dict[str, Any]) -> list[dict[str, Any]]:
    """Mark the catalogue rows the settings use: the chosen embedder (unless a server embeds),
    the re-ranker and NLI model loaded from the folder the row installs into."""
    def active(row: dict[str, Any]) -> bool:
        if row["kind"] == "embedder":
            return not config.embed_url and embedder.get("chosen") == row["name"]
        local = {"reranker": reranker, "nli": nli}.get(row["kind"])
        return bool(local and local["available"] and local["folder"] == row["folder"])
    return [{**row, "active": active(row)} for row in rows]


def models_report(config: Config, *, vault: bool = True) -> dict[str, Any]:
    """Embedder variants and choice, local re-ranker and NLI status, Cohere and LLM judge, and
    every endpoint contacted with whether private text may go to it. `vault=False` (`ora
    models`, run from any folder): `config.vault` is not a vault, and is not walked to choose the
    embedder of a new index by its language."""
    reranker = _local(OnnxCrossEncoder, reranker_folder(config))
    if not reranker["available"]:
        reranker["instructions"] = reranker_instructions(config)
    nli = _local(OnnxNLI, nli_folder(config))
    if not nli["available"]:
        nli["instructions"] = nli_instructions(config)
    embedder = _embedder(config, vault)
    return {
        "models_dir": str(config.models_path),
        "embedder": embedder,
        "reranker": {**reranker, "cohere": bool(config.cohere_api_key),
                     "cohere_model": config.cohere_model},
        "nli": nli,
        "catalogue": _with_active(catalogue_report(config), config, embedder, reranker, nli),
        "llm_judge": {"configured": bool(config.llm_url), "url": config.llm_url or None,
                      "model": config.llm_model or None},
        "endpoints": endpoints_report(config),
    }
