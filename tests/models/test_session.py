from __future__ import annotations

import platform
import shutil
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from tokenizers import Tokenizer

from sidecar.errors import ModelUnavailable
from sidecar.heap import release_free_heap
from sidecar.models.files import int8_model_file
from sidecar.models.session import (
    BATCH_SIZE,
    TOKEN_BUDGET,
    LazySession,
    batches,
    input_names,
    open_session,
)

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


def _rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _feed(lazy: LazySession, tokenizer: Tokenizer) -> dict[str, npt.NDArray[np.int64]]:
    return next(batches([tokenizer.encode("tides and moons")], input_names(lazy))).feed


def test_a_released_session_is_reopened_with_the_same_outputs(tokenizer: Tokenizer) -> None:
    lazy = LazySession(int8_model_file(), 1)
    feed = _feed(lazy, tokenizer)
    before = lazy.run(["last_hidden_state"], feed)[0]
    assert not lazy.release(60.0)  # used just now: kept
    assert lazy.release(0.0) and not lazy.loaded
    after = lazy.run(["last_hidden_state"], feed)[0]
    assert lazy.loaded and lazy.opens == 2
    assert np.array_equal(before, after)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="RSS from /proc, glibc's trim")
def test_a_released_session_gives_its_memory_back(tokenizer: Tokenizer) -> None:
    # Nothing may keep the native session alive (onnxruntime's NodeArg objects would): what a
    # release frees is most of what loading took, again after every reload.
    release_free_heap()
    start = _rss_mib()
    lazy = LazySession(int8_model_file(), 1)
    feed = _feed(lazy, tokenizer)
    for _ in range(3):
        lazy.run(["last_hidden_state"], feed)
        loaded = _rss_mib()
        assert lazy.release(0.0)
        release_free_heap()
        assert _rss_mib() - start < (loaded - start) / 3


def test_a_session_in_use_is_not_released() -> None:
    lazy = LazySession(int8_model_file(), 1)
    with lazy.use():
        assert not lazy.release(0.0)
        assert lazy.loaded
    assert lazy.release(0.0)


def test_a_model_file_replaced_after_a_release_is_not_loaded_silently(tmp_path: Path) -> None:
    model = tmp_path / "model.onnx"
    shutil.copyfile(int8_model_file(), model)
    lazy = LazySession(model, 1)
    assert lazy.release(0.0)
    with model.open("ab") as f:
        f.write(b"\0")
    with pytest.raises(ModelUnavailable, match="changed on disk"), lazy.use():
        pass


def test_a_model_file_removed_after_a_release_is_reported_as_unavailable(tmp_path: Path) -> None:
    model = tmp_path / "model.onnx"
    shutil.copyfile(int8_model_file(), model)
    lazy = LazySession(model, 1)
    assert lazy.release(0.0)
    model.unlink()
    with pytest.raises(ModelUnavailable, match="is gone since it was loaded"), lazy.use():
        pass
