from __future__ import annotations

from tokenizers import Tokenizer

from sidecar.models.files import int8_model_file
from sidecar.models.session import BATCH_SIZE, TOKEN_BUDGET, batches, open_session

NAMES = ["input_ids", "attention_mask", "token_type_ids"]


def test_batches_hold_at_most_the_token_budget_of_padded_tokens(tokenizer: Tokenizer) -> None:
    # Many long texts and many short ones: long ones go in small batches, short ones in full ones.
    texts = [("word " * n).strip() for n in [300] * 40 + [5] * 70 + [60] * 30]
    encodings = [tokenizer.encode(t) for t in texts]
    found = list(batches(encodings, NAMES))
    assert sorted(p for b in found for p in b.positions) == list(range(len(texts)))
    for batch in found:
        rows, width = batch.feed["input_ids"].shape
        assert rows <= BATCH_SIZE
        assert rows * width <= TOKEN_BUDGET or rows == 1
        assert width == max(len(encodings[i].ids) for i in batch.positions)
    assert max(b.feed["input_ids"].shape[0] for b in found) == BATCH_SIZE  # short: full batches


def test_a_text_longer_than_the_budget_gets_a_batch_of_its_own(tokenizer: Tokenizer) -> None:
    encodings = [tokenizer.encode("word " * 40), tokenizer.encode("word " * 3000)]
    found = list(batches(encodings, NAMES, token_budget=100))
    assert [b.positions for b in found] == [[0], [1]]


def test_idle_session_threads_sleep_rather_than_spin() -> None:
    # A spinning intra-op thread keeps a core busy between runs, the core a search's BM25 query
    # runs on beside the query embedding.
    options = open_session(int8_model_file()).get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
