"""Parsing one note: frontmatter values, key lines, body position, errors as values."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sidecar.errors import UnreadableNote
from sidecar.vault.note import (
    UNCLOSED,
    indexed_view,
    parse_note,
    read_note,
    split_frontmatter,
)

from .conftest import GOOD_NOTE


def test_frontmatter_values_key_lines_and_body_position() -> None:
    note = parse_note(GOOD_NOTE, "Engrams/Good.md")
    assert note.frontmatter["type"] == "engram"
    assert note.frontmatter["nexus"] == ["[[Hub]]"]
    assert note.key_lines == {"nexus": 2, "type": 4, "subtype": 5, "tags": 6,
                              "date created": 9, "date modified": 10}
    assert note.body_line == 12
    assert note.body.startswith("# A good note")
    assert GOOD_NOTE.splitlines()[note.body_line - 1] == "# A good note"
    assert note.yaml_error is None


def test_convenience_properties() -> None:
    text = "---\nnexus: []\ntype: chat\ntags: [Private, incubating]\ncluster: c1\n---\nx"
    note = parse_note(text, "Chats/Some chat.md")
    assert (note.type, note.title, note.cluster) == ("chat", "Some chat", "c1")
    assert note.is_private and note.is_incubating and not note.is_archived
    assert note.tags == ("Private", "incubating")


def test_dates_become_iso_strings_and_impossible_dates_stay_text() -> None:
    text = ("---\ndate created: 2024-01-02\nwhen: 2024-01-02 10:30:00\n"
            "bad: 2024-13-45\nnested: [2023-05-06]\n---\n")
    fm = parse_note(text, "n.md").frontmatter
    assert fm == {"date created": "2024-01-02", "when": "2024-01-02T10:30:00",
                  "bad": "2024-13-45", "nested": ["2023-05-06"]}


def test_relationships_property_keeps_only_strings() -> None:
    text = '---\nrelationships:\n  supports: ["[[A]]", 3]\n  extends: "[[B]]"\n---\n'
    assert parse_note(text, "n.md").relationships == {"supports": ("[[A]]",),
                                                      "extends": ("[[B]]",)}


@pytest.mark.parametrize(
    ("text", "message_part", "line"),
    [
        ("---\na: 1\nb: [1, 2\nc: 3\n---\n", "flow sequence", 3),
        ("---\na: 1\n  b: 2\n---\n", "mapping values", 3),
        ("---\n- a\n- b\n---\n", "mapping", 2),
        ("---\na: 1\nb: 2\na: 3\n---\n", "duplicate key 'a' (first on line 2)", 4),
        ("---\na: 1\n", "never closed", 1),
        ("---\na: &x [1, *x]\n---\n", "nests too deeply", 2),
    ],
    ids=["unclosed-flow", "bad-indent", "not-a-mapping", "duplicate", "unclosed", "recursive"],
)
def test_yaml_problems_become_an_error_with_its_line(text: str, message_part: str,
                                                     line: int) -> None:
    note = parse_note(text, "n.md")
    assert note.yaml_error is not None
    assert message_part in note.yaml_error[0]
    assert note.yaml_error[1] == line
    assert note.frontmatter == {}
    assert note.is_private  # fail closed: a broken block may hide a private tag (issue 10 #4)


@pytest.mark.parametrize(("line", "private"), [
    ("private: true", True), ("Private: true", True), ("private: yes", True),
    ("private: \"true\"", True), ("private: false", False), ("private: maybe", False),
])
def test_a_private_property_makes_a_note_private(line: str, private: bool) -> None:
    """`private: true` is how many Obsidian users mark a note private: it must not leave the
    note public because the tag is Ora's way (nothing warned them)."""
    note = parse_note(f"---\ntype: engram\ntags: [health]\n{line}\n---\nBody.\n", "n.md")
    assert note.yaml_error is None and note.is_private is private


def test_alias_bombs_are_refused_not_expanded() -> None:
    lines = ["---", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    note = parse_note("\n".join([*lines, "---", ""]), "n.md")
    assert note.yaml_error is not None and "more than" in note.yaml_error[0]


def test_no_frontmatter_means_whole_text_is_body() -> None:
    note = parse_note("# Title\n\ntext\n", "n.md")
    assert (note.frontmatter, note.body_line, note.yaml_error) == ({}, 1, None)
    assert note.body == "# Title\n\ntext\n"


@pytest.mark.parametrize(("text", "body", "body_line"), [
    # the closing fence forgotten: the body starts at the heading
    ("---\ntitle: Secret\ntags: [private]\n# Heading\nText", "# Heading\nText", 4),
    # mistyped closing fences (and blank lines) are left out with the block
    ("---\ntags:\n  - private\n--\n\nText", "Text", 6),
    ("---\ndate created: 2024-01-01\n...\nText", "Text", 4),
    ("---\nkey: value\r\n\u2014\r\nText\r\n", "Text\r\n", 4),
    # a note that starts with a `---` rule: its text is kept
    ("---\nPlain text under a rule.\nMore", "Plain text under a rule.\nMore", 2),
    ("---\n#tag on its own\nMore", "#tag on its own\nMore", 2),
    ("---\nSee https://example.org for more", "See https://example.org for more", 2),
    # nothing but frontmatter: nothing is left to index
    ("---\ntype: engram\ntags: [private]\n", "", 5),
])
def test_an_unclosed_block_is_left_out_of_what_the_index_reads(
    text: str, body: str, body_line: int
) -> None:
    note = parse_note(text, "n.md")
    assert note.yaml_error == (UNCLOSED, 1)
    seen = indexed_view(note)
    assert (seen.body, seen.body_line, seen.is_private) == (body, body_line, True)
    if body:  # body_line is the file line the body starts on
        assert text.split("\n")[body_line - 1] == body.split("\n")[0]


def test_a_closed_block_that_does_not_parse_is_read_from_after_its_fence() -> None:
    note = parse_note("---\ntitle: A: b\n---\nBody text\n", "n.md")
    assert note.yaml_error is not None and indexed_view(note) == note
    assert (note.body, note.body_line, note.frontmatter) == ("Body text\n", 4, {})


def test_fence_must_be_exactly_three_dashes_on_line_one() -> None:
    assert split_frontmatter("\n---\na: 1\n---\n") is None
    assert split_frontmatter("----\na: 1\n----\n") is None
    assert split_frontmatter("---  \na: 1\n---\t\nbody") is not None


def test_empty_frontmatter_and_byte_order_mark_and_crlf() -> None:
    assert parse_note("---\n---\nbody", "n.md").frontmatter == {}
    note = parse_note("\ufeff---\r\ntype: web\r\n---\r\nbody\r\n", "n.md")
    assert note.frontmatter == {"type": "web"}
    assert note.key_lines == {"type": 2}
    assert (note.body, note.body_line) == ("body\r\n", 4)


def test_classic_mac_line_ends_are_read_like_the_others() -> None:
    """A bare `\r` ends a line, as in Obsidian's editor: the frontmatter (and a private tag in
    it) was not found before, and the body was one line."""
    note = parse_note("---\rtype: web\rtags: [private]\r---\r# Title\r\rtext #idea\r", "n.md")
    assert note.frontmatter == {"type": "web", "tags": ["private"]}
    assert note.key_lines == {"type": 2, "tags": 3}
    assert (note.body, note.body_line) == ("# Title\n\ntext #idea\n", 5)
    assert note.is_private and note.tags == ("private", "idea")
    assert note.text.count("\r") == 7  # the note's own bytes are kept
    assert parse_note("---\rtype: web\r", "n.md").yaml_error == (UNCLOSED, 1)


def test_frontmatter_at_end_of_file_without_newline() -> None:
    note = parse_note("---\ntype: web\n---", "n.md")
    assert (note.frontmatter, note.body, note.body_line) == ({"type": "web"}, "", 4)


@pytest.mark.parametrize(
    ("content", "code"),
    [(b"---\na: 1\n---\n\x00\x01", "binary_file"),
     (b"caf\xe9\n", "undecodable_file"),
     (b"x" * 101, "file_too_large")],
)
def test_read_note_refuses_binary_undecodable_and_oversized_files(
    vault: Path, write: Callable[[str, str | bytes], str], content: bytes, code: str
) -> None:
    rel = write("Bad.md", content)
    with pytest.raises(UnreadableNote) as info:
        read_note(vault, rel, max_bytes=100)
    assert info.value.code == code


def test_read_note_returns_the_parsed_note(vault: Path) -> None:
    note = read_note(vault, "Engrams/Good.md", max_bytes=10_000)
    assert note.path == "Engrams/Good.md" and note.type == "engram"
