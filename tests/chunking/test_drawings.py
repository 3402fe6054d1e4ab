"""A drawing note (Excalidraw) is chunked as what a reader sees in the drawing: its text
elements, under the drawing's name, each chunk citing its exact file lines; never the plugin's
banner, its data headings, its id lists or the drawing data."""

from __future__ import annotations

import pytest
from tokenizers import Tokenizer

from sidecar.chunking.chunker import Chunk
from sidecar.chunking.limits import NoteLimits, chunk_bounded
from sidecar.lint.diagnostics import lint_text
from sidecar.vault.note import parse_note
from tests.drawings import LAYOUTS, excalidraw

TEXTS = [("Kitchen floor plan", "a1b2c3d4"), ("Window wall faces\nthe garden", "d4e5f6a7")]
PLUMBING = ("Scaffolding", "Pipes", "Excalidraw Data", "Text Elements", "Element Links",
            "Embedded Files", "Pasted Image", "x1y2z3w4", "0123abcd", "Renovation", "pump.png",
            "N4KAk", "Drawing", "%%")


def _chunks(text: str, rel: str, tokenizer: Tokenizer, max_tokens: int = 256) -> list[Chunk]:
    return chunk_bounded(parse_note(text, rel), tokenizer, max_tokens).chunks


def _cites_its_lines(chunk: Chunk, text: str) -> bool:
    lines = text.split("\n")
    return chunk.text == "\n".join(lines[chunk.line_start - 1 : chunk.line_end])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_drawing_is_its_text_elements_under_its_name(
    layout: str, tokenizer: Tokenizer
) -> None:
    text = excalidraw(TEXTS, layout=layout)
    (chunk,) = _chunks(text, "Plans/Kitchen.excalidraw.md", tokenizer)
    assert chunk.text == "Kitchen floor plan ^a1b2c3d4\n\nWindow wall faces\nthe garden ^d4e5f6a7"
    assert _cites_its_lines(chunk, text)
    assert chunk.embed_text == "Kitchen\nKitchen floor plan\n\nWindow wall faces\nthe garden"
    assert chunk.context == "Kitchen" and chunk.heading_path == ()
    assert chunk.block_ids == ("a1b2c3d4", "d4e5f6a7")
    assert "Switch" not in chunk.text and "EXCALIDRAW" not in chunk.embed_text


@pytest.mark.parametrize("layout", LAYOUTS)
def test_notes_above_the_data_are_kept_apart_from_the_text_elements(
    layout: str, tokenizer: Tokenizer
) -> None:
    """The "back of the card": the owner's own Markdown, with its headings, chunked on its own
    (a chunk never spans the left-out lines between it and the text elements)."""
    back = "# Scope\n\nOnly the ground floor, budget 12k.\n"
    text = excalidraw(TEXTS, layout=layout, back=back)
    chunks = _chunks(text, "Kitchen.excalidraw.md", tokenizer)
    assert [c.text for c in chunks] == [
        "# Scope\n\nOnly the ground floor, budget 12k.",
        "Kitchen floor plan ^a1b2c3d4\n\nWindow wall faces\nthe garden ^d4e5f6a7",
    ]
    assert [c.index for c in chunks] == [0, 1]
    assert [c.context for c in chunks] == ["Scope", "Kitchen"]
    assert all(_cites_its_lines(c, text) for c in chunks)


def test_no_chunk_holds_the_banner_data_headings_ids_or_drawing(tokenizer: Tokenizer) -> None:
    """Text elements too many for one chunk split between elements; nothing else is read."""
    many = [(f"Room {n} has {n + 2} sockets on the east wall", f"r{n:07d}") for n in range(60)]
    for layout in LAYOUTS:
        text = excalidraw(many, layout=layout)
        chunks = _chunks(text, "House.excalidraw.md", tokenizer, max_tokens=64)
        assert len(chunks) > 1 and all(_cites_its_lines(c, text) for c in chunks)
        assert " ".join(c.text for c in chunks).count("sockets on the east wall") == 60
        for chunk in chunks:
            assert not any(word in chunk.embed_text for word in PLUMBING), chunk.embed_text
            assert "Switch" not in chunk.text and chunk.context == "House"


def test_the_banner_in_other_versions_and_languages_is_left_out(tokenizer: Tokenizer) -> None:
    text = excalidraw(TEXTS).replace(
        "==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠==",
        "==⚠️ Wechseln Sie in die EXCALIDRAW-ANSICHT im Menü WEITERE OPTIONEN. ⚠️==")
    chunks = _chunks(text, "Küche.excalidraw.md", tokenizer)
    assert [c.context for c in chunks] == ["Küche"]
    assert "Wechseln" not in chunks[0].text


def test_a_placeholder_element_is_not_text(tokenizer: Tokenizer) -> None:
    """The plugin can write a dummy `^_dummy!_` element first (a setting)."""
    text = excalidraw(TEXTS).replace("## Text Elements\n", "## Text Elements\n\n^_dummy!_\n\n")
    (chunk,) = _chunks(text, "Kitchen.excalidraw.md", tokenizer)
    assert chunk.text.startswith("Kitchen floor plan") and _cites_its_lines(chunk, text)


def test_a_drawing_is_known_by_its_frontmatter_key_not_its_name(tokenizer: Tokenizer) -> None:
    (drawing,) = _chunks(excalidraw(TEXTS), "Sketches/Untitled.md", tokenizer)
    assert drawing.context == "Untitled" and drawing.text.startswith("Kitchen floor plan")
    named_only = excalidraw(TEXTS).replace("excalidraw-plugin", "plugin")
    chunks = _chunks(named_only, "Sketches/Kitchen.excalidraw.md", tokenizer)
    assert chunks[0].text.startswith("==⚠  Switch")  # an ordinary note, chunked as written


def test_a_drawing_of_no_text_elements_has_no_chunks(tokenizer: Tokenizer) -> None:
    assert _chunks(excalidraw([]), "Blank.excalidraw.md", tokenizer) == []


def test_the_byte_cap_counts_a_drawings_text_not_its_data(tokenizer: Tokenizer) -> None:
    """A drawing's data is most of its file; only the text that is chunked counts toward
    `max_body_bytes`, so a large drawing is whole to the index and to `ora lint`."""
    text = excalidraw(TEXTS).replace("N4KAk", "N4KAk" + "x" * 20_000)
    limits = NoteLimits(max_chunks=100, max_body_bytes=4_000)
    bounded = chunk_bounded(parse_note(text, "Big.excalidraw.md"), tokenizer, 256, limits)
    assert bounded.cut is None and len(bounded.chunks) == 1


@pytest.mark.parametrize("layout", LAYOUTS)
def test_lint_asks_nothing_of_a_drawing(layout: str) -> None:
    """An untyped note gets one hint to adopt the schema; a drawing, searched by its text as
    the plugin keeps it, gets none (its frontmatter is the plugin's)."""
    assert lint_text(excalidraw(TEXTS, layout=layout), "Kitchen.excalidraw.md") == []
    plain = lint_text("---\ntags: [plan]\n---\nKitchen floor plan\n", "Kitchen.md")
    assert [d.code for d in plain] == ["untyped-note"]
