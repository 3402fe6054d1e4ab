"""Reading links: wikilinks and Markdown links found in a line, what each shows, and which notes a
Markdown link may name (URL-decoded, `<...>`, relative or vault-absolute, part stripped)."""

from __future__ import annotations

import pytest

from sidecar.vault.links import NameIndex, links, markdown_targets, searchable, shown


@pytest.mark.parametrize(
    ("destination", "source", "targets"),
    [
        ("Graph%20view.md", "", ("Graph view.md",)),
        ("<Folder/My note.md>", "", ("Folder/My note.md",)),
        ("../Other/Note.md#Heading", "Daily/2026/Today.md", ("Daily/Other/Note.md",)),
        ("./Sibling#^block", "Daily/Today.md", ("Daily/Sibling",)),
        ("Sub/Note.md", "Projects/Plan.md", ("Projects/Sub/Note.md", "Sub/Note.md")),
        ("/Projects/Plan.md", "Daily/Today.md", ("Projects/Plan.md",)),
        ("Note", "Top.md", ("Note",)),
        ("../../Outside.md", "Daily/Today.md", ()),  # leaves the vault
        ("#Heading", "Daily/Today.md", ()),  # a part of the same note
        ("https://obsidian.md/Note.md", "", ()),
        ("mailto:me@example.com", "", ()),
        ("obsidian://open?vault=v&file=Note", "", ()),
    ],
)
def test_a_markdown_destination_names_notes_like_obsidian(
    destination: str, source: str, targets: tuple[str, ...],
) -> None:
    assert markdown_targets(destination, source) == targets


def test_links_of_a_line_in_order_with_what_they_show() -> None:
    line = ("[[Graph view|graph]] then [a link](Folder/Note%201.md \"title\"), "
            "![[Pic.png|300]], ![alt](pic.png), [web](https://a.b/(c)) and [[#Part]]")
    found = list(links(line, "Here.md"))
    assert [(link.shown, link.embed, link.targets, link.markdown) for link in found] == [
        ("graph", False, ("Graph view",), False),
        ("a link", False, ("Folder/Note 1.md",), True),
        ("Pic.png", True, ("Pic.png",), False),
        ("alt", True, ("pic.png",), True),
        ("web", False, (), True),
        ("Part", False, (), False),
    ]
    assert shown(line) == "graph then a link, Pic.png, alt, web and Part"


def test_text_without_links_reads_as_written() -> None:
    for text in ("plain [bracketed] words (and parentheses)", "- [ ] a task", "a [^1] note"):
        assert shown(text) == text


def test_a_markdown_link_resolves_to_the_note_obsidian_opens() -> None:
    names = NameIndex(["Projects/Sub/Note.md", "Sub/Note.md", "Graph view.md"])
    for dest, source, path in [("Sub/Note.md", "Projects/Plan.md", "Projects/Sub/Note.md"),
                               ("Sub/Note.md", "Daily/Today.md", "Sub/Note.md"),
                               ("Graph%20view.md", "Daily/Today.md", "Graph view.md"),
                               ("../Sub/Note", "Daily/Today.md", "Sub/Note.md")]:
        assert names.resolve_first(markdown_targets(dest, source)) == path


def test_the_notes_a_text_links_to_whatever_the_link_syntax() -> None:
    names = NameIndex(["Tools/Graph view.md", "Daily/Today.md"], {"Tools/Graph view.md": ["Map"]})
    text = ("[[Graph view]] and [the map](Map) and ![[Missing]]\n"
            "[web](https://obsidian.md) [today](./Today.md) [up](../Tools/Graph%20view.md)")
    assert list(names.linked(text, "Daily/Note.md")) == [
        "Tools/Graph view.md", "Tools/Graph view.md", None, "Daily/Today.md",
        "Tools/Graph view.md"]


def test_a_markdown_link_to_a_note_is_searched_url_decoded_and_other_text_as_written() -> None:
    text = "[see this](Graph%20view.md#Zoom%20in) [web](https://a.b/c%20d) [[W%20x]]"
    assert searchable(text) == "see this (Graph view.md) [web](https://a.b/c%20d) [[W%20x]]"
