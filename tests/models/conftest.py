from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sidecar.models.build import build_embedders, build_fp32_embedder
from sidecar.models.embedder import Embedder, open_embedder


@pytest.fixture(scope="session")
def fp32_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A models folder holding a freshly built fp32 embedder."""
    models = tmp_path_factory.mktemp("models-fp32")
    build_fp32_embedder(models)
    return models


@pytest.fixture(scope="session")
def fp32_embedder(fp32_models: Path) -> Embedder:
    return open_embedder("fp32", fp32_models)


@pytest.fixture(scope="session")
def q8_models(fp32_models: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A models folder holding the fp32 embedder and its int8 quantisation (`q8`)."""
    models = tmp_path_factory.mktemp("models-q8") / "models"
    shutil.copytree(fp32_models, models)
    build_embedders(models)
    return models
