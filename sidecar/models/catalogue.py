"""The models `ora models pull NAME` can download (schema/models.json), and the pull itself.

A pull fetches every file of a catalogue entry into `<models>/.pull-<name>/` (where `.part` files
survive an interruption, so running the command again resumes), verifies each against the hub's
published digest, writes `source.json` (repo, revision, commit, digests), and only then renames
the complete folder to where the loaders look (`reranker/`, `nli/`, `embedders/<name>/`): a
reader never sees a half-installed model. The hub is contacted only by an explicit pull.

Before a pulled model is loaded, `check_pulled` checks each of its files against the digest and
size that `source.json` records, so a file replaced after the pull (by another program, a bad
copy, a failing disk) is refused, not loaded.

The models folder is shared by every vault's sidecar and the CLI, so a pull holds an exclusive
lock on its staging folder: a second pull of the same model meanwhile, from any process, is
refused rather than writing into the same partial files.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

from sidecar.errors import BadRequest, Conflict, ModelUnavailable
from sidecar.models.files import TamperedModel, file_sha256
from sidecar.models.hub import (
    HubSettings,
    Offline,
    Progress,
    RemoteFile,
    digest_of,
    download,
    head,
    offline_message,
    open_session,
    resolve_url,
)
from sidecar.schema import load_json
from sidecar.settings import Config

MANIFEST = "source.json"


@dataclass(frozen=True)
class CatalogueEntry:
    name: str
    kind: str
    repo: str
    revision: str
    install: str
    files: dict[str, str]  # hub path -> local file name
    about: str
    embedder: dict[str, Any] | None
    download_mb: int | None = None  # about what a pull downloads (the hub's listing)


def catalogue() -> dict[str, CatalogueEntry]:
    entries = load_json("models.json")["models"]
    return {name: CatalogueEntry(name, e["kind"], e["repo"], e["revision"], e["install"],
                                 dict(e["files"]), e["about"], e.get("embedder"),
                                 e.get("download_mb"))
            for name, e in entries.items()}


def calibration(model_id: str) -> dict[str, Any] | None:
    """The fusion calibration (`embedder.fusion`) of the catalogued or packaged model that the
    embedder id `model_id` names (a pulled or packaged `NAME:onnx:…`, a server's
    `remote:…NAME…`), or None."""
    folded = model_id.casefold()
    models = load_json("models.json")
    for name, item in {**models["models"], **models["packaged"]["embedders"]}.items():
        if name.startswith("$") or not folded or name.casefold() not in folded:
            continue
        calibrated = (item.get("embedder") or {}).get("fusion")
        if calibrated:
            return dict(calibrated)
    return None


def entry(name: str) -> CatalogueEntry:
    found = catalogue()
    if name not in found:
        raise BadRequest(f"no model {name!r} in the catalogue: choose from {', '.join(found)}")
    return found[name]


def hub_settings(config: Config) -> HubSettings:
    raw = load_json("models.json")["hub"]
    return HubSettings(str(config.hf_endpoint), int(raw["attempts"]),
                       float(raw["connect_timeout"]), float(raw["read_timeout"]),
                       int(raw["chunk_bytes"]), int(raw["max_unannounced_bytes"]))


def install_folder(config: Config, item: CatalogueEntry) -> Path:
    return config.models_path / item.install


def installed(config: Config, item: CatalogueEntry) -> dict[str, Any] | None:
    """The manifest of a pulled model, or None when it was not pulled (or not completely)."""
    path = install_folder(config, item) / MANIFEST
    try:
        manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if manifest.get("name") == item.name else None


def check_pulled(folder: Path) -> None:
    """Refuse the model in `folder` if it was pulled (it has a `source.json`) and a file differs
    from the size and digest its pull verified: TamperedModel naming the file and the repair,
    ModelUnavailable when a file or the manifest itself is gone or unreadable. A folder without
    a manifest holds a model put there by hand (an optimum export): nothing recorded to check.
    A sha256 is computed once per process and file (`file_sha256`), as the model id needs it."""
    path = folder / MANIFEST
    if not path.exists():
        return
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        name = str(manifest["name"])
        files = {str(local): dict(recorded) for local, recorded in manifest["files"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ModelUnavailable(f"cannot read {path} ({exc}), so {folder} cannot be checked: pull "
                               "the model again (`ora models pull NAME`, `ora models` lists the "
                               "names)") from exc
    repair = f"Ora refuses to load it. Repair: run `ora models pull {name}` again"
    for local, recorded in files.items():
        _check_file(folder / local, recorded, repair)


def _check_file(file: Path, recorded: dict[str, Any], repair: str) -> None:
    try:
        size = file.stat().st_size
    except OSError as exc:
        raise ModelUnavailable(f"{file} is gone since it was pulled ({exc.strerror}). "
                               f"{repair}") from exc
    if recorded.get("size") is not None and size != recorded["size"]:
        raise TamperedModel(f"{file} changed since it was pulled: it has {size} bytes, the pull "
                            f"verified {recorded['size']} ({MANIFEST}). {repair}")
    algorithm = "sha256" if "sha256" in recorded else "git-sha1"
    actual = file_sha256(file) if algorithm == "sha256" else digest_of(file, algorithm)
    if actual != recorded.get(algorithm):
        raise TamperedModel(f"{file} changed since it was pulled: its {algorithm} is {actual}, "
                            f"the pull verified {recorded.get(algorithm)} ({MANIFEST}). {repair}")


def _installed_bytes(manifest: dict[str, Any] | None) -> int | None:
    if manifest is None:
        return None
    return sum(int(f.get("size") or 0) for f in manifest.get("files", {}).values())


def catalogue_report(config: Config) -> list[dict[str, Any]]:
    """Each catalogue entry, where it installs, whether it is installed and its size on disk
    (None until pulled: the hub tells the size only when asked, and nothing asks unprompted),
    and about how many MB a pull downloads (the catalogue's figure, to quote before asking)."""
    rows = []
    for item in catalogue().values():
        manifest = installed(config, item)
        rows.append({"name": item.name, "kind": item.kind, "repo": item.repo,
                     "about": item.about, "folder": str(install_folder(config, item)),
                     "installed": manifest is not None, "size": _installed_bytes(manifest),
                     "download_mb": item.download_mb})
    return rows


async def _fetch_all(config: Config, item: CatalogueEntry, staging: Path,
                     progress: Progress) -> dict[str, RemoteFile]:
    settings = hub_settings(config)
    remotes: dict[str, RemoteFile] = {}
    try:
        async with open_session(settings) as session:
            for hub_path in item.files:
                url = resolve_url(settings.endpoint, item.repo, item.revision, hub_path)
                remotes[hub_path] = await head(session, url, settings.attempts)
            for hub_path, local in item.files.items():
                await download(session, remotes[hub_path], staging / local, progress, settings)
    except (aiohttp.ClientError, TimeoutError) as exc:
        # head and download retry a broken transfer themselves: what reaches here is a hub
        # that cannot be connected to at all (and aiohttp's OSErrors must not pass for a disk's)
        raise Offline(offline_message(settings.endpoint, exc)) from exc
    return remotes


def _swap_in(staging: Path, target: Path) -> None:
    """Replace `target` by `staging` with renames: the old folder stays whole until the new one
    is in place, and is removed only after."""
    target.parent.mkdir(parents=True, exist_ok=True)
    old = target.with_name(f".old-{target.name}")
    if old.exists():
        shutil.rmtree(old)
    if target.exists():
        target.rename(old)
    staging.rename(target)
    if old.exists():
        shutil.rmtree(old)


@contextlib.contextmanager
def _pulling(staging: Path, name: str) -> Iterator[None]:
    """Create `staging` and hold an exclusive lock on it (released by the kernel if the process
    dies); Conflict when another pull holds it."""
    for _attempt in range(3):
        staging.mkdir(parents=True, exist_ok=True)
        fd = os.open(staging, os.O_RDONLY)
        try:
            if _locked(fd, staging, name):
                break
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # a pull that just finished renamed the folder we locked into place
    else:
        raise Conflict(f"{name} is being pulled by another process; try again")
    try:
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _locked(fd: int, staging: Path, name: str) -> bool:
    """Lock `fd`; whether it is still the folder at `staging` (Conflict when already locked)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise Conflict(f"{name} is being pulled by another process (another vault's sidecar "
                       "or `ora models pull`); wait for it to finish") from None
    try:
        here = staging.stat()
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (here.st_dev, here.st_ino) == (mine.st_dev, mine.st_ino)


async def pull(config: Config, name: str, progress: Progress) -> dict[str, Any]:
    """Download catalogue model `name` into the models folder; returns its manifest."""
    item = entry(name)
    staging = config.models_path / f".pull-{item.name}"
    try:
        with _pulling(staging, item.name):
            return await _pull_into(config, item, staging, progress)
    except OSError as exc:  # a full disk, a read-only or missing folder: not the hub's fault
        raise ModelUnavailable(
            f"cannot write the model into {config.models_path} ({exc}): free some space or make "
            "the folder writable, or set ORA_MODELS_DIR to another folder, then pull again (a "
            "partial download resumes)") from exc


async def _pull_into(config: Config, item: CatalogueEntry, staging: Path,
                     progress: Progress) -> dict[str, Any]:
    remotes = await _fetch_all(config, item, staging, progress)
    manifest = {
        "name": item.name, "kind": item.kind, "repo": item.repo, "revision": item.revision,
        "commit": next((r.commit for r in remotes.values() if r.commit), None),
        "endpoint": str(config.hf_endpoint),
        "files": {item.files[p]: {"hub_path": p, r.algorithm: r.digest, "size": r.size}
                  for p, r in remotes.items()},
        **({"embedder": item.embedder} if item.embedder else {}),
    }
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    target = install_folder(config, item)
    _swap_in(staging, target)
    return {**manifest, "folder": str(target)}
