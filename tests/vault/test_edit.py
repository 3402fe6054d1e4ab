"""The one writer: byte-preserving frontmatter edits, atomic writes, conflicts, the trash."""

from __future__ import annotations

import datetime as dt
import os
import resource
import signal
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from ruamel.yaml.comments import CommentedMap

from sidecar.errors import Conflict, InvalidFrontmatter, NotFound
from sidecar.vault.edit import edit_frontmatter
from sidecar.vault.frontmatter_edit import add_relationship, add_tag, rewrite_frontmatter, set_value
from sidecar.vault.note import parse_note
from sidecar.vault.trash import move_to_trash
from sidecar.vault.write import content_hash

Write = Callable[[str, str | bytes], str]

STYLED = """---
# a comment before everything
nexus:
  - "[[Hub]]"   # trailing comment
type: engram  # the type
tags: [atomic, 'memory']
quoted: "keep these quotes"

# a comment between keys
relationships:
  supports:
    - "[[Other]]"
date created: 2024-01-02
---
# Body

Text with --- a dash line below
---
more body
"""


def test_adding_a_tag_changes_only_the_tags_line() -> None:
    out = rewrite_frontmatter(STYLED, lambda cm: add_tag(cm, "archived"))
    assert out == STYLED.replace("tags: [atomic, 'memory']", "tags: [atomic, 'memory', archived]")


@pytest.mark.parametrize(("tags", "after"), [
    # A string of several tags becomes the list of those tags: one item "health, sleep" would be
    # a single tag Obsidian cannot read, so triage would have taken the note's tags away.
    ("tags: health, sleep", "tags:\n- health\n- sleep\n- archived"),
    ('tags: "#health #sleep"', "tags:\n- '#health'\n- '#sleep'\n- archived"),
    ("tags: health", "tags:\n- health\n- archived"),
    ("tags: '#archived'", "tags: '#archived'"),
    ("tags: ['#archived']", "tags: ['#archived']"),
    # The tag goes where the note keeps its tags, not into a second property beside it.
    ("tag: health", "tag:\n- health\n- archived"),
    ("Tags: [health]", "Tags: [health, archived]"),
])
def test_adding_a_tag_keeps_every_tag_the_note_had(tags: str, after: str) -> None:
    text = f"---\ntype: engram\n{tags}\n---\nbody\n"
    out = rewrite_frontmatter(text, lambda cm: add_tag(cm, "archived"))
    assert out == f"---\ntype: engram\n{after}\n---\nbody\n"
    before = parse_note(text, "n.md").tags
    assert parse_note(out, "n.md").tags[: len(before)] == before


def test_adding_a_relationship_keeps_everything_else() -> None:
    out = rewrite_frontmatter(STYLED, lambda cm: add_relationship(cm, "supersedes", "[[Old]]"))
    assert out == STYLED.replace(
        '    - "[[Other]]"\n', '    - "[[Other]]"\n  supersedes:\n    - "[[Old]]"\n'
    )


def test_new_keys_go_last_in_the_files_list_style() -> None:
    text = '---\nnexus:\n  - "[[Hub]]"\ntype: engram\n---\nbody\n'
    out = rewrite_frontmatter(text, lambda cm: add_relationship(cm, "supports", "[[X]]"))
    assert out == ('---\nnexus:\n  - "[[Hub]]"\ntype: engram\n'
                   'relationships:\n  supports:\n    - "[[X]]"\n---\nbody\n')


def test_helpers_are_idempotent() -> None:
    def twice(cm: CommentedMap) -> None:
        for _ in range(2):
            add_tag(cm, "ATOMIC")
            add_relationship(cm, "supports", "[[other|alias]]")
    assert rewrite_frontmatter(STYLED, twice) == STYLED


def test_set_value_writes_plain_iso_dates() -> None:
    out = rewrite_frontmatter(STYLED, lambda cm: set_value(cm, "date created", dt.date(2025, 2, 3)))
    assert out == STYLED.replace("date created: 2024-01-02", "date created: 2025-02-03")
    assert parse_note(out, "n.md").frontmatter["date created"] == "2025-02-03"


def test_crlf_files_stay_crlf() -> None:
    text = STYLED.replace("\n", "\r\n")
    out = rewrite_frontmatter(text, lambda cm: add_relationship(cm, "extends", "[[E]]"))
    assert "\n" not in out.replace("\r\n", "")
    assert out == text.replace('"[[Other]]"\r\n', '"[[Other]]"\r\n  extends:\r\n    - "[[E]]"\r\n')


def test_a_note_without_frontmatter_gets_one_and_keeps_its_text() -> None:
    out = rewrite_frontmatter("\ufeff# Title\nbody\n", lambda cm: set_value(cm, "type", "engram"))
    assert out == "\ufeff---\ntype: engram\n---\n# Title\nbody\n"


@pytest.mark.parametrize(("line", "mutate", "after"), [
    # The value outgrows its comment's column: the comment keeps the user's two spaces.
    ("extracted: [a]  # kept", lambda cm: cm["extracted"].append("b"),
     "extracted: [a, b]  # kept"),
    ("title: x   # the title", lambda cm: set_value(cm, "title", "a longer title"),
     "title: a longer title   # the title"),
    # A `#` inside a quoted value is the value's, never a comment to space.
    ('q: "v  # not"  # real', lambda cm: set_value(cm, "q", "v  # not and more"),
     'q: "v  # not and more"  # real'),
    ('q: "v"  # real', lambda cm: set_value(cm, "q", "v # real"), 'q: "v # real"  # real'),
    # While the value still ends before the comment, the comment stays in its column.
    ("title: a long title     # aligned", lambda cm: set_value(cm, "title", "short"),
     "title: short            # aligned"),
])
def test_an_end_of_line_comment_keeps_the_space_before_it(
        line: str, mutate: Callable[[CommentedMap], None], after: str) -> None:
    text = f"---\nother: 1  # untouched\n{line}\n---\nbody\n"
    assert rewrite_frontmatter(text, mutate) == text.replace(line, after)
    crlf = text.replace("\n", "\r\n")
    assert rewrite_frontmatter(crlf, mutate) == crlf.replace(line, after)


def test_a_mutation_that_changes_nothing_returns_the_text_unchanged() -> None:
    assert rewrite_frontmatter("# just body\n", lambda cm: None) == "# just body\n"
    assert rewrite_frontmatter(STYLED, lambda cm: None) == STYLED


def test_removing_a_key_keeps_the_comments_around_it() -> None:
    out = rewrite_frontmatter(STYLED, lambda cm: cm.pop("quoted"))
    assert out == STYLED.replace('quoted: "keep these quotes"\n', "")


@pytest.mark.parametrize("text", ["---\na: [1\n---\n", "---\n- a\n---\n", "---\na: 1\n"])
def test_invalid_frontmatter_is_refused(text: str) -> None:
    with pytest.raises(InvalidFrontmatter):
        rewrite_frontmatter(text, lambda cm: set_value(cm, "b", 2))


def test_edit_frontmatter_writes_atomically_and_returns_the_new_hash(vault: Path) -> None:
    path = vault / "Engrams" / "Good.md"
    os.chmod(path, 0o640)
    before = path.read_bytes()
    new_hash = edit_frontmatter(vault, "Engrams/Good.md", lambda cm: add_tag(cm, "archived"),
                                expected_hash=content_hash(before))
    after = path.read_bytes()
    assert new_hash == content_hash(after) != content_hash(before)
    assert after == before.replace(b"  - memory\n", b"  - memory\n  - archived\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in path.parent.iterdir()) == ["Good.md"]  # no temp file left


@pytest.mark.skipif(not hasattr(os, "setxattr"), reason="extended attributes are Linux's here")
def test_an_edit_keeps_the_notes_extended_attributes(vault: Path) -> None:
    """Desktop tags, ratings and comments live in extended attributes (`user.xdg.tags`): the
    atomic write's new file had none, so every edit silently dropped them."""
    path = vault / "Engrams" / "Good.md"
    try:
        os.setxattr(path, "user.xdg.tags", b"work,later")
        os.setxattr(path, "user.xdg.comment", b"from the old laptop")
    except OSError:
        pytest.skip("this file system keeps no user extended attributes")
    edit_frontmatter(vault, "Engrams/Good.md", lambda cm: add_tag(cm, "archived"))
    assert "archived" in path.read_text(encoding="utf-8")
    assert os.getxattr(path, "user.xdg.tags") == b"work,later"
    assert os.getxattr(path, "user.xdg.comment") == b"from the old laptop"


def test_a_classic_mac_note_is_edited_in_its_own_line_ends(vault: Path) -> None:
    """Lines ending with a bare `\r`: the edit keeps every other byte and writes its new lines
    with `\r` too (this note's frontmatter was not even found before)."""
    text = "---\rtype: web  # mine\rtags: [a]\r---\r# Body\r\rkept\r"
    path = vault / "Mac.md"
    path.write_bytes(text.encode())
    edit_frontmatter(vault, "Mac.md", lambda cm: set_value(cm, "date created",
                                                            dt.date(2024, 1, 2)))
    assert path.read_bytes() == text.replace(
        "[a]\r", "[a]\rdate created: 2024-01-02\r").encode()


@pytest.mark.parametrize("text", [
    "---\rtype: web\r---\nbody\n",  # bare CRs in the frontmatter, LF after
    "---\ntype: web\rtags: [a]\n---\nbody\n",
])
def test_a_frontmatter_mixing_bare_cr_with_other_line_ends_is_refused(
    vault: Path, text: str
) -> None:
    path = vault / "Mixed.md"
    path.write_bytes(text.encode())
    with pytest.raises(InvalidFrontmatter, match="line end"):
        edit_frontmatter(vault, "Mixed.md", lambda cm: add_tag(cm, "x"))
    assert path.read_bytes() == text.encode()


def test_bare_crs_in_the_body_alone_do_not_stop_an_edit() -> None:
    text = "---\ntags: [a]\n---\nold\rmac\rlines\n"
    assert rewrite_frontmatter(text, lambda cm: add_tag(cm, "b")) == text.replace("a]", "a, b]")


def test_an_edit_keeps_a_hard_linked_note_one_file(vault: Path, tmp_path: Path) -> None:
    """A note with a second name (a hard link, e.g. the same note in two vaults) was replaced by
    a new file under one name: the other name kept the old text, silently split off."""
    path = vault / "Engrams" / "Good.md"
    other = tmp_path / "Good elsewhere.md"
    os.link(path, other)
    os.chmod(path, 0o640)
    edit_frontmatter(vault, "Engrams/Good.md", lambda cm: add_tag(cm, "archived"))
    assert "archived" in other.read_text(encoding="utf-8")
    assert os.path.samefile(path, other) and path.stat().st_nlink == 2
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in path.parent.iterdir()) == ["Good.md"]  # no copy left


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs RLIMIT_FSIZE (POSIX)")
def test_a_failed_in_place_write_puts_the_old_bytes_back(vault: Path, tmp_path: Path) -> None:
    """The in-place write of a hard-linked note fails halfway (here: the file-size limit, as a
    full disk would): the note keeps its old bytes under both names, and no copy is left."""
    path = vault / "Engrams" / "Good.md"
    os.link(path, tmp_path / "Good elsewhere.md")
    before = path.read_bytes()
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a kill
    resource.setrlimit(resource.RLIMIT_FSIZE, (len(before) + 10, limits[1]))
    try:
        with pytest.raises(OSError):
            edit_frontmatter(vault, "Engrams/Good.md",
                             lambda cm: set_value(cm, "description", "x" * 200))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
        signal.signal(signal.SIGXFSZ, previous)
    assert path.read_bytes() == before == (tmp_path / "Good elsewhere.md").read_bytes()
    assert sorted(p.name for p in path.parent.iterdir()) == ["Good.md"]


def test_an_edit_that_changes_nothing_does_not_touch_the_file(vault: Path) -> None:
    path = vault / "Engrams" / "Good.md"
    os.utime(path, (1_000_000, 1_000_000))
    digest = edit_frontmatter(vault, "Engrams/Good.md", lambda cm: add_tag(cm, "atomic"))
    assert digest == content_hash(path.read_bytes())
    assert path.stat().st_mtime == 1_000_000


def test_stale_expected_hash_is_a_conflict(vault: Path) -> None:
    before = (vault / "Engrams" / "Good.md").read_bytes()
    with pytest.raises(Conflict):
        edit_frontmatter(vault, "Engrams/Good.md", lambda cm: add_tag(cm, "x"),
                         expected_hash=content_hash(b"something else"))
    assert (vault / "Engrams" / "Good.md").read_bytes() == before


def test_a_change_between_read_and_write_is_a_conflict(vault: Path) -> None:
    path = vault / "Engrams" / "Good.md"

    def user_types_meanwhile(cm: CommentedMap) -> None:
        add_tag(cm, "archived")
        path.write_text(path.read_text(encoding="utf-8") + "\nnew paragraph\n", encoding="utf-8")

    with pytest.raises(Conflict):
        edit_frontmatter(vault, "Engrams/Good.md", user_types_meanwhile)
    assert path.read_text(encoding="utf-8").endswith("new paragraph\n")
    assert "archived" not in path.read_text(encoding="utf-8")
    assert sorted(p.name for p in path.parent.iterdir()) == ["Good.md"]


def test_editing_a_missing_note_is_not_found(vault: Path) -> None:
    with pytest.raises(NotFound):
        edit_frontmatter(vault, "Nope.md", lambda cm: None)


def test_move_to_trash_never_overwrites(vault: Path, write: Write) -> None:
    write("A/Same.md", "first")
    write("B/Same.md", "second")
    first = move_to_trash(vault, "A/Same.md", content_hash(b"first"))
    second = move_to_trash(vault, "B/Same.md", None)
    assert (first, second) == (".trash/Same.md", ".trash/Same 1.md")
    assert (vault / first).read_text() == "first" and (vault / second).read_text() == "second"
    assert not (vault / "A" / "Same.md").exists()


def test_move_to_trash_refuses_a_changed_file(vault: Path, write: Write) -> None:
    write("C.md", "now")
    with pytest.raises(Conflict):
        move_to_trash(vault, "C.md", content_hash(b"before"))
    assert (vault / "C.md").exists()
