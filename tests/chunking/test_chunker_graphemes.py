"""A line too long for one chunk is cut between grapheme clusters: the multilingual embedder's
pieces split a Devanagari word between a consonant and its virama or vowel sign, and a run it
cannot read (Hangul saved decomposed, as macOS saves it) into single characters, so a cut that
followed the pieces started a chunk (a search result's text) with a dangling mark or half a
syllable."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from sidecar.chunking.chunker import Chunk, _starts_cluster, chunk_note
from sidecar.vault.note import parse_note

HINDI = "क्षत्रिय"
KOREAN = "다음주회의는수요일오후세시에시작합니다"


@pytest.fixture(scope="module")
def use_tokenizer(multilingual_models: Path) -> Tokenizer:
    """The packaged multilingual embedder's own tokenizer (USE-m3's SentencePiece pieces)."""
    return Tokenizer.from_file(str(multilingual_models / "use-multilingual-v3" / "tokenizer.json"))


def _chunks(text: str, tokenizer: Tokenizer) -> list[Chunk]:
    return chunk_note(parse_note(text, "notes/Long.md"), tokenizer, 64)


def _inside_a_character(chunk: Chunk) -> bool:
    """Whether the chunk starts with a mark or a vowel or trailing jamo (half a syllable)."""
    first = chunk.text[0]
    return (unicodedata.category(first).startswith("M")
            or 0x1160 <= ord(first) <= 0x11FF)


@pytest.mark.parametrize("line", [HINDI * 400, unicodedata.normalize("NFD", KOREAN * 60)],
                         ids=["devanagari", "hangul-nfd"])
def test_a_long_run_without_spaces_is_never_cut_inside_a_character(
    line: str, use_tokenizer: Tokenizer
) -> None:
    chunks = _chunks(f"# Title\n\n{line}\n", use_tokenizer)
    parts = [c for c in chunks if c.line_start == c.line_end == 3]
    assert len(parts) > 5  # the line was cut
    assert "".join(c.text for c in parts) == line  # nothing lost, nothing repeated
    assert not [c.index for c in parts if _inside_a_character(c)]
    assert all(c.n_tokens <= 64 for c in parts)


@pytest.mark.parametrize(("text", "at"), [
    ("e\u0301x", 1),  # a combining acute accent
    ("कि", 1),  # a spacing vowel sign
    ("क्ष", 2),  # after a virama: one conjunct
    ("👍🏽", 1),  # a skin tone
    ("👩\u200d💻", 1), ("👩\u200d💻", 2),  # a zero-width joiner sequence
    ("❤\ufe0f", 1),  # a variation selector
    ("🇫🇷", 1),  # inside a flag
    ("\u1112\u1161\u11ab", 1), ("\u1112\u1161\u11ab", 2),  # a decomposed Hangul syllable
])
def test_no_cluster_starts_inside_a_character(text: str, at: int) -> None:
    assert not _starts_cluster(text, at)


@pytest.mark.parametrize(("text", "at"), [
    ("ab", 1), ("कक", 1), ("🇫🇷🇩🇪", 2), ("\u1112\u1161\u1112", 2), ("한국", 1), ("👍👍", 1),
])
def test_clusters_start_between_characters(text: str, at: int) -> None:
    assert _starts_cluster(text, at)


def test_the_embedded_text_is_composed(use_tokenizer: Tokenizer) -> None:
    """A note saved decomposed embeds as the composed text it is (the embedder reads NFC);
    what is cited and shown stays the file's own."""
    saved = unicodedata.normalize("NFD", f"# 회의\n\n{KOREAN}\n")
    (chunk,) = _chunks(saved, use_tokenizer)
    assert chunk.embed_text == unicodedata.normalize("NFC", chunk.embed_text)
    assert KOREAN in chunk.embed_text
    assert chunk.text == saved.strip()
