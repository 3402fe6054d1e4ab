from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer

from sidecar.errors import BadRequest, ModelUnavailable
from sidecar.models.choice import load_embedder
from sidecar.models.embedder import (
    Embedder,
    OnnxEmbedder,
    available_variants,
    choose_variant,
    open_embedder,
)
from sidecar.models.files import minilm_tokenizer_file
from sidecar.models.session import read_tokenizer
from sidecar.settings import make_config


def test_tokenizer_counts_every_token_without_truncation(tokenizer: Tokenizer) -> None:
    ids = tokenizer.encode("word " * 600).ids
    assert len(ids) == 602  # 600 words + [CLS] + [SEP]
    assert ids[0] == tokenizer.token_to_id("[CLS]")
    assert ids[-1] == tokenizer.token_to_id("[SEP]")


def test_embed_returns_unit_float32_vectors_in_input_order(embedder: Embedder) -> None:
    texts = ["a very long sentence about spaced repetition and memory " * 8, "cats", "dogs bark"]
    vectors = embedder.embed(texts)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # Order is restored after length-sorted batching: each row equals its text embedded alone.
    for i, text in enumerate(texts):
        np.testing.assert_allclose(vectors[i], embedder.embed([text])[0], atol=1e-5)


def test_batches_run_in_parallel_give_the_vectors_of_one_thread(tmp_path: Path) -> None:
    texts = [f"note {i}: " + "spaced repetition and sleep " * (i % 40) for i in range(60)]
    one, two = (open_embedder("int8", tmp_path, threads=n) for n in (1, 2))
    assert (one.workers, two.workers) == (1, 2)
    np.testing.assert_allclose(two.embed(texts), one.embed(texts), atol=1e-5)


def test_similar_sentences_are_closer_than_unrelated(embedder: Embedder) -> None:
    a, b, c = embedder.embed(
        ["The cat sat on the mat.", "A cat is sitting on a rug.", "Quarterly tax filing deadlines"]
    )
    assert float(a @ b) > float(a @ c) + 0.3


def test_input_longer_than_256_tokens_is_truncated_not_rejected(embedder: Embedder) -> None:
    head = "memory consolidation during sleep " * 80
    long_a = embedder.embed([head + "apples"])[0]
    long_b = embedder.embed([head + "oranges and pears"])[0]
    # Both read only the shared first 256 tokens.
    np.testing.assert_allclose(long_a, long_b, atol=1e-5)


def test_empty_input_list_gives_empty_matrix(embedder: Embedder) -> None:
    assert embedder.embed([]).shape == (0, 384)


def test_embed_tokens_gives_one_unit_vector_per_real_token(
    embedder: Embedder, tokenizer: Tokenizer
) -> None:
    texts = ["short", "a somewhat longer sentence here"]
    per_text = embedder.embed_tokens(texts)
    for text, vecs in zip(texts, per_text, strict=True):
        assert vecs.shape == (len(tokenizer.encode(text).ids), 384)
        np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)


def test_model_id_names_variant_and_file_hash(embedder: Embedder) -> None:
    name, variant, digest = embedder.model_id.split(":")
    assert (name, variant) == ("all-MiniLM-L6-v2", "int8")
    assert embedder.sha256.startswith(digest) and len(digest) == 12


def test_auto_falls_back_to_int8_when_fp32_not_built(tmp_path: Path) -> None:
    assert available_variants(tmp_path) == ["int8"]
    assert choose_variant("auto", tmp_path) == "int8"
    config = make_config(tmp_path, models_dir=str(tmp_path), embed_model="auto")
    assert load_embedder(config).variant == "int8"


def test_fp32_requested_but_not_built_says_how_to_build(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable, match="ora models build"):
        choose_variant("fp32", tmp_path)


def test_unknown_variant_lists_the_choices(tmp_path: Path) -> None:
    with pytest.raises(BadRequest, match="auto, q8, fp32, int8"):
        choose_variant("fp16", tmp_path)


def test_an_idle_embedder_releases_its_session_and_embeds_the_same_after(
    tmp_path: Path,
) -> None:
    embedder = open_embedder("int8", tmp_path)
    texts = ["tides follow the moon", "a kettle descaled with vinegar"]
    before = embedder.embed(texts)
    assert not embedder.release(60.0)  # just used
    assert embedder.release(0.0)
    assert np.array_equal(embedder.embed(texts), before)


@pytest.mark.parametrize("max_tokens", [256, 7])
def test_texts_are_cut_as_a_truncating_tokenizer_cuts_them(
    embedder: Embedder, multilingual_models: Path, max_tokens: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The embedder holds one tokenizer, not a second, truncating copy (~130 MB for the
    multilingual one's 128,000 pieces): its cut keeps the special tokens at both ends."""
    texts = ["", "a", "[CLS] typed [SEP] and <s> typed </s>",
             "memory consolidation during sleep " * 90, "La consolidación de la memoria. " * 60,
             "记忆在睡眠中巩固。" * 80]
    multilingual = open_embedder("use-multilingual-v3", multilingual_models)
    for model, file in ((embedder, minilm_tokenizer_file()),
                        (multilingual, multilingual.model_file.with_name("tokenizer.json"))):
        assert isinstance(model, OnnxEmbedder)
        monkeypatch.setattr(model, "max_tokens", max_tokens)
        expected = read_tokenizer(file, max_tokens).encode_batch(texts)
        got = model._truncated(texts)
        assert [e.ids for e in got] == [e.ids for e in expected]
        assert [e.attention_mask for e in got] == [e.attention_mask for e in expected]
        assert max(len(e.ids) for e in got) == max_tokens
