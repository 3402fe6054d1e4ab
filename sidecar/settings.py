"""Settings, declared once as (name, default, environment variable, help).

Defaults, environment overrides, `docs/settings.md` and its completeness test all derive from
SETTINGS. Per-run values that are not user settings (the vault path) live on `Config`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sidecar.errors import BadRequest


@dataclass(frozen=True)
class Setting:
    name: str
    default: Any
    env: str
    help: str


_DEFAULT_MODELS = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / (
    "ora-vault/models"
)

SETTINGS: tuple[Setting, ...] = (
    Setting("namespace", "default", "ORA_NAMESPACE",
            "Retrieval namespace: collections are named <namespace>__vault (ADR-0005 decision 3)."),
    Setting("chroma_url", "", "ORA_CHROMA_URL",
            "URL of a Chroma server (`chroma run`); empty means the embedded PersistentClient."),
    Setting("embed_model", "auto", "ORA_EMBED_MODEL",
            "Embedding model: auto (the variant the index was built with; for a new index of "
            "a vault mostly not in English use-multilingual-v3 if built; else q8 if built, else "
            "fp32, else int8), q8, fp32, int8, use-multilingual-v3 (the packaged multilingual "
            "embedder), an embedder pulled by `ora models pull` (e.g. bge-small-en-v1.5), or "
            "with embed_url the server's model."),
    Setting("embed_url", "", "ORA_EMBED_URL",
            "Base URL of an OpenAI-compatible /v1/embeddings server (Ollama, llama.cpp, "
            "LM Studio); "
            "when set, embed_model names the server's model and the index re-embeds with it."),
    Setting("embed_api_key", "", "ORA_EMBED_API_KEY", "Bearer key for the embeddings server."),
    Setting("embed_timeout", 30.0, "ORA_EMBED_TIMEOUT",
            "Seconds before one request to the embeddings server is abandoned (then retried)."),
    Setting("models_dir", str(_DEFAULT_MODELS), "ORA_MODELS_DIR",
            "Folder for built or user-supplied ONNX models "
            "(embedders fp32 and q8, reranker/, nli/)."),
    Setting("reranker_dir", "", "ORA_RERANKER_DIR",
            "Folder of a local ONNX cross-encoder (model.onnx + tokenizer.json); "
            "empty means <models_dir>/reranker."),
    Setting("nli_dir", "", "ORA_NLI_DIR",
            "Folder of a local ONNX NLI cross-encoder (model.onnx + tokenizer.json + config.json); "
            "empty means <models_dir>/nli."),
    Setting("hf_endpoint", "https://huggingface.co", "ORA_HF_ENDPOINT",
            "Hugging Face hub (or a mirror with its URL layout) that `ora models pull` downloads "
            "from; contacted only by an explicit pull."),
    Setting("cohere_api_key", "", "ORA_COHERE_API_KEY",
            "Cohere API key; when set, re-ranking uses Cohere /v2/rerank."),
    Setting("cohere_url", "https://api.cohere.com/v2/rerank", "ORA_COHERE_URL",
            "Cohere rerank endpoint."),
    Setting("cohere_model", "rerank-v3.5", "ORA_COHERE_MODEL", "Cohere rerank model name."),
    Setting("cohere_timeout", 10.0, "ORA_COHERE_TIMEOUT",
            "Seconds before a Cohere request is abandoned and local ranking is used."),
    Setting("llm_url", "", "ORA_LLM_URL",
            "Base URL of an OpenAI-compatible chat endpoint (for the LLM judge and answers)."),
    Setting("llm_model", "", "ORA_LLM_MODEL", "Model name sent to the OpenAI-compatible endpoint."),
    Setting("llm_api_key", "", "ORA_LLM_API_KEY", "Bearer key for the OpenAI-compatible endpoint."),
    Setting("private_remote_ok", "", "ORA_PRIVATE_REMOTE_OK",
            "Hosts not on this machine that may receive private text (private notes' passages "
            "and claims, private-mode questions, private conversation turns), comma-separated, "
            "e.g. `gpu-box.lan,api.cohere.com`. Any other endpoint that is not loopback "
            "(127.0.0.0/8, ::1, localhost) never receives it; the web search (`searxng_url`), "
            "which passes every query on to public search engines, receives private-mode "
            "queries only when its host is named here, loopback too; see docs/privacy.md."),
    Setting("host", "127.0.0.1", "ORA_HOST",
            "Address `ora serve` binds (loopback only by default)."),
    Setting("port", 47113, "ORA_PORT", "Port `ora serve` listens on."),
    Setting("max_body_bytes", 4 * 1024 * 1024, "ORA_MAX_BODY_BYTES",
            "Largest HTTP request body accepted; larger gets 413."),
    Setting("max_connections", 256, "ORA_MAX_CONNECTIONS",
            "Most HTTP connections `ora serve` holds open (never over a quarter of the "
            "descriptor limit); at the limit a new one closes the oldest half-sent connection, "
            "else the longest-idle one (those that never sent the token first)."),
    Setting("max_anonymous_connections", 64, "ORA_MAX_ANONYMOUS_CONNECTIONS",
            "Most open connections that never sent the token (never over half of "
            "max_connections); a new one beyond it closes the oldest of them that is idle."),
    Setting("max_streams", 16, "ORA_MAX_STREAMS",
            "Most event streams open at once (events, ask and pull streams); a new one beyond "
            "it ends the oldest."),
    Setting("header_timeout", 10.0, "ORA_HEADER_TIMEOUT",
            "Seconds a new connection has to send its request headers before it is closed."),
    Setting("body_timeout", 30.0, "ORA_BODY_TIMEOUT",
            "Seconds a request has to send its whole body; later gets 408."),
    Setting("keepalive_timeout", 15.0, "ORA_KEEPALIVE_TIMEOUT",
            "Seconds an idle keep-alive connection is kept before it is closed."),
    Setting("max_file_bytes", 5 * 1024 * 1024, "ORA_MAX_FILE_BYTES",
            "Notes larger than this are reported and not indexed."),
    Setting("chunk_tokens", 256, "ORA_CHUNK_TOKENS",
            "Largest chunk, in the embedding model's own tokens (MiniLM reads 256)."),
    Setting("debounce_ms", 150, "ORA_DEBOUNCE_MS", "Watcher debounce for file events."),
    Setting("llm_timeout", 60.0, "ORA_LLM_TIMEOUT",
            "Seconds before an answer or summary request to the chat endpoint is abandoned "
            "(the contradiction judge has its own, in schema/cleaning.json)."),
    Setting("answer_max_tokens", 512, "ORA_ANSWER_MAX_TOKENS",
            "Longest generated answer, in the model's tokens."),
    Setting("memory_window_tokens", 1024, "ORA_MEMORY_WINDOW_TOKENS",
            "Recent conversation turns sent with a question, in embedding-model tokens."),
    Setting("memory_recall_tokens", 512, "ORA_MEMORY_RECALL_TOKENS",
            "Earlier turns recalled by similarity, in embedding-model tokens."),
    Setting("memory_summary_tokens", 256, "ORA_MEMORY_SUMMARY_TOKENS",
            "Longest running summary of turns evicted from the window, in the model's tokens."),
    Setting("searxng_url", "", "ORA_SEARXNG_URL",
            "Base URL of a SearXNG instance (its JSON format enabled) for the web tier of "
            "`--web` searches and answers; empty means no web search. Private-mode queries are "
            "not sent to it, wherever it runs, unless `private_remote_ok` names its host."),
    Setting("web_timeout", 10.0, "ORA_WEB_TIMEOUT",
            "Seconds before a web search is abandoned (the vault results are returned alone)."),
    Setting("web_results", 8, "ORA_WEB_RESULTS", "Web results fetched and classified per query."),
    Setting("idle_release_s", 300.0, "ORA_IDLE_RELEASE_S",
            "Seconds without a search or vault change after which `ora serve` and `ora watch` "
            "give back the embedding model's memory and the vector index's (reloaded on the next "
            "use, under a second); 0 keeps them loaded."),
    Setting("scan_delay", 3.0, "ORA_SCAN_DELAY",
            "Quiet seconds after vault changes before `ora serve` scans them for contradictions "
            "in the background; negative turns background scans off."),
)

_BY_NAME = {s.name: s for s in SETTINGS}


def _coerce(setting: Setting, raw: str) -> Any:
    kind = type(setting.default)
    try:
        return kind(raw)
    except ValueError as exc:
        raise BadRequest(f"{setting.env}={raw!r} is not a valid {kind.__name__}") from exc


def _from_env() -> dict[str, Any]:
    values: dict[str, Any] = {}
    for s in SETTINGS:
        raw = os.environ.get(s.env)
        values[s.name] = s.default if raw is None or raw == "" else _coerce(s, raw)
    return values


@dataclass(frozen=True)
class Config:
    """One run's configuration: the vault, its data folder, and every setting."""

    vault: Path
    data: Path
    values: dict[str, Any] = field(default_factory=_from_env)

    def __getattr__(self, name: str) -> Any:
        if name in _BY_NAME:
            return self.values[name]
        raise AttributeError(name)

    def with_values(self, **overrides: Any) -> Config:
        unknown = set(overrides) - set(_BY_NAME)
        if unknown:
            raise BadRequest(f"unknown setting(s): {', '.join(sorted(unknown))}")
        kept = {k: v for k, v in overrides.items() if v is not None}
        return replace(self, values={**self.values, **kept})

    @property
    def models_path(self) -> Path:
        return Path(self.values["models_dir"]).expanduser()


def make_config(vault: str | Path, data: str | Path | None = None, **overrides: Any) -> Config:
    """A Config for VAULT; the index lives in VAULT/.ora unless `data` is given."""
    vault_path = Path(vault).expanduser().resolve()
    data_path = Path(data).expanduser().resolve() if data else vault_path / ".ora"
    if data_path == vault_path:
        # The index's files would sit among the notes, and its lock on the folder would be the
        # one journalled edits take on the vault.
        raise BadRequest(f"the data folder cannot be the vault itself ({vault_path}): use "
                         "the default VAULT/.ora or a folder of its own")
    return Config(vault=vault_path, data=data_path).with_values(**overrides)
