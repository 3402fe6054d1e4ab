"""The chunker's token counts (`sidecar/chunking/counting.py`) are the tokenizer's own: counted
word by word where that is exact, by the tokenizer everywhere else."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, models, pre_tokenizers

from sidecar.chunking import counting
from sidecar.chunking.counting import TokenCounter, token_counter

# Text built of what notes hold: words, punctuation, markup, long words, what a BERT tokenizer
# treats apart (control characters, accents, CJK, emoji, its own special tokens written out).
PARTS = st.one_of(
    st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12),
    st.sampled_from([
        " ", "  ", "\t", "\n", "\r", "\x0b", "\x7f", "\x00", "don't", "e.g.", "3.14", "__init__",
        "[MASK]", "[mask]", "[UNK]", "[CLS]x", "[[Link|alias]]", "https://x.org/a_b?c=d", "#tag",
        "x" * 120, "supercalifragilistic", "café", "naïve", "’", "中文", "🙂", "—", "ÆØ", "ﬁ",
    ]),
)
TEXTS = st.lists(PARTS, max_size=40).map("".join)
SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(text=TEXTS, special=st.booleans())
def test_a_count_is_the_tokenizers(tokenizer: Tokenizer, text: str, special: bool) -> None:
    counter = TokenCounter(tokenizer)
    expected = len(tokenizer.encode(text, add_special_tokens=special))
    assert counter.count(text, special=special) == expected
    assert counter.count(text, special=special) == expected  # from remembered words


@SETTINGS
@given(texts=st.lists(TEXTS, max_size=8))
def test_counts_of_many_are_the_tokenizers(tokenizer: Tokenizer, texts: list[str]) -> None:
    expected = [len(e) for e in tokenizer.encode_batch(texts, add_special_tokens=False)]
    assert TokenCounter(tokenizer).counts(texts) == expected


@SETTINGS
@given(text=TEXTS)
def test_pieces_are_the_encodings(tokenizer: Tokenizer, text: str) -> None:
    """Where a line too long for one chunk is cut depends on its tokens' spans and words."""
    encoding = tokenizer.encode(text, add_special_tokens=False)
    pieces = TokenCounter(tokenizer).pieces(text)
    assert pieces.offsets == encoding.offsets
    assert pieces.words == encoding.word_ids
    assert pieces.tokens == encoding.tokens


def test_word_by_word_where_exact(tokenizer: Tokenizer) -> None:
    """Plain text is counted from remembered words (the speed-up is real); a text holding an
    added token written out is left to the tokenizer, which reads it as one token."""
    counter = TokenCounter(tokenizer)
    assert counter.count("Spaced repetition, at growing intervals.") == 7
    assert {"spaced", "repetition", ",", "intervals", "."} <= set(counter._known)
    assert counter.count("a [MASK] b") == 3  # [MASK] alone is one token
    assert counter.count("a [mask] b") == 5  # lowercase: not the added token


def test_remembered_words_start_over_past_the_cap(
    tokenizer: Tokenizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(counting, "WORD_CACHE", 4)
    counter = TokenCounter(tokenizer)
    text = "one two three four five six seven eight nine ten"
    for _ in range(3):
        assert counter.count(text) == len(tokenizer.encode(text, add_special_tokens=False))
        assert len(counter._known) <= 10


def test_another_tokenizer_counts_itself() -> None:
    """A tokenizer that is not BERT's WordPiece is never counted word by word."""
    other = Tokenizer(models.WordLevel({"[UNK]": 0, "a": 1, "b": 2}, unk_token="[UNK]"))
    other.pre_tokenizer = pre_tokenizers.Whitespace()
    counter = TokenCounter(other)
    assert counter.count("a b c") == 3
    assert not counter._known
    assert counter.pieces("a b").tokens == ["a", "b"]


def test_one_counter_per_tokenizer(tokenizer: Tokenizer) -> None:
    assert token_counter(tokenizer) is token_counter(tokenizer)
