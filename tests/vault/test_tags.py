"""Tags are Obsidian's tags: every frontmatter shape, the legacy `tag`, inline #tags outside code
and links, nested tags counting as their ancestors; lint checks all of them on typed notes."""

from __future__ import annotations

import pytest

from sidecar.lint.diagnostics import LintContext, lint_text
from sidecar.retrieval.filters import is_admissible, result_flags
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


# Bodies holding tags Obsidian does not read (`#hidden`) and one it reads (`#kept`), by the place
# that hides them (or, for the guards, keeps them): only `kept` may be read, as Obsidian's metadata
# cache reads them (the HTML, fence and math rows as read back from Obsidian 1.13.7, see
# docs/reliability.md section 31).
ONLY_KEPT = {
    # comments, code and math: HTML comments and inline math were read (section 26)
    "an html comment in a line": "text <!-- #hidden --> but #kept\n",
    "an html comment over lines": "before <!-- opens\n#hidden\nstill #hidden --> then #kept\n",
    "a %% comment": "%% #hidden %% but #kept\n",
    "a %% comment block": "%%\n#hidden\n%%\n#kept\n",
    "inline code": "inline `#hidden` code, #kept\n",
    "a backtick fence": "```\n#hidden\n```\n#kept\n",
    "a tilde fence": "~~~md\n#hidden\n~~~\n#kept\n",
    "inline math": "math $x = #hidden$ and #kept\n",
    "display math on one line": "math $$ #hidden $$ on one line, #kept\n",
    "a math block": "$$\n#hidden\n$$\n#kept\n",
    "dollar amounts are not math": "prices $5 and #kept $10\n",
    "a comment mark in code opens nothing": "`<!--` in code opens no comment #kept\n",
    # indented code blocks: 4 columns after a blank line, a heading or the start (section 27)
    "indented code at the start": "    #hidden at the start of the body\n#kept\n",
    "indented code after a blank":
        "text\n\n    code #hidden\n\n    more code after a blank #hidden\n#kept\n",
    "indented code by a tab": "text\n\n\tcode after a tab #hidden\n#kept\n",
    "indented code under a heading": "# Heading\n    code right under a heading #hidden\n#kept\n",
    "indented code after a list": "- item\n\nout of the list\n\n    code again #hidden\n#kept\n",
    "indented code in an item":
        "- item\n\n      code in the item: 4 past its text #hidden\n#kept\n",
    "a fence in an item": "- item\n\n    ```\n    #hidden in the item's fence\n    ```\n#kept\n",
    "indented code, crlf": "crlf\r\n\r\n    #hidden\r\n#kept\r\n",
    # indented text that is not code (guards)
    "an item's next line": "- item\n    more text #kept\n",
    "an item's second paragraph": "- item\n\n    a second paragraph of the item #kept\n",
    "an item's line after a tab": "- item\n\tafter a tab #kept\n",
    "an ordered item's paragraph": "1. item\n\n    more #kept\n",
    "a nested item": "- a\n    - nested four spaces in #kept\n",
    "a nested item after a blank": "- a\n\n\t- nested after a blank, a tab in #kept\n",
    "a nested item's paragraph": "- a\n  - b\n\n      text of b #kept\n",
    "a paragraph's indented line": "a paragraph\n    goes on indented #kept\n",
    "a lazy line's item": "- lazy\ncontinuation\n\n    still the item's #kept\n",
    # inline math over a paragraph's line break, and its reach (section 28)
    "inline math over a line break": "math $a +\n#hidden b$ and #kept\n",
    "inline math over an item's line break": "- item $x\n  #hidden = 1$ then #kept\n",
    "no closing dollar": "prices $5 and\n#kept $10\n",
    "no math over a blank line": "not $across\n\na blank #kept$ line\n",
    "no math into the next item": "- not $across\n- items #kept$\n",
    "no math into a heading": "# not $across\na heading #kept$\n",
    # code, math and HTML inside block quotes and callouts (section 31)
    "a fence in a quote": "> ```\n> #hidden\n> ```\n#kept\n",
    "a fence in a callout": "> [!note]\n> ~~~\n> #hidden\n> ~~~\n> callout text #kept\n",
    "indented code in a quote": ">     code in a quote #hidden\n#kept\n",
    "indented code after a quoted blank": "> text\n>\n>     code #hidden\n> #kept\n",
    "indented code in a quote by tabs": ">\t\tcode #hidden\n#kept\n",
    "a fence in a nested quote": "> > ```\n> > #hidden\n> > ```\n> > #kept\n",
    "a quote in an item": "- item\n  > ```\n  > #hidden\n  > ```\n#kept\n",
    "a math block in a quote": "> $$\n> #hidden\n> $$\n> #kept\n",
    "an html block in a quote": "> <div>\n> #hidden\n>\n> #kept\n",
    "an unclosed fence ends with its quote": "> ```\n> #hidden\n\n#kept\n",
    "the quote's end ends its fence": "> ```\n#kept\n",
    "a quote's lazy line": "> a paragraph\nlazy #kept\n",
    "an item in a quote": "> - item\n>     more #kept\n",
    "a callout's title": "> [!tip] Title #kept\n",
    # HTML blocks, CommonMark's seven kinds (section 31)
    "a div to the blank line": "<div>\nhello #hidden\n</div>\n\n#kept\n",
    "a p on one line": "<p>x #hidden</p>\n\n#kept\n",
    "a div interrupts a paragraph": "text\n<div> #hidden\n\n#kept\n",
    "markdown after a blank in details":
        "<details>\n<summary> #hidden</summary>\n\nmarkdown #kept\n\n</details>\n",
    "a comment line to its end": "<!-- note --> #hidden\n#kept\n",
    "a pre over blank lines": "<pre>\n#hidden\n\n#hidden\n</pre>\n#kept\n",
    "a processing instruction": "<?xml #hidden ?>\n#kept\n",
    "a tag alone on its line": "<span>\n#hidden\n\n#kept\n",
    "a lone tag cannot interrupt a paragraph": "text\n<span>\n#kept\n",
    "inline html": "a <b>bold</b> #kept\n",
    "an autolink": "<https://x.org> #kept\n",
    # `$$` math over several lines, wherever it opens (section 31)
    "display math over lines": "sum $$a +\n#hidden = b$$ then #kept\n",
    "display math closing on its own line": "text $$\n#hidden\n$$ and #kept\n",
    "text after the closing dollars": "$$\n#hidden\n$$ #kept after\n",
    "display math over an item's lines": "- item $$x\n  #hidden$$ #kept\n",
    "a math block over a blank line": "$$ a\n\n#hidden\n$$\n#kept\n",
    # fences as CommonMark closes them (section 31)
    "a fence with an info string closes nothing":
        "```markdown\n```typescript\nx #hidden\n```\nprose #kept\n```\ncode #hidden\n```\n",
    "a shorter fence closes nothing": "````\n```\n#hidden\n````\n#kept\n",
    "an indented fence closes nothing": "```\n    ```\n#hidden\n```\n#kept\n",
    "a backtick in the info string is no fence": "```a`b #kept\n",
}


@pytest.mark.parametrize("body", ONLY_KEPT.values(), ids=ONLY_KEPT.keys())
def test_only_the_tags_obsidian_reads_are_read(body: str) -> None:
    assert [t for t, _ in inline_tags_with_lines(body)] == ["kept"]


HIDDEN_PRIVATE = [body.replace("#hidden", "#private")
                  for body in ONLY_KEPT.values() if "#hidden" in body]


@pytest.mark.parametrize("body", [
    "```\n#private\n```\n",
    "and `#private` inline\n",
    "<!-- #private -->\n",
    "%% #private/health %%\n",
    "$x = #PRIVATE$\n",
    "text\n\n    #private in an indented code block\n",
    "$x =\n#private$ over a line break\n",
    *HIDDEN_PRIVATE,
])
def test_a_private_tag_obsidian_does_not_read_still_makes_the_note_private(body: str) -> None:
    """Fail safe: its tags follow Obsidian (no `private`), but a note that says `#private`
    anywhere is kept out of non-private results; every place of ONLY_KEPT that hides a tag."""
    note = parse_note(f"---\ntags: [work]\n---\n{body}", "n.md")
    expected = ("work", "kept") if "#kept" in body else ("work",)
    assert note.tags == expected and not note.has_tag("private")
    assert note.is_private
    assert not is_admissible("resource", note.tags, note.is_private, private_mode=False,
                             include_archived=False)


@pytest.mark.parametrize(("body", "tags"), [
    ("#tl#tm\n", ["tl", "tm"]),
    ("#tn/#to\n", ["tn", "to"]),
    ("text #a#b#c\n", ["a", "b", "c"]),
    ("x#a#b\n", []),  # the first is no tag, so neither is the next
    ("#1984#b\n", []),
    ("x _#uc_ y\n", ["uc"]),
    ("snake_case_#wc\n", ["wc"]),
    ("#snake_case\n", ["snake_case"]),
    ("|a|b|\n|-|-|\n|#uo|x|\n", ["uo"]),
    ("| h |\n|---|\n| #t1 | x |\nrow #t2\n", ["t1", "t2"]),
    ("a|#b\n", []),  # no table: a bar is punctuation
    ("|a|b|\n|-|-|-|\n|#c|x|\n", []),  # a delimiter row of other width: no table
])
def test_a_tag_starts_where_obsidian_starts_one(body: str, tags: list[str]) -> None:
    """Right after another tag (`#tl#tm`, `#tn/#to`), after `_` (`_#uc_`, `snake_case_#wc`) and
    at a table cell's start (`|#uo|`) Obsidian reads a tag (read back from Obsidian 1.13.7,
    docs/reliability.md section 33); none of them was read."""
    assert [t for t, _ in inline_tags_with_lines(body)] == tags


@pytest.mark.parametrize("body", [
    "notes #work#private\n", "`#work#private` in code\n", "snake_case_#private\n",
    "x _#private_ y\n", "|a|b|\n|-|-|\n|#private|x|\n",
])
def test_a_private_tag_after_a_tag_or_an_underscore_makes_the_note_private(body: str) -> None:
    """`#work#private` and `_#private_` are Obsidian's tag `private`: such notes were public."""
    assert parse_note(body, "n.md").is_private


@pytest.mark.parametrize("body", ["#privateer\n", "#private-notes\n", "a#private\n", "private\n",
                                  "a#b#private\n", "#a#privateer\n", "#private_notes\n"])
def test_only_the_private_tag_itself_makes_a_note_private(body: str) -> None:
    assert not parse_note(body, "n.md").is_private


@pytest.mark.parametrize(("body", "tags"), [
    ("สรุป #เที่ยว และ #การเงิน\n", ["เที่ยว", "การเงิน"]),
    ("आज #पढ़ाई की\n", ["पढ़ाई"]),
    ("امروز #کتاب‌ها\n", ["کتاب‌ها"]),
    ("#cafe\u0301 ok\n", ["cafe\u0301"]),
])
def test_a_tag_keeps_the_combining_marks_of_its_letters(body: str, tags: list[str]) -> None:
    """Python's `\\w` holds no combining mark: `#पढ़ाई` was the tag `पढ`, `#เที่ยว` was `เท`,
    so a filter on the tag Obsidian shows found nothing."""
    assert [t for t, _ in inline_tags_with_lines(body)] == tags


def test_a_private_tag_chained_to_a_thai_tag_makes_the_note_private() -> None:
    # The chain `#เที่ยว#private` stopped at the tone mark, and the `#private` after a letter
    # was no tag: the note was public.
    assert parse_note("ทริป #เที่ยว#private\n", "n.md").is_private
    assert not parse_note("ทริป #privateเที่ยว\n", "n.md").is_private


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


@pytest.mark.parametrize("body", [
    "Plain text, no tag at all.", "A #private tag.", "Chained #work#Private/health.",
    "A tag after slashes #/private reads as private.", "Emphasis _#archived_ here.",
    "#ARCHIVED/2024 at a line's start", "In code `#private` only.", "%%#archived%% hidden",
    "A longer #privateer is another tag.", "Straße: #Straße", "#archivedx #x/archived",
])
@pytest.mark.parametrize("tag", ["private", "archived", "straße", "x", "kept"])
def test_has_tag_reads_the_inline_tags_only_when_the_body_may_hold_the_tag(
    body: str, tag: str,
) -> None:
    # A note's privacy and whether it is archived are read without every inline tag when the
    # body cannot hold the tag (a cold index reads them of every note ahead of its pass).
    note = parse_note(f"---\ntags: [kept]\n---\n{body}\n", "n.md")
    assert note.has_tag(tag) == (tag.casefold() in with_ancestors(note_tags(
        note.frontmatter, note.body)))
    assert "tags" not in note.__dict__ or "#" in body
