"""A turn that leaves an Obsidian `%%` comment or `$$` math open outside its code is closed
before the next turn: Obsidian would otherwise hide the next headings and turns in it."""

from __future__ import annotations

from sidecar.memory.chat_note import new_note, turn_section
from sidecar.vault.inert import closed
from sidecar.vault.prose import prose_lines

CREATED = "2026-12-05T06:00:00+00:00"


def note_of(texts: list[str]) -> str:
    """A chat note of `texts` as alternate questions and answers, written as `ChatNotes` does."""
    sections = [turn_section("user" if n % 2 == 0 else "assistant", text,
                             f"2026-12-05T06:{n:02d}:00+00:00", private=False)
                for n, text in enumerate(texts)]
    return new_note("c", "default", CREATED) + "\n".join(["", *sections])


def test_a_comment_or_math_left_open_by_a_turn_is_closed_before_the_next_turn() -> None:
    # Before: the `%%` (or `$$`) an answer left open ran to the next turn's, hiding the
    # headings and the question between them.
    for opener in ("%%", "$$"):
        note = note_of(["How much sun?", f"Sun [1].\n{opener} a note to self",
                        "And compost?", f"Compost {opener} x {opener} helps."])
        body = note.split("---\n", 2)[2]
        shown = "\n".join(text for _, text in prose_lines(body))
        assert "And compost?" in shown and "Ora · 2026-12-05 06:03:00 UTC" in shown, note


def test_a_comment_mark_in_code_opens_nothing_and_closing_is_idempotent() -> None:
    for text in ("`%%` and\n```\n$$\n```", "%% open `%%`", "$$\nx^2", "a %% b %% c", "```\n%%",
                 "Code:\n\n    %% x", "> %% quoted", "- $$\n  x"):
        once = closed(text)
        assert closed(once) == once, repr(once)
    assert closed("`%%` and\n```\n$$\n```") == "`%%` and\n```\n$$\n```"
    assert closed("%% open `%%`") == "%% open `%%`\n%%"
    assert closed("$$\nx^2") == "$$\nx^2\n$$"
    assert closed("Code:\n\n    %% x $$") == "Code:\n\n    %% x $$"  # an indented code block
