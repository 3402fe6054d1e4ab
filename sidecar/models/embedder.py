"""Sentence vectors on CPU (onnxruntime + tokenizers, no torch), or from a local server.

The packaged model is all-MiniLM-L6-v2 in three variants of the same weights: `int8` (the
packaged quantised export), `fp32` (built from the packaged safetensors by `ora models build`)
and `q8` (the fp32 graph quantised to int8 by `ora models build`, the fastest on CPU). Its
vectors are the sentence-transformers recipe: mean of the last hidden state over the attention
mask, then L2 normalisation, reading at most 256 tokens (the model's `max_seq_length`).

The packaged multilingual embedder, `use-multilingual-v3` (`sidecar/models/multilingual.py`), is
built by `ora models build` beside MiniLM's variants; `auto` takes it for a vault whose notes are
mostly in languages it reads better than MiniLM (`choice.py`, where `load_embedder` is). An
embedder pulled from the catalogue (`ora models pull bge-small-en-v1.5`) is chosen by naming it in
`embed_model`; its pooling, token limit and query prefix come from schema/models.json. With
`embed_url` set, `embed_model` names a model on an OpenAI-compatible server
(`sidecar/models/remote_embedder.py`).
"""

from __future__ import annotations

import json
import os
import unicodedata
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from tokenizers import Encoding, Tokenizer

from sidecar.errors import BadRequest, ModelUnavailable
from sidecar.models import multilingual
from sidecar.models.catalogue import CatalogueEntry, catalogue, check_pulled
from sidecar.models.files import (
    EMBED_NAME,
    file_sha256,
    fp32_model_file,
    int8_model_file,
    minilm_tokenizer_file,
    q8_model_file,
)
from sidecar.models.session import (
    TOKEN_BUDGET,
    Batch,
    LazySession,
    batches,
    input_names,
    read_tokenizer,
)

DIM = 384
MAX_TOKENS = 256
VARIANTS = ("q8", "fp32", "int8")
# `auto` takes the first of these that is available, unless the index was embedded with another
# available one (`choose_variant`); the order is the measured decision recorded under
# "## Embedding models" in docs/benchmarks.md.
AUTO_ORDER = ("q8", "fp32", "int8")
# The model id of a server's vectors begins `remote:` (`remote_embedder.py`).
REMOTE = "remote"

FloatArray = npt.NDArray[np.float32]


def load_tokenizer() -> Tokenizer:
    """all-MiniLM-L6-v2's tokenizer, counting every token (no truncation, no padding)."""
    return read_tokenizer(minilm_tokenizer_file())


def _pulled(setting: str) -> CatalogueEntry | None:
    """The catalogue embedder `setting` names, or None (a packaged variant or a typo)."""
    item = catalogue().get(setting)
    return item if item is not None and item.kind == "embedder" else None


def is_pulled_embedder(name: str) -> bool:
    """Whether `name` is an embedder of the catalogue (`ora models pull`)."""
    return _pulled(name) is not None


def _spec(variant: str) -> dict[str, Any] | None:
    """The embedder fields (pooling, token limit, prefixes) of a pulled or packaged embedder
    that is not MiniLM, or None."""
    if variant == multilingual.NAME:
        spec: dict[str, Any] = multilingual.spec()["embedder"]
        return spec
    pulled = _pulled(variant)
    return None if pulled is None else (pulled.embedder or {})


def model_id(variant: str, sha256: str) -> str:
    """`all-MiniLM-L6-v2:<variant>:<sha256 prefix>`: another model file gives another id, so an
    index can tell that its stored vectors are stale."""
    return f"{EMBED_NAME}:{variant}:{sha256[:12]}"


def pulled_model_id(name: str, sha256: str) -> str:
    """`<catalogue name>:onnx:<sha256 prefix>`: the id of a pulled embedder's vectors."""
    return f"{name}:onnx:{sha256[:12]}"


def variant_file(variant: str, models_path: Path) -> Path:
    """The ONNX file of a variant, whether or not it exists yet."""
    if variant == "int8":
        return int8_model_file()
    if variant == "fp32":
        return fp32_model_file(models_path)
    if variant == "q8":
        return q8_model_file(models_path)
    if variant == multilingual.NAME:
        return multilingual.model_file(models_path)
    pulled = _pulled(variant)
    if pulled is not None:
        return models_path / pulled.install / "model.onnx"
    raise BadRequest(f"unknown embed_model {variant!r}: choose from auto, {', '.join(VARIANTS)}, "
                     f"{multilingual.NAME} or an embedder of `ora models pull`")


def available_variants(models_path: Path) -> list[str]:
    """The variants whose model file is present, in AUTO_ORDER."""
    found = []
    for variant in AUTO_ORDER:
        try:
            if variant_file(variant, models_path).is_file():
                found.append(variant)
        except ModelUnavailable:
            continue
    return found


def choose_variant(setting: str, models_path: Path, indexed: Sequence[str] = (),
                   wanted: Callable[[], bool] | None = None) -> str:
    """The variant `embed_model` names. `auto` is the embedder the index was embedded with
    (`indexed`: a packaged variant, the multilingual or a pulled embedder) if it is still
    available; an index of a server's vectors (`remote:…`, `embed_url` unset) is
    ModelUnavailable, never searched or re-embedded with another model; else the multilingual
    embedder when the vault is mostly in languages it reads better (`wanted`, asked only then)
    and it is built, else the first available in AUTO_ORDER: a faster variant becoming
    available (an upgrade, `ora models build`) does not re-embed a vault indexed before it, and
    search always embeds queries with the model of the stored vectors."""
    if setting != "auto":
        path = variant_file(setting, models_path)
        if not path.is_file():
            hint = ("run `ora models build`" if setting in ("fp32", "q8", multilingual.NAME) else
                    f"run `ora models pull {setting}`" if _pulled(setting) else
                    "reinstall (make setup)")
            raise ModelUnavailable(f"embedder {setting} not found at {path}: {hint}")
        return setting
    found = available_variants(models_path)
    kept = [variant for variant in indexed if variant in found or _installed(variant, models_path)]
    if kept:
        return kept[0]
    remote = next((v for v in indexed if v.startswith(f"{REMOTE}:")), None)
    if remote is not None:  # the server's address is not known here: never another model
        raise ModelUnavailable(_remote_index(remote))
    if not found:
        try:
            variant_file("int8", models_path)
            why = ""
        except ModelUnavailable as err:  # not installed (an extra), or refused by its pin
            why = f"; the packaged int8 one is unavailable: {err.message}"
        raise ModelUnavailable("no embedding model available: run `ora models build` to build "
                               f"one from the packaged weights{why}")
    if (multilingual.model_file(models_path).is_file() and not indexed and wanted is not None
            and wanted()):
        return multilingual.NAME
    return found[0]


def _installed(variant: str, models_path: Path) -> bool:
    """Whether the packaged multilingual embedder is built, or a pulled one is pulled."""
    if variant != multilingual.NAME and _pulled(variant) is None:
        return False
    return variant_file(variant, models_path).is_file()


def _remote_index(model: str) -> str:
    """Why `auto` cannot search an index of a server's vectors without `embed_url`."""
    name, _, place = model.removeprefix(f"{REMOTE}:").rpartition("@")
    host = place.rpartition(":")[0] or place
    return (f"the index was built with {name} by an embeddings server ({host}); set embed_url "
            f"(ORA_EMBED_URL) to that server and embed_model (ORA_EMBED_MODEL) to {name}, or "
            "re-index with a local embedder (e.g. ORA_EMBED_MODEL=q8 `ora index`)")


def composed(text: str) -> str:
    """`text` in Unicode NFC, the form an embedder is handed. Canonically equivalent, so it says
    the same; but a tokenizer's own normaliser may not compose: USE-m3's (sentencepiece's
    nmt_nfkc charsmap) reads Hangul saved decomposed (NFD, as macOS saves file names and some
    editors text) as one unknown token, so every such chunk had one vector. NFKC is left to the
    models that apply it (USE-m3 does): it would also fold what tells texts apart for a model
    that does not (`x²`, `①`). The chunker's embedded text is composed too (`Chunk.embed_text`,
    versioned: only the chunks it changes are embedded again)."""
    return unicodedata.normalize("NFC", text)


class Embedder:
    """What the index, search and memory need of an embedder: `embed` documents, `embed_queries`
    (with the model's query prefix), a counting `tokenizer` to size chunks, and a `model_id`
    stored with every vector so another model's vectors are never mixed in."""

    dim = DIM
    model_id: str
    tokenizer: Tokenizer
    query_prefix = ""
    passage_prefix = ""  # E5 marks both roles ("query: ", "passage: ")

    def embed(self, texts: Sequence[str]) -> FloatArray:
        raise NotImplementedError

    def embed_queries(self, queries: Sequence[str]) -> FloatArray:
        """Vectors of search queries: some models (BGE) were trained with a query instruction."""
        return self.embed([self.query_prefix + q for q in queries])

    def embed_tokens(self, texts: Sequence[str]) -> list[FloatArray]:
        raise ModelUnavailable(f"{self.model_id} gives no per-token vectors")

    def release(self, idle_s: float) -> bool:
        """Give back what an embedder idle for `idle_s` seconds can reload; True if anything
        was released (a server's model holds nothing here)."""
        return False

    @property
    def loaded(self) -> bool:
        """Whether the model is in memory (a server's model always counts as loaded)."""
        return True

    def warm(self) -> None:
        """Load the model now if it is not (an embedder opened with `defer`)."""


class OnnxEmbedder(Embedder):
    """One InferenceSession of a BERT-style encoder and the tokenizer that feeds it."""

    def __init__(
        self,
        model_file: Path,
        variant: str,
        *,
        max_tokens: int = MAX_TOKENS,
        threads: int | None = None,
        tokenizer_file: Path | None = None,
        pooling: str = "mean",
        query_prefix: str = "",
        passage_prefix: str = "",
        dim: int | None = None,
    ) -> None:
        """With `dim` (the width the catalogue states) the model file is loaded at its first
        use, not here, and checked to give vectors of that width."""
        self.variant = variant
        self.model_file = model_file
        self.sha256 = file_sha256(model_file)
        self.model_id = model_id(variant, self.sha256) if tokenizer_file is None else (
            pulled_model_id(variant, self.sha256))
        self.max_tokens = max_tokens
        self.pooling = pooling
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        tokens = tokenizer_file or minilm_tokenizer_file()
        self.tokenizer = read_tokenizer(tokens)
        # One single-threaded session run by `workers` threads, a batch each (ORT releases the
        # GIL): on this CPU that embeds more per CPU-second than one run split across cores, and
        # the weights are held once. The workers share the token budget, so the batches in
        # flight hold TOKEN_BUDGET padded tokens together (docs/benchmarks.md, "## Index speed").
        self.workers = threads or os.cpu_count() or 1
        self._session = LazySession(model_file, 1, open_now=dim is None)
        self._inputs: list[str] = []
        self.dim = self._width() if dim is None else dim
        if dim is None:
            self._input_names()  # a graph that is not a BERT-style export fails here

    def _width(self) -> int:
        width = self._session.get_outputs()[0].shape[-1]
        return width if isinstance(width, int) else DIM

    @property
    def loaded(self) -> bool:
        return self._session.loaded

    def warm(self) -> None:
        self._input_names()

    def _input_names(self) -> list[str]:
        """The graph's inputs, read (and the model loaded) at the first use."""
        if not self._inputs:
            names = input_names(self._session)
            if self._width() != self.dim:
                raise ModelUnavailable(f"{self.model_file} gives vectors of {self._width()} "
                                       f"dimensions, not the {self.dim} its catalogue entry says")
            self._inputs = names
        return self._inputs

    def _hidden_states(
        self, texts: Sequence[str], output: str = "last_hidden_state"
    ) -> list[tuple[list[int], FloatArray, npt.NDArray[np.int64]]]:
        """Per batch: original positions, the graph's `output` (last_hidden_state, or the
        sentence vectors of a graph that pools itself), attention mask."""
        parts = list(batches(self._truncated(texts), self._input_names(),
                             token_budget=TOKEN_BUDGET // self.workers))

        def run(batch: Batch) -> tuple[list[int], FloatArray, npt.NDArray[np.int64]]:
            (hidden,) = self._session.run([output], batch.feed)
            return batch.positions, np.asarray(hidden, dtype=np.float32), batch.mask

        if self.workers == 1 or len(parts) <= 1:
            return [run(batch) for batch in parts]
        with ThreadPoolExecutor(min(self.workers, len(parts))) as pool:
            return list(pool.map(run, parts))

    def _truncated(self, texts: Sequence[str]) -> list[Encoding]:
        """Each text's tokens cut to `max_tokens`, the special tokens kept: what a truncating
        copy of the tokenizer gives (tests/models/test_embedder.py), without holding that copy
        (a SentencePiece vocabulary of 128,000 pieces takes ~130 MB as a `tokenizers` Unigram)."""
        processor = self.tokenizer.post_processor
        room = self.max_tokens - (processor.num_special_tokens_to_add(False) if processor else 0)
        out = []
        for encoding in self.tokenizer.encode_batch([composed(t) for t in texts],
                                                    add_special_tokens=False):
            if len(encoding) > room:
                encoding.truncate(room)
            out.append(processor.process(encoding) if processor else encoding)
        return out

    def release(self, idle_s: float) -> bool:
        return self._session.release(idle_s)

    def embed(self, texts: Sequence[str]) -> FloatArray:
        """(n, 384) float32 unit vectors of passages, in the order of `texts`."""
        if self.passage_prefix:
            texts = [self.passage_prefix + t for t in texts]
        return self._pool(texts)

    def embed_queries(self, queries: Sequence[str]) -> FloatArray:
        return self._pool([self.query_prefix + q for q in queries])

    def _pool(self, texts: Sequence[str]) -> FloatArray:
        result = np.zeros((len(texts), self.dim), dtype=np.float32)
        if self.pooling == "sentence":
            for positions, vectors, _ in self._hidden_states(texts, "sentence_embedding"):
                result[positions] = _normalise(vectors)
            return result
        for positions, hidden, mask in self._hidden_states(texts):
            if self.pooling == "cls":
                result[positions] = _normalise(hidden[:, 0])
                continue
            weights = mask[:, :, None].astype(np.float32)
            summed = (hidden * weights).sum(axis=1)
            pooled = summed / np.clip(weights.sum(axis=1), 1e-9, None)
            result[positions] = _normalise(pooled)
        return result

    def embed_tokens(self, texts: Sequence[str]) -> list[FloatArray]:
        """Per text, its tokens' unit vectors (n_tokens, 384), [CLS]/[SEP] included, no padding.

        For a late-interaction (MaxSim) second stage: score = Σ_q max_d q·d.
        """
        if self.pooling == "sentence":
            raise ModelUnavailable(f"{self.model_id} gives sentence vectors only, no per-token "
                                   "vectors")
        result: list[FloatArray] = [np.zeros((0, self.dim), dtype=np.float32)] * len(texts)
        for positions, hidden, mask in self._hidden_states(texts):
            for row, i in enumerate(positions):
                n = int(mask[row].sum())
                result[i] = _normalise(hidden[row, :n])
        return result


def _normalise(x: FloatArray) -> FloatArray:
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    unit: FloatArray = (x / np.clip(norms, 1e-12, None)).astype(np.float32)
    return unit


def open_embedder(variant: str, models_path: Path, threads: int | None = None, *,
                  defer: bool = False) -> OnnxEmbedder:
    """An Embedder of one named variant (`q8`, `fp32`, `int8` or a pulled catalogue embedder),
    or `auto` (`choose_variant`, without an index to keep the variant of). With `defer` the model
    is loaded at its first use (or `warm()`) where its width is known without it."""
    variant = choose_variant(variant, models_path)
    path = variant_file(variant, models_path)
    if _pulled(variant) is not None:
        check_pulled(path.parent)  # before its config, tokenizer or model file is read
    spec = _spec(variant)
    if spec is None:
        return OnnxEmbedder(path, variant, threads=threads, dim=DIM if defer else None)
    dim = _stated_width(path.with_name("config.json"), spec) if defer else None
    return OnnxEmbedder(path, variant, threads=threads, tokenizer_file=path.with_name(
        "tokenizer.json"), max_tokens=int(spec.get("max_tokens", MAX_TOKENS)),
        pooling=str(spec.get("pooling", "mean")), query_prefix=str(spec.get("query_prefix", "")),
        passage_prefix=str(spec.get("passage_prefix", "")),
        dim=int(dim) if isinstance(dim, int) else None)


def _stated_width(config_file: Path, spec: dict[str, object]) -> object:
    """The width a pulled model's own `config.json` states (`hidden_size`), else its catalogue
    entry's: known without loading the model, and checked against it at its first use."""
    try:
        width = json.loads(config_file.read_text(encoding="utf-8")).get("hidden_size")
    except (OSError, ValueError, AttributeError):
        width = None
    return width if isinstance(width, int) else spec.get("dim")
