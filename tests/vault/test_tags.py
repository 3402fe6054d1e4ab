"""Tags are Obsidian's tags: every frontmatter shape, the legacy `tag`, inline #tags outside code
and links, nested tags counting as their ancestors; lint checks all of them on typed notes."""

from __future__ import annotations

import pytest

from sidecar.retrieval.filters import is_admissible, result_flags
from sidecar.vault.lint import LintContext, lint_text
from sidecar.vault.note import parse_note
from sidecar.vault.tags import frontmatter_tags, inline_tags_with_lines, note_tags, with_ancestors


@pytest.mark.parametrize(("frontmatter", "expected"), [
    ({"tags": ["a", "#b", "c/d"]}, ("a", "b", "c/d")),
    ({"tags": "a"}, ("a",)),
    ({"tags": "#a, b c,,#d/e"}, ("a", "b", "c", "d/e")),
    ({"tag": "legacy"}, ("legacy",)),
    ({"tags": ["x"], "tag": ["y", 3]}, ("x", "y")),
    ({"tags": None}, ()),
    ({"tags": 5}, ()),
    ({"tags": ["#"]}, ()),
    # Obsidian matches the property name case-insensitively (/^tags?$/i)
    ({"Tags": ["private"]}, ("private",)),
    ({"TAGS": "a, b"}, ("a", "b")),
    ({"Tag": "legacy"}, ("legacy",)),
])
def test_frontmatter_tags_in_every_shape(frontmatter: dict[str, object],
                                         expected: tuple[str, ...]) -> None:
    assert frontmatter_tags(frontmatter) == expected


BODY = """# Heading is not a tag
#tag-at-start and text #second, also (#third) no: a#b
Nested #private/health and #2024 is a number, #y2024 is a tag.
Inline `#code` and ``#double code`` are not tags.
[[Note#section]] and [[Other|#alias]] and [text](https://x.org/#frag) and http://y.org/#frag
%%a #hidden comment%% but #visible
```python
# a comment #in-code
```
~~~
#tilde-code
~~~
$$
#math
$$
%%
#block-comment
%%
#after-everything
"""


def test_inline_tags_skip_code_links_urls_comments_math_and_headings() -> None:
    tags = [t for t, _ in inline_tags_with_lines(BODY)]
    assert tags == ["tag-at-start", "second", "private/health", "y2024", "visible",
                    "after-everything"]


def test_inline_tag_lines_are_body_lines() -> None:
    lines = dict(inline_tags_with_lines(BODY))
    assert lines["tag-at-start"] == 1 and lines["private/health"] == 2


def test_note_tags_join_frontmatter_and_inline_once_each() -> None:
    assert note_tags({"tags": ["Memory"]}, "about #memory and #sleep\n") == ("Memory", "sleep")


def test_nested_tags_count_as_their_ancestors() -> None:
    assert with_ancestors(["Private/Health/Sleep"]) == {
        "private", "private/health", "private/health/sleep"}
    note = parse_note("---\ntags: [private/health]\n---\nbody\n", "n.md")
    assert note.is_private and note.has_tag("PRIVATE") and not note.has_tag("health")


@pytest.mark.parametrize(("text", "status"), [
    ("---\ntags: [private]\n---\nx\n", "private"),
    ("---\ntags: private\n---\nx\n", "private"),
    ("---\ntags: '#private, work'\n---\nx\n", "private"),
    ("---\ntag: private\n---\nx\n", "private"),
    ("---\nTags: [private]\n---\nx\n", "private"),
    ("---\nTAGS: private/health\n---\nx\n", "private"),
    ("---\ntags: [private/health]\n---\nx\n", "private"),
    ("plain text #private in the body\n", "private"),
    ("text #private/health nested\n", "private"),
    ("---\ntags: [archived]\n---\nx\n", "archived"),
    ("---\ntags: archived\n---\nx\n", "archived"),
    ("---\ntag: archived/2023\n---\nx\n", "archived"),
    ("old note #archived\n", "archived"),
    ("---\ntags: incubating\n---\nx\n", "incubating"),
    ("---\ntag: [incubating]\n---\nx\n", "incubating"),
    ("an idea #incubating/seed\n", "incubating"),
])
def test_every_tag_shape_drives_every_status_filter(text: str, status: str) -> None:
    note = parse_note(text, "n.md")
    assert note.has_tag(status)
    admitted = is_admissible("resource", note.tags, note.is_private,
                             private_mode=False, include_archived=False)
    assert admitted is (status == "incubating")
    if status == "incubating":
        assert result_flags(note.tags) == ["incubating"]
    if status == "archived":
        assert is_admissible("resource", note.tags, False, private_mode=False,
                             include_archived=True)
        assert result_flags(note.tags) == ["archived"]
    if status == "private":
        assert note.is_private
        assert is_admissible("resource", note.tags, note.is_private, private_mode=True,
                             include_archived=False)


@pytest.mark.parametrize("tag", ["#private", "#code"])
def test_a_tag_in_code_is_not_a_tag(tag: str) -> None:
    note = parse_note(f"```\n{tag}\n```\nand `{tag}`\n", "n.md")
    assert note.tags == ()


@pytest.mark.parametrize("body", [
    "<!-- #hidden --> but #kept\n",
    "before <!-- opens\n#hidden\nstill #hidden --> then #kept\n",
    "%% #hidden %% but #kept\n",
    "%%\n#hidden\n%%\n#kept\n",
    "inline `#hidden` code, #kept\n",
    "```\n#hidden\n```\n#kept\n",
    "~~~md\n#hidden\n~~~\n#kept\n",
    "math $x = #hidden$ and #kept\n",
    "math $$ #hidden $$ on one line, #kept\n",
    "$$\n#hidden\n$$\n#kept\n",
    "prices $5 and #kept $10\n",  # two dollars are not math: the tag between them counts
    "`<!--` in code opens no comment #kept\n",
])
def test_tags_obsidian_does_not_read_are_not_tags(body: str) -> None:
    """HTML comments, inline math and `$$…$$` on one line were read as tags (Obsidian reads
    none of them); comments, code and math blocks each keep theirs out."""
    assert [t for t, _ in inline_tags_with_lines(body)] == ["kept"]


@pytest.mark.parametrize("body", [
    "    #hidden at the start of the body\n#kept\n",
    "text\n\n    code #hidden\n\n    more code after a blank #hidden\n#kept\n",
    "text\n\n\tcode after a tab #hidden\n#kept\n",
    "# Heading\n    code right under a heading #hidden\n#kept\n",
    "- item\n\nout of the list\n\n    code again #hidden\n#kept\n",
    "- item\n\n      code in the item: 4 past its text #hidden\n#kept\n",
    "- item\n\n    ```\n    #hidden in the item's fence\n    ```\n#kept\n",
    "crlf\r\n\r\n    #hidden\r\n#kept\r\n",
])
def test_an_indented_code_block_is_not_read_for_tags(body: str) -> None:
    """4 columns of indent after a blank line (or a heading, or at the start) is a code block,
    where Obsidian reads no tags: they were read."""
    assert [t for t, _ in inline_tags_with_lines(body)] == ["kept"]


@pytest.mark.parametrize("body", [
    "- item\n    more text #kept\n",
    "- item\n\n    a second paragraph of the item #kept\n",
    "- item\n\tafter a tab #kept\n",
    "1. item\n\n    more #kept\n",
    "- a\n    - nested four spaces in #kept\n",
    "- a\n\n\t- nested after a blank, a tab in #kept\n",
    "- a\n  - b\n\n      text of b #kept\n",
    "a paragraph\n    goes on indented #kept\n",
    "- lazy\ncontinuation\n\n    still the item's #kept\n",
])
def test_indented_text_that_is_not_code_keeps_its_tags(body: str) -> None:
    """A list item's indented lines, and a paragraph's next line however indented, are text
    Obsidian reads tags in."""
    assert [t for t, _ in inline_tags_with_lines(body)] == ["kept"]


@pytest.mark.parametrize("body", [
    "math $a +\n#hidden b$ and #kept\n",
    "- item $x\n  #hidden = 1$ then #kept\n",
    "prices $5 and\n#kept $10\n",  # no closing `$`: text, a line apart as on one line
    "not $across\n\na blank #kept$ line\n",  # a paragraph ends at a blank line
    "- not $across\n- items #kept$\n",  # nor at the next list item
    "# not $across\na heading #kept$\n",
])
def test_inline_math_over_a_line_break_is_math(body: str) -> None:
    """Obsidian reads `$…$` within a paragraph as math over a soft line break too; its tags
    were read. The same rule as on one line: `$5 and $10` stays text."""
    assert [t for t, _ in inline_tags_with_lines(body)] == ["kept"]


@pytest.mark.parametrize("body", [
    "```\n#private\n```\n",
    "and `#private` inline\n",
    "<!-- #private -->\n",
    "%% #private/health %%\n",
    "$x = #PRIVATE$\n",
    "text\n\n    #private in an indented code block\n",
    "$x =\n#private$ over a line break\n",
])
def test_a_private_tag_obsidian_does_not_read_still_makes_the_note_private(body: str) -> None:
    """Fail safe: its tags follow Obsidian (no `private`), but a note that says `#private`
    anywhere is kept out of non-private results."""
    note = parse_note(f"---\ntags: [work]\n---\n{body}", "n.md")
    assert note.tags == ("work",) and not note.has_tag("private")
    assert note.is_private
    assert not is_admissible("resource", note.tags, note.is_private, private_mode=False,
                             include_archived=False)


@pytest.mark.parametrize("body", ["#privateer\n", "#private-notes\n", "a#private\n", "private\n"])
def test_only_the_private_tag_itself_makes_a_note_private(body: str) -> None:
    assert not parse_note(body, "n.md").is_private


TYPED = ("---\nnexus: []\ntype: engram\n{fm}date created: 2024-01-01\n"
         "date modified: 2024-01-01\n---\n{body}")


@pytest.mark.parametrize(("fm", "body", "unknown", "line"), [
    ("tags: [memroy]\n", "x\n", "memroy", 4),
    ("tags: []\ntag: memroy\n", "x\n", "memroy", 5),
    ("tags: []\ntag: 'memory, memroy'\n", "x\n", "memroy", 5),
    ("tags: []\n", "line one\nabout #memroy here\n", "memroy", 9),
    ("tags: [framework/other]\n", "x\n", "framework/other", 4),
])
def test_lint_checks_every_tag_of_a_typed_note_against_the_vocabulary(
    fm: str, body: str, unknown: str, line: int
) -> None:
    found = lint_text(TYPED.format(fm=fm, body=body), "n.md", LintContext())
    assert [(d.code, d.line) for d in found] == [("tag-unknown", line)]
    assert f"'{unknown}'" in found[0].message


@pytest.mark.parametrize("tags", [
    "tags: [memory/sleep]\n", "tags: [private/health]\n", "tags: []\ntag: learning\n",
    "tags: [framework/instruction]\n",
])
def test_nested_and_legacy_known_tags_pass_lint(tags: str) -> None:
    text = TYPED.format(fm=tags, body="see #memory/recall and #private\n")
    assert lint_text(text, "n.md", LintContext()) == []
