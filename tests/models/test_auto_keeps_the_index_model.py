"""`embed_model = auto` means the embedder the index was built with: a pulled one when it is
installed; an embeddings server's only through `embed_url` (else a clear stop, never another
model's vectors). A search never ranks an index's vectors by another model's query vector, and
`ora models` / `GET /v1/models` report a configured embeddings server as the chosen embedder."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from sidecar.cli import main
from sidecar.errors import ModelUnavailable
from sidecar.index import open_index
from sidecar.index_params import load_params
from sidecar.models.catalogue import pull
from sidecar.models.choice import load_embedder
from sidecar.models.embedder import Embedder, FloatArray, OnnxEmbedder
from sidecar.models.report import models_report
from sidecar.retrieval.search import search_sync
from sidecar.server.openapi import openapi_document
from sidecar.settings import Config, make_config

from ..index.conftest import KETTLE, SPACED, write
from .loopback_hub import LoopbackHub, RunningApp, repo_files
from .test_remote_embedder import DIM, EmbeddingsServer

BGE = "bge-small-en-v1.5"


@pytest.fixture(autouse=True)
def _no_model_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only what each test sets: its own models folder (the packaged int8 variant is there)."""
    for env in ("ORA_EMBED_URL", "ORA_EMBED_MODEL", "ORA_RERANKER_DIR", "ORA_NLI_DIR"):
        monkeypatch.delenv(env, raising=False)
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))


@pytest.fixture
def embeddings_url() -> Iterator[str]:
    with RunningApp(EmbeddingsServer().app()) as url:
        yield url


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    write(vault, "Engrams/Kettle.md", KETTLE)
    write(vault, "Engrams/Spaced repetition.md", SPACED)
    return vault


def _build(config: Config) -> str:
    """Index the vault with the embedder `config` names; the model id the index records."""
    with open_index(config, writer=True, embedder=load_embedder(config)) as index:
        index.reconcile()
    return str(load_params(config.data)["namespaces"]["default"]["model"])


def _pull_bge(tmp_path: Path, write_tiny: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    hub = LoopbackHub({"BAAI/bge-small-en-v1.5": repo_files(write_tiny(tmp_path / "tiny",
                                                                          seed=5))})
    with RunningApp(hub.app()) as url:
        monkeypatch.setenv("ORA_HF_ENDPOINT", url)
        asyncio.run(pull(make_config(tmp_path), BGE, lambda *_: None))


def test_auto_searches_an_index_built_with_a_pulled_embedder_with_that_embedder(
    tmp_path: Path, write_tiny: Any, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _pull_bge(tmp_path, write_tiny, monkeypatch)
    vault = _vault(tmp_path)
    built = _build(make_config(vault, embed_model=BGE))
    assert built.startswith(f"{BGE}:onnx:")
    auto = make_config(vault)  # embed_model auto, the packaged int8 variant available too
    embedder = load_embedder(auto)
    assert isinstance(embedder, OnnxEmbedder) and embedder.model_id == built
    report = models_report(auto)["embedder"]
    assert (report["chosen"], report["model_id"]) == (BGE, built)
    with open_index(auto, writer=False, embedder=embedder) as index:
        assert search_sync(index, embedder, None, "vinegar limescale kettle")["results"]
    assert main(["search", str(vault), "kettle", "--no-rerank"]) == 0
    # A writer under auto keeps the index's vectors: nothing re-embedded with another model.
    with open_index(auto, writer=True, embedder=load_embedder(auto)) as index:
        assert index.reembedding is None
    assert load_params(auto.data)["namespaces"]["default"]["model"] == built
    capsys.readouterr()


def test_auto_on_an_index_an_embeddings_server_built_stops_saying_what_to_set(
    tmp_path: Path, embeddings_url: str, capsys: pytest.CaptureFixture[str],
) -> None:
    vault = _vault(tmp_path)
    built = _build(make_config(vault, embed_url=embeddings_url, embed_model="nomic-embed-text"))
    assert built.startswith("remote:nomic-embed-text@")
    auto = make_config(vault)  # embed_url unset: the server's address is not known
    with pytest.raises(ModelUnavailable, match=r"built with nomic-embed-text by an embeddings "
                                               r"server .*ORA_EMBED_URL"):
        load_embedder(auto)
    assert main(["search", str(vault), "kettle"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ora search: the index was built with nomic-embed-text")
    assert "Traceback" not in err and err.count("\n") == 1
    with pytest.raises(ModelUnavailable, match="embeddings server"):  # a writer (`ora index`)
        open_index(auto, writer=True)
    assert load_params(auto.data)["namespaces"]["default"]["model"] == built  # not wiped


class _Renamed(Embedder):
    """The packaged embedder's vectors under another model's id: what a query embedder of
    another model of the same width gives the vector store (it cannot tell them apart)."""

    def __init__(self, inner: Embedder, model_id: str) -> None:
        self.inner, self.model_id, self.tokenizer = inner, model_id, inner.tokenizer
        self.dim = inner.dim

    def embed(self, texts: Sequence[str]) -> FloatArray:
        return self.inner.embed(texts)


@pytest.mark.parametrize("width", ["same", "other"])
def test_a_search_never_ranks_the_index_by_another_model_s_query_vector(
    tmp_path: Path, embeddings_url: str, embedder: Embedder, width: str,
) -> None:
    vault = _vault(tmp_path)
    config = make_config(vault, embed_model="int8")
    with open_index(config, writer=True, embedder=embedder) as index:
        index.reconcile()
    other: Embedder = (_Renamed(embedder, "all-MiniLM-L6-v2:q8:000000000000") if width == "same"
                       else load_embedder(make_config(vault, embed_url=embeddings_url,
                                                      embed_model="nomic-embed-text")))
    with open_index(config, writer=False, embedder=other) as index:
        with pytest.raises(ModelUnavailable, match=r"holds vectors of all-MiniLM-L6-v2:int8"):
            search_sync(index, other, None, "vinegar limescale kettle")
        assert search_sync(index, embedder, None, "vinegar limescale kettle")["results"]


def _valid_report(report: dict[str, Any]) -> None:
    doc = openapi_document()
    validator = Draft202012Validator({"$ref": "#/components/schemas/ModelsReport",
                                      "components": doc["components"]})
    errors = sorted(validator.iter_errors(report), key=str)
    assert not errors, errors[0].message


def test_ora_models_reports_a_configured_embeddings_server_as_the_chosen_embedder(
    tmp_path: Path, embeddings_url: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ORA_EMBED_URL", embeddings_url)
    monkeypatch.setenv("ORA_EMBED_MODEL", "nomic-embed-text")
    vault = _vault(tmp_path)
    host = embeddings_url.split("//")[1].split("/")[0]
    before = models_report(make_config(vault))  # nothing indexed: the server is asked once
    assert before["embedder"]["chosen"] == "nomic-embed-text"
    assert before["embedder"]["model_id"] == f"remote:nomic-embed-text@{host}:{DIM}"
    _valid_report(before)
    built = _build(make_config(vault))
    after = models_report(make_config(vault))
    assert after["embedder"]["model_id"] == built
    assert [row["service"] for row in after["endpoints"]].count("embed") == 1
    monkeypatch.chdir(vault)
    assert main(["models", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["embedder"]["chosen"], shown["embedder"]["model_id"]) == (
        "nomic-embed-text", built)
    assert any(row["service"] == "embed" for row in shown["endpoints"])
