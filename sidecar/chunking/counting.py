"""Token counts that size chunks: exact, and fast for BERT's WordPiece tokenizers.

The chunker counts the tokens of every line of every note, and of many candidate chunks; asked
of the `tokenizers` library, that counting was half of the words pass of a cold index
(docs/benchmarks.md, "## Findable at once"). A BERT tokenizer (`BertNormalizer`,
`BertPreTokenizer`, `WordPiece`) cuts printable ASCII text into runs of letters and digits and
single punctuation characters, and gives each such word its WordPiece tokens whatever surrounds
it: a text's count is the sum of its words' counts, and each word's count is asked of the
tokenizer once and remembered. Any other text (beyond ASCII, control characters, an added token
such as `[MASK]` written out) and any other tokenizer is counted by the tokenizer itself. Both
ways give the same counts (tests/chunking/test_counting.py compares them).

A token the tokenizer cannot read (`[UNK]`, `<unk>`) counts as the characters it stands for: MiniLM
reads a Thai, Khmer or Amharic word, or a whole unspaced Thai sentence, as one `[UNK]`, so a chunk
sized in its tokens could hold thousands of characters, cited as one passage and, sent to an
embeddings server whose own tokenizer reads those scripts, cut or refused there. Counted by its
characters, such text is sized by a character budget, safe for a model that reads it.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from typing import NamedTuple

from tokenizers import Encoding, Tokenizer, models, normalizers, pre_tokenizers

# Text counted word by word: printable ASCII, tabs and line breaks (BertNormalizer drops other
# control characters and reads the rest beyond ASCII by Unicode categories).
_OTHER = re.compile(r"[^\t\n\r\x20-\x7e]")
# BertPreTokenizer on such text: runs of letters and digits; every other printable character
# (ASCII punctuation and symbols, `_` too) alone.
_WORDS_LOWER = re.compile(r"[a-z0-9]+|[^a-z0-9\s]")
_WORDS_CASED = re.compile(r"[A-Za-z0-9]+|[^A-Za-z0-9\s]")
# Words remembered per tokenizer (a vault's vocabulary; past this the memory starts again).
WORD_CACHE = 1 << 16


class Pieces(NamedTuple):
    """A text's tokens as an `Encoding` gives them: character spans, word of each, strings."""

    offsets: list[tuple[int, int]]
    words: list[int | None]
    tokens: list[str]


class TokenCounter:
    """Counts of a tokenizer's tokens, without truncation or padding (the caller's tokenizer
    must have neither)."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        processor = tokenizer.post_processor
        self._specials = processor.num_special_tokens_to_add(False) if processor else 0
        self._lower = _lowercases(tokenizer)
        self._words_of = None if self._lower is None else (
            _WORDS_LOWER if self._lower else _WORDS_CASED)
        # Added tokens match before normalising: a text holding one is left to the tokenizer.
        self._added = tuple(t.content.lower()
                            for t in tokenizer.get_added_tokens_decoder().values())
        self._known: dict[str, int] = {}
        self._split: dict[str, tuple[tuple[str, int, int], ...]] = {}  # word: (token, start, end)
        self._lock = threading.Lock()
        self._unknown = _unknown_id(tokenizer)

    def count(self, text: str, *, special: bool = False) -> int:
        """Tokens of `text`, with the special tokens ([CLS], [SEP]) when `special`."""
        fast = self._fast(text)
        if fast is None:
            return self._length(self.tokenizer.encode(text, add_special_tokens=special))
        return fast + (self._specials if special else 0)

    def _length(self, encoding: Encoding) -> int:
        """The tokens of `encoding`, an unknown one as the characters it stands for."""
        ids = encoding.ids
        if self._unknown is None or self._unknown not in ids:
            return len(ids)
        return sum(end - start if token == self._unknown and end - start > 1 else 1
                   for token, (start, end) in zip(ids, encoding.offsets, strict=True))

    def counts(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text, no special tokens; the slow ones in one batch."""
        out = [self._fast(text) for text in texts]
        slow = [n for n, found in enumerate(out) if found is None]
        if slow:
            encoded = self.tokenizer.encode_batch([texts[n] for n in slow],
                                                  add_special_tokens=False)
            for n, encoding in zip(slow, encoded, strict=True):
                out[n] = self._length(encoding)
        return [n or 0 for n in out]

    def pieces(self, text: str) -> Pieces:
        """The tokens of `text` (no special tokens) with their spans and words; an unknown
        token as one piece per character it stands for, as it is counted."""
        split = self._splittable(text)
        if split is None or self._words_of is None:
            return self._pieces(text, self.tokenizer.encode(text, add_special_tokens=False))
        out = Pieces([], [], [])
        for n, match in enumerate(self._words_of.finditer(split)):
            start = match.start()
            for token, first, end in self._split_word(match.group()):
                out.offsets.append((start + first, start + end))
                out.words.append(n)
                out.tokens.append(token)
        return out

    def _pieces(self, text: str, encoding: Encoding) -> Pieces:
        """`encoding` as pieces, an unknown token split into its characters."""
        ids = encoding.ids
        if self._unknown is None or self._unknown not in ids:
            return Pieces(encoding.offsets, encoding.word_ids, encoding.tokens)
        out = Pieces([], [], [])
        for token, (start, end), word, piece in zip(
                ids, encoding.offsets, encoding.word_ids, encoding.tokens, strict=True):
            spans = ([(at, at + 1) for at in range(start, end)]
                     if token == self._unknown and end - start > 1 else [(start, end)])
            for span in spans:
                out.offsets.append(span)
                out.words.append(word)
                out.tokens.append(piece if len(spans) == 1 else text[span[0]:span[1]])
        return out

    def _split_word(self, word: str) -> tuple[tuple[str, int, int], ...]:
        split = self._split.get(word)
        if split is None:
            pieces = self._pieces(word, self.tokenizer.encode(word, add_special_tokens=False))
            split = tuple((t, a, b) for t, (a, b) in zip(pieces.tokens, pieces.offsets,
                                                          strict=True))
            with self._lock:
                if len(self._split) >= WORD_CACHE:
                    self._split = {}
                self._split[word] = split
        return split

    def _splittable(self, text: str) -> str | None:
        """`text` as it is split into words (lowercased if the tokenizer does), or None when
        the tokenizer must read it."""
        if self._words_of is None or _OTHER.search(text) is not None:
            return None
        low = text.lower()
        if any(added in low for added in self._added):
            return None
        return low if self._lower else text

    def _fast(self, text: str) -> int | None:
        """The count from remembered words, or None when the tokenizer must count."""
        split = self._splittable(text)
        if split is None or self._words_of is None:
            return None
        words = self._words_of.findall(split)
        known = self._known
        try:
            return sum(map(known.__getitem__, words))
        except KeyError:
            learnt = self._learn(words)
            return sum(map(learnt.__getitem__, words))

    def _learn(self, words: list[str]) -> dict[str, int]:
        """Counts of `words`, those not yet remembered asked of the tokenizer (in one batch)."""
        known = self._known
        out = {w: known[w] for w in words if w in known}
        new = sorted(set(words) - out.keys())
        for word, encoding in zip(new, self.tokenizer.encode_batch(
                new, add_special_tokens=False), strict=True):
            out[word] = self._length(encoding)
        with self._lock:
            if len(self._known) + len(new) > WORD_CACHE:
                self._known = {}
            self._known.update((w, out[w]) for w in new)
        return out


def _unknown_id(tokenizer: Tokenizer) -> int | None:
    """The id of the token standing for text the tokenizer cannot read, if it has one."""
    named = getattr(tokenizer.model, "unk_token", None)  # WordPiece, BPE
    if named is not None:
        return tokenizer.token_to_id(str(named))
    if isinstance(tokenizer.model, models.Unigram):  # SentencePiece: only its saved form says
        found = json.loads(tokenizer.to_str())["model"].get("unk_id")
        return None if found is None else int(found)
    return None


def _lowercases(tokenizer: Tokenizer) -> bool | None:
    """Whether a BERT WordPiece tokenizer lowercases; None for any other tokenizer."""
    normalizer, pre = tokenizer.normalizer, tokenizer.pre_tokenizer
    if not (isinstance(normalizer, normalizers.BertNormalizer)
            and isinstance(pre, pre_tokenizers.BertPreTokenizer)
            and isinstance(tokenizer.model, models.WordPiece)):
        return None
    return bool(normalizer.lowercase)


_counters: dict[int, TokenCounter] = {}  # by id of a tokenizer it holds (so the id stays its)
_counters_lock = threading.Lock()
_COUNTERS = 4  # tokenizers in use at once: the embedder's, a pulled model's, a test's


def token_counter(tokenizer: Tokenizer) -> TokenCounter:
    """The counter of `tokenizer` (one per tokenizer object, so its words are remembered)."""
    with _counters_lock:
        counter = _counters.get(id(tokenizer))
        if counter is None:
            if len(_counters) >= _COUNTERS:
                _counters.pop(next(iter(_counters)))
            counter = _counters[id(tokenizer)] = TokenCounter(tokenizer)
        return counter
