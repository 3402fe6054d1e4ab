"""Session fixtures shared by every test area: the real tokenizer and embedder, tiny models.

`tokenizer` and `embedder` load the packaged all-MiniLM-L6-v2 once per session. The embedder is
the int8 variant, which is always installed (the fp32 one needs `ora models build`); its
model_id says so. `tiny_reranker_dir` and `tiny_nli_dir` are random-weight model folders for
testing the re-ranker and NLI loaders (their scores mean nothing; their shapes are real).
`app_client(config)` builds the app `ora serve` runs and an `AppClient` that checks every answer
against openapi.json.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import shutil
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from aiohttp.test_utils import TestClient
from tokenizers import Tokenizer

from sidecar.models.bert_onnx import BertShape, bert_graph, random_weights
from sidecar.models.embedder import Embedder, load_tokenizer, open_embedder
from sidecar.models.files import minilm_source_dir
from sidecar.models.multilingual import build_multilingual
from sidecar.server.app import init_app
from sidecar.settings import Config


@pytest.fixture(scope="session")
def tokenizer() -> Tokenizer:
    """all-MiniLM-L6-v2's tokenizer, counting every token (no truncation, no padding)."""
    return load_tokenizer()


@pytest.fixture(scope="session")
def multilingual_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A models folder holding the packaged multilingual embedder, built once (a few seconds)."""
    models: Path = tmp_path_factory.mktemp("models-multilingual")
    build_multilingual(models)
    return models


@pytest.fixture(scope="session")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    """The int8 all-MiniLM-L6-v2 embedder (384-d unit vectors)."""
    models: Path = tmp_path_factory.mktemp("models")
    return open_embedder("int8", models)


# Tiny random-weight BERT models (2 layers, hidden 32) with the real MiniLM tokenizer, built by
# sidecar.models.bert_onnx: they exercise the re-ranker and NLI loaders without a downloaded model.
TINY_SHAPE = BertShape(
    vocab_size=30522, hidden_size=32, num_layers=2, num_heads=4, intermediate_size=64
)


def write_tiny_bert(
    folder: Path,
    labels: tuple[str, ...] = (),
    classifier_bias: tuple[float, ...] = (),
    seed: int = 0,
) -> Path:
    """model.onnx + tokenizer.json + config.json of a tiny BERT; a classifier when `labels`.

    `classifier_bias` (one value per label) replaces the head's random bias, so a test can
    steer which label wins.
    """
    weights = random_weights(TINY_SHAPE, num_labels=len(labels), seed=seed)
    if classifier_bias:
        weights["classifier.bias"] = np.asarray(classifier_bias, dtype=np.float32)
    folder.mkdir(parents=True, exist_ok=True)
    onnx.save(bert_graph(weights, TINY_SHAPE), str(folder / "model.onnx"))
    shutil.copy(minilm_source_dir() / "tokenizer.json", folder / "tokenizer.json")
    config = TINY_SHAPE.to_config()
    if labels:
        config["id2label"] = {str(i): name for i, name in enumerate(labels)}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def write_tiny() -> Callable[..., Path]:
    """`write_tiny_bert` for tests that need a tiny model of their own."""
    return write_tiny_bert


@pytest.fixture(scope="session")
def tiny_reranker_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny cross-encoder folder (one logit), shaped like ms-marco-MiniLM-L-6-v2's export."""
    return write_tiny_bert(tmp_path_factory.mktemp("reranker"), labels=("LABEL_0",), seed=1)


@pytest.fixture(scope="session")
def tiny_nli_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny 3-way NLI folder whose head favours `entailment` (id2label order as nli-deberta)."""
    return write_tiny_bert(
        tmp_path_factory.mktemp("nli"),
        labels=("contradiction", "entailment", "neutral"),
        classifier_bias=(0.0, 3.0, -1.0),
        seed=2,
    )


# The in-process HTTP app for areas outside tests/server (answers, cleaning): requests carry the
# token and every answer is checked against openapi.json by the server suite's contract checker.
_contract_spec = importlib.util.spec_from_file_location(
    "shared_contract", Path(__file__).with_name("server") / "contract.py"
)
assert _contract_spec is not None and _contract_spec.loader is not None
contract = importlib.util.module_from_spec(_contract_spec)
sys.modules["shared_contract"] = contract
_contract_spec.loader.exec_module(contract)


class AppClient:
    """`call(method, path, body)` -> (status, JSON), checked against the OpenAPI document."""

    def __init__(self, client: TestClient[Any, Any], token: str) -> None:
        self.client, self.token = client, token

    async def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {self.token}"}
        async with self.client.request(method, path, json=body, headers=headers) as resp:
            answer = contract.Answer(resp.status, resp.headers, await resp.read())
        contract.check_response(method, path.split("?")[0], answer)
        return answer.status, answer.json

    async def reconciled(self, timeout: float = 120.0) -> None:
        """Return once the start-up reconcile has finished."""
        deadline = time.monotonic() + timeout
        while True:
            _, status = await self.call("GET", "/v1/status")
            if not status["reconcile"]["running"] and status["reconcile"]["phase"] != "pending":
                return
            assert time.monotonic() < deadline, status
            await asyncio.sleep(0.1)


@pytest.fixture
def app_client(aiohttp_client: Any) -> Callable[[Config], Awaitable[AppClient]]:
    """An `AppClient` on the app `init_app(config)` builds, the one `ora serve` runs."""

    async def make(config: Config) -> AppClient:
        client = await aiohttp_client(init_app(config))
        return AppClient(client, (config.data / "token").read_text(encoding="utf-8").strip())

    return make
