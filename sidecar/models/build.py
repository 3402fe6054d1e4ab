"""`ora models build`: the packaged embedders built into the models folder, once.

The fp32 all-MiniLM-L6-v2 graph is written from the packaged safetensors (`bert_onnx.py`), the q8
file quantised from it, and the packaged multilingual embedder from its pinned files
(`multilingual.py`). Each build leaves a `build.json` stamp of its sources beside it and is redone
only when they change. A command that writes the index first builds what its `embed_model`
needs (`ensure_embedders`), one process at a time (`build_lock`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sidecar.errors import ModelUnavailable
from sidecar.models import multilingual
from sidecar.models.bert_onnx import BUILDER_VERSION, build_bert_onnx, quantize
from sidecar.models.files import (
    built_from,
    file_sha256,
    fp32_model_file,
    minilm_source_dir,
    q8_model_file,
)
from sidecar.settings import Config


def build_fp32_embedder(models_path: Path, *, force: bool = False) -> dict[str, Any]:
    """Build the fp32 all-MiniLM-L6-v2 embedder unless the same source is already built.

    A `build.json` beside the model records the source files' hash and the builder version.
    """
    source = minilm_source_dir()
    out_file = fp32_model_file(models_path)
    stamp = {"source_sha256": file_sha256(source / "model.safetensors"),
             "builder_version": BUILDER_VERSION}
    if not force and built_from(out_file.with_name("build.json"), stamp, [out_file]):
        return {"built": False, "path": str(out_file), **stamp}
    build_bert_onnx(source, out_file)
    out_file.with_name("build.json").write_text(json.dumps(stamp) + "\n", encoding="utf-8")
    return {"built": True, "path": str(out_file), **stamp}


# Recorded in the q8 build's stamp: change it when `quantize` makes another graph.
QUANTIZER = "dynamic int8, per channel, weight MatMuls"


def build_embedders(models_path: Path, *, force: bool = False) -> dict[str, Any]:
    """`ora models build`: the fp32 embedder (its fields at the top, as before), under "q8" its
    int8 quantisation, redone only when the fp32 file or the quantiser changed, and under
    "multilingual" the packaged multilingual embedder (multilingual.py)."""
    fp32 = build_fp32_embedder(models_path, force=force)
    out_file = q8_model_file(models_path)
    stamp = {"fp32_sha256": file_sha256(Path(fp32["path"])), "quantizer": QUANTIZER}
    built = force or not built_from(out_file.with_name("build.json"), stamp, [out_file])
    if built:
        quantize(Path(fp32["path"]), out_file)
        out_file.with_name("build.json").write_text(json.dumps(stamp) + "\n", encoding="utf-8")
    return {**fp32, "q8": {"built": built, "path": str(out_file), **stamp},
            "multilingual": multilingual.build_multilingual(models_path, force=force)}


@contextlib.contextmanager
def build_lock(models_path: Path, log: Callable[[str], None]) -> Iterator[None]:
    """One builder at a time in a models folder (a lock on `.build.lock`, released by the kernel
    if the process dies). Two processes building at once (a sidecar started while `ora index`
    builds, two vaults' sidecars on a fresh install) wrote the same temporary files: one failed
    with a traceback, and the other could load a file the first was still writing. The second
    now waits, then finds the build done."""
    models_path.mkdir(parents=True, exist_ok=True)
    fd = os.open(models_path / ".build.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log(f"waiting for another process building the embedders in {models_path} …")
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def ensure_embedders(config: Config, log: Callable[[str], None]) -> bool:
    """Build the embedders once, before a command that writes the index, when `embed_model`
    wants a built one (auto, fp32, q8 or use-multilingual-v3) that is missing: a fresh install
    then indexes with the model `make setup` would have built, without a separate step. Returns
    whether it built.

    With `auto`, a failed build (a read-only models folder, say) is reported and the best
    embedder available is used; with a named one the failure is the command's error.
    """
    setting, models = str(config.embed_model), config.models_path
    # What each setting needs built, what builds it, and how the log line names it (q8 is
    # made from the fp32 file, so it needs both).
    needs: dict[str, tuple[list[Path], Callable[[Path], object], str]] = {
        "fp32": ([fp32_model_file(models)], build_fp32_embedder, "the fp32 embedder"),
        "q8": ([fp32_model_file(models), q8_model_file(models)], build_embedders,
               "the fp32, int8 (q8) and multilingual embedders"),
        multilingual.NAME: ([multilingual.model_file(models)], multilingual.build_multilingual,
                            "the multilingual embedder"),
    }
    needs["auto"] = ([*needs["q8"][0], multilingual.model_file(models)], build_embedders,
                     needs["q8"][2])
    if setting not in needs:
        return False
    files, build, named = needs[setting]
    if all(path.is_file() for path in files):
        return False
    try:
        with build_lock(models, log):
            if all(path.is_file() for path in files):
                return False  # built by another process while this one waited
            log(f"building {named} from the packaged weights into {models} (once, a few "
                "seconds) …")
            started = time.monotonic()
            build(models)
    except (OSError, ModelUnavailable) as exc:
        if setting != "auto":
            raise ModelUnavailable(f"cannot build the {setting} embedder: {exc}") from exc
        log(f"could not build the embedders ({exc}); using the best one available")
        return False
    log(f"embedder built in {time.monotonic() - started:.1f} s")
    return True
