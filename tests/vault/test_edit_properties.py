"""Property tests: an edit of one key leaves every other line of the file byte-identical."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sidecar.vault.frontmatter_edit import rewrite_frontmatter, set_value
from sidecar.vault.note import parse_note

# YAML 1.1 reads these as booleans or null (the parser maps `on:` to the key "true"), so neither
# keys nor values use them: the property is about bytes, not YAML versions.
_YAML11_SCALARS = {"yes", "no", "on", "off", "true", "false", "null", "y", "n"}
KEYS = st.lists(
    st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True).filter(lambda k: k not in _YAML11_SCALARS),
    min_size=1, max_size=6, unique=True,
)
WORDS = st.from_regex(r"[A-Za-z][A-Za-z0-9 ]{0,12}[A-Za-z0-9]", fullmatch=True).filter(
    lambda w: w.lower() not in _YAML11_SCALARS
)


@st.composite
def styled_value(draw: st.DrawFn) -> list[str]:
    """The lines of one key's value, in one of the styles Obsidian users write."""
    style = draw(st.sampled_from(["plain", "double", "single", "flow", "block0", "block2",
                                  "int", "comment"]))
    word = draw(WORDS)
    items = draw(st.lists(WORDS, min_size=1, max_size=3))
    return {
        "plain": [f" {word}"],
        "double": [f' "{word}"'],
        "single": [f" '{word}'"],
        "flow": [" [" + ", ".join(items) + "]"],
        "block0": ["", *[f"- {i}" for i in items]],
        "block2": ["", *[f"  - {i}" for i in items]],
        "int": [f" {len(word)}"],
        "comment": [f" {word}  # note"],
    }[style]


@st.composite
def document(draw: st.DrawFn) -> tuple[str, list[str], dict[str, tuple[int, int]]]:
    """(text, keys, key -> (first line, end line) within the text's lines)."""
    keys = draw(KEYS)
    lines = ["---"]
    spans: dict[str, tuple[int, int]] = {}
    for key in keys:
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["", "# a comment"])))
        value = draw(styled_value())
        start = len(lines)
        lines.append(f"{key}:{value[0]}")
        lines.extend(value[1:])
        spans[key] = (start, len(lines))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))  # "\r": classic Mac line ends
    body = draw(st.text(max_size=40).map(lambda t: t.replace("\r", "")))
    if newline == "\r":  # a `\n` would make the frontmatter's bare CRs mixed (refused)
        body = body.replace("\n", "\r")
    lines += ["---", "# Body", "", body]
    return newline.join(lines) + newline, keys, spans


@settings(max_examples=150, deadline=None)
@given(document(), st.data(), WORDS)
def test_editing_one_key_changes_only_its_lines(
    doc: tuple[str, list[str], dict[str, tuple[int, int]]], data: st.DataObject, new_value: str
) -> None:
    text, keys, spans = doc
    key = data.draw(st.sampled_from(keys))
    out = rewrite_frontmatter(text, lambda cm: set_value(cm, key, new_value))
    old_lines, new_lines = text.splitlines(keepends=True), out.splitlines(keepends=True)
    start, end = spans[key]
    assert new_lines[:start] == old_lines[:start]
    grown = len(new_lines) - len(old_lines)
    assert new_lines[end + grown:] == old_lines[end:]
    before, after = parse_note(text, "n.md"), parse_note(out, "n.md")
    assert after.frontmatter[key] == new_value
    assert {k: v for k, v in after.frontmatter.items() if k != key} == {
        k: v for k, v in before.frontmatter.items() if k != key
    }
