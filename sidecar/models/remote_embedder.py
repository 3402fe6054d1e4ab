"""Vectors from an OpenAI-compatible `/v1/embeddings` server (Ollama, llama.cpp, LM Studio).

Selected by `embed_url`; `embed_model` names the server's model. Texts go in batches
(schema/models.json `remote_embedder`), each request with a timeout (`embed_timeout`) and retried
with doubling back-off on a refused connection, a timeout, 429 or 5xx; any other failure is an
error, never a made-up vector. Its model id (`remote:<model>@<host>:<dim>`) is stored with every
vector, so switching server or model re-embeds the index. Chunks are still sized with the packaged
MiniLM tokenizer (the server's own tokenizer is not reachable through this API), text it cannot
read (Thai, Khmer: `[UNK]`) by its characters (`chunking/counting.py`). A server that is
not on this machine is used only when its host is trusted with private text (`private_remote_ok`,
`sidecar/privacy/egress.py`): it receives every note's text.

Every request names its role, `input_type: query|passage` (the convention several embedding
APIs share; a server that does not know it ignores it). A model the catalogue knows by name
(`multilingual-e5-small` in `jeffh/intfloat-multilingual-e5-small:f16`) gets the catalogue's
query and passage prefixes, unless the server applies the roles itself: one word embedded as a
query and as a passage tells (the same vector: it ignores them, so Ora adds the prefixes).
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from sidecar.errors import ModelUnavailable
from sidecar.models.chat import endpoint_url
from sidecar.models.embedder import VARIANTS, Embedder, FloatArray, composed, load_tokenizer
from sidecar.privacy.egress import may_send_private
from sidecar.schema import load_json
from sidecar.settings import Config

_RETRY_STATUS = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RemoteSettings:
    url: str
    model: str
    api_key: str
    timeout: float
    batch: int
    attempts: int
    backoff: float


def catalogue_prefixes(model: str) -> tuple[str, str]:
    """(query, passage) prefixes of the catalogue embedder a server's model name names."""
    folded = model.casefold()
    for name, entry in load_json("models.json")["models"].items():
        spec = entry.get("embedder")
        if spec and (name.casefold() in folded
                     or str(entry["repo"]).rsplit("/", 1)[-1].casefold() in folded):
            return str(spec.get("query_prefix", "")), str(spec.get("passage_prefix", ""))
    return "", ""


class RemoteEmbedder(Embedder):
    """Embeds by POSTing `{"model", "input": [...], "input_type"}`; vectors come back
    L2-normalised."""

    def __init__(self, settings: RemoteSettings) -> None:
        self.settings = settings
        self.tokenizer = load_tokenizer()
        probe = self._request(["dimension probe"], "passage")
        self.dim = int(probe.shape[1])
        self.model_id = remote_model_id(settings, self.dim)
        query_prefix, passage_prefix = catalogue_prefixes(settings.model)
        # Whether the server applies the roles itself, found only when the model needs them.
        self.server_roles = bool(query_prefix or passage_prefix) and not np.allclose(
            self._request(["role probe"], "query"), self._request(["role probe"], "passage"))
        if not self.server_roles:
            self.query_prefix, self.passage_prefix = query_prefix, passage_prefix

    @classmethod
    def from_config(cls, config: Config) -> RemoteEmbedder:
        return cls(remote_settings(config))

    def embed(self, texts: Sequence[str]) -> FloatArray:
        return self._embed([self.passage_prefix + t for t in texts], "passage")

    def embed_queries(self, queries: Sequence[str]) -> FloatArray:
        return self._embed([self.query_prefix + q for q in queries], "query")

    def _embed(self, texts: Sequence[str], role: str) -> FloatArray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        size, texts = self.settings.batch, [composed(t) for t in texts]  # NFC, as a local model
        parts = [self._request(texts[i: i + size], role)
                 for i in range(0, len(texts), size)]
        out = np.concatenate(parts)
        if out.shape[1] != self.dim:
            raise ModelUnavailable(f"{self.settings.url} changed its vector size from {self.dim} "
                                   f"to {out.shape[1]}")
        return out

    def _request(self, texts: list[str], role: str) -> FloatArray:
        s = self.settings
        body = json.dumps({"model": s.model, "input": texts, "input_type": role}).encode()
        headers = {"Content-Type": "application/json"}
        if s.api_key:
            headers["Authorization"] = f"Bearer {s.api_key}"
        delay, failure = s.backoff, ""
        for attempt in range(s.attempts):
            if attempt:
                time.sleep(delay)
                delay *= 2
            request = urllib.request.Request(s.url, data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=s.timeout) as resp:
                    return _vectors(json.loads(resp.read()), len(texts), s.url)
            except urllib.error.HTTPError as exc:
                failure = f"HTTP {exc.code}: {exc.read()[:200].decode(errors='replace')}"
                if exc.code not in _RETRY_STATUS:
                    break
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                failure = str(getattr(exc, "reason", exc))
            except ValueError as exc:
                failure = f"not JSON: {exc}"
                break
        raise ModelUnavailable(f"the embeddings server {s.url} failed ({failure}); check that it "
                               f"serves {s.model!r} (embed_url, embed_model)")


def remote_settings(config: Config) -> RemoteSettings:
    """The server settings `embed_url` and `embed_model` name, checked without contacting the
    server: ModelUnavailable for a packaged variant's name (or auto), or a server elsewhere not
    trusted with private text."""
    model = str(config.embed_model)
    if model == "auto" or model in VARIANTS:
        raise ModelUnavailable(f"embed_url is set ({config.embed_url}): set embed_model "
                               "(ORA_EMBED_MODEL) to the server's model name, e.g. "
                               "nomic-embed-text")
    if not may_send_private(config, str(config.embed_url)):
        # It would embed every chunk, private notes' included, and every private query.
        raise ModelUnavailable(
            f"embed_url {config.embed_url} is not on this machine, and an embeddings server "
            "receives the text of every note, private ones included: name its host in "
            "private_remote_ok (ORA_PRIVATE_REMOTE_OK) to use it anyway, or run the server "
            "on this machine (docs/privacy.md)")
    raw = load_json("models.json")["remote_embedder"]
    return RemoteSettings(endpoint_url(str(config.embed_url), "embeddings"), model,
                          str(config.embed_api_key), float(config.embed_timeout),
                          int(raw["batch"]), int(raw["attempts"]), float(raw["backoff_seconds"]))


def remote_model_id(settings: RemoteSettings, dim: int) -> str:
    """`remote:<model>@<host:port>:<dim>`: the id stored with the server's vectors."""
    return f"remote:{settings.model}@{urlsplit(settings.url).netloc}:{dim}"


def _vectors(doc: Any, n: int, url: str) -> FloatArray:
    """`data[i].embedding` in `index` order, L2-normalised."""
    try:
        rows = sorted(doc["data"], key=lambda d: int(d.get("index", 0)))
        out = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelUnavailable(f"{url} sent no data[].embedding: {exc}") from exc
    if out.ndim != 2 or len(out) != n or not np.isfinite(out).all():
        raise ModelUnavailable(f"{url} sent {len(out)} vectors of shape {out.shape} for {n} texts")
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    unit: FloatArray = (out / np.clip(norms, 1e-12, None)).astype(np.float32)
    return unit
