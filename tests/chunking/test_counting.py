"""The chunker's token counts (`sidecar/chunking/counting.py`) are the tokenizer's own, but for a
token it cannot read, counted by the characters it stands for: counted word by word where that is
exact, by the tokenizer everywhere else."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import Encoding, Tokenizer, models, pre_tokenizers

from sidecar.chunking import counting
from sidecar.chunking.counting import TokenCounter, token_counter

# Text built of what notes hold: words, punctuation, markup, long words, what a BERT tokenizer
# treats apart (control characters, accents, CJK, emoji, its own special tokens written out,
# scripts it cannot read).
PARTS = st.one_of(
    st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12),
    st.sampled_from([
        " ", "  ", "\t", "\n", "\r", "\x0b", "\x7f", "\x00", "don't", "e.g.", "3.14", "__init__",
        "[MASK]", "[mask]", "[UNK]", "[CLS]x", "[[Link|alias]]", "https://x.org/a_b?c=d", "#tag",
        "x" * 120, "supercalifragilistic", "café", "naïve", "’", "中文", "🙂", "—", "ÆØ", "ﬁ",
        "ข้าวผัด", "ភាសាខ្មែរ",
    ]),
)
TEXTS = st.lists(PARTS, max_size=40).map("".join)
SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
THAI = "ประเทศไทยตั้งอยู่ในเอเชียตะวันออกเฉียงใต้"  # one [UNK] to MiniLM: no word it knows


def length(tokenizer: Tokenizer, encoding: Encoding) -> int:
    """The count the chunker means: each token, an unknown one as its characters."""
    unknown = tokenizer.token_to_id("[UNK]")
    return sum(end - start if token == unknown and end > start else 1
               for token, (start, end) in zip(encoding.ids, encoding.offsets, strict=True))


@SETTINGS
@given(text=TEXTS, special=st.booleans())
def test_a_count_is_the_tokenizers(tokenizer: Tokenizer, text: str, special: bool) -> None:
    counter = TokenCounter(tokenizer)
    expected = length(tokenizer, tokenizer.encode(text, add_special_tokens=special))
    assert counter.count(text, special=special) == expected
    assert counter.count(text, special=special) == expected  # from remembered words


@SETTINGS
@given(texts=st.lists(TEXTS, max_size=8))
def test_counts_of_many_are_the_tokenizers(tokenizer: Tokenizer, texts: list[str]) -> None:
    encoded = tokenizer.encode_batch(texts, add_special_tokens=False)
    expected = [length(tokenizer, e) for e in encoded]
    assert TokenCounter(tokenizer).counts(texts) == expected


@SETTINGS
@given(text=TEXTS)
def test_pieces_are_the_encodings(tokenizer: Tokenizer, text: str) -> None:
    """Where a line too long for one chunk is cut depends on its tokens' spans and words."""
    encoding = tokenizer.encode(text, add_special_tokens=False)
    pieces = TokenCounter(tokenizer).pieces(text)
    unknown = tokenizer.token_to_id("[UNK]")
    expected = [(token, span, word) for token, span, word
                in zip(encoding.tokens, encoding.offsets, encoding.word_ids, strict=True)
                if not (token == "[UNK]" and span[1] - span[0] > 1)]
    got = list(zip(pieces.tokens, pieces.offsets, pieces.words, strict=True))
    assert [p for p in got if p[1] in encoding.offsets] == expected
    assert len(got) == length(tokenizer, encoding)
    assert unknown is not None


def test_text_it_cannot_read_counts_its_characters(tokenizer: Tokenizer) -> None:
    """A Thai sentence is one [UNK] to MiniLM: counted, and cut, by its characters, so a chunk
    of it holds no more characters than the budget's tokens."""
    encoding = tokenizer.encode(THAI, add_special_tokens=False)
    assert encoding.tokens == ["[UNK]"]
    (start, end), = encoding.offsets
    assert end - start >= len(THAI) - 1  # its last tone mark is dropped with the accents
    counter = TokenCounter(tokenizer)
    assert counter.count(THAI) == end - start
    assert counter.count(f"Thai: {THAI}.", special=True) == 2 + 3 + end - start
    assert counter.counts([THAI, "plain words"]) == [end - start, 2]
    pieces = counter.pieces(f"a {THAI}")
    assert pieces.tokens == ["a", *THAI[start:end]]
    assert pieces.offsets[1:3] == [(2, 3), (3, 4)]
    assert set(pieces.words[1:]) == {1}
    long_word = "x" * 120  # past WordPiece's 100 characters a word, [UNK]
    assert counter.count(long_word) == counter.counts([long_word])[0] == 120
    assert len(counter.pieces(long_word).tokens) == 120


def test_a_sentencepiece_unknown_counts_its_characters() -> None:
    """A Unigram (SentencePiece) tokenizer, as the multilingual embedder's, names its unknown
    piece by id in its saved form only."""
    unigram = Tokenizer(models.Unigram([("<unk>", 0.0), ("a", -1.0), ("b", -1.0)], unk_id=0))
    unigram.pre_tokenizer = pre_tokenizers.Whitespace()
    counter = TokenCounter(unigram)
    assert unigram.encode("a xyz b").ids == [1, 0, 2]
    assert counter.count("a xyz b") == 5
    assert counter.pieces("a xyz").tokens == ["a", "x", "y", "z"]


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
        expected = length(tokenizer, tokenizer.encode(text, add_special_tokens=False))
        assert counter.count(text) == expected
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
