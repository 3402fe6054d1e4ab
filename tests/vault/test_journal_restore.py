"""An undo journal's entry puts a note's frontmatter back: byte for byte while the note is as Ora
wrote it, and, asked to keep edits, while it still begins with Ora's head and only what follows
changed (the conversation of a chat note went on): the head alone goes back, every other byte
stays. A head edited since is never spliced."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from sidecar.vault.frontmatter_edit import rewrite_frontmatter, set_value
from sidecar.vault.journal import head_values, restore_head, split_heads
from sidecar.vault.write import content_hash

NOTE = "Chats/Ora/c1.md"
BEFORE = ('---\ntype: chat\nnexus: []\ntags: []\nconversation: "c1"\nnamespace: "default"\n'
          "---\n# c1\n\n## You · 2026-01-10 08:40:12 UTC\n\nCold proofing takes 72 hours.\n")
IDS = ["b49d98bd9636a1f6", "81714072e38d20c7"]
KEYS = ["extracted"]  # what Ora's edit sets: an extraction's record
GONE_ON = ("date modified: 2026-12-04\ncluster: Bread\n",
           "\n## You · 2026-12-04 18:00:01 UTC\n\nWhat about spelt flour?\n")


def _record(cm: CommentedMap) -> None:
    set_value(cm, "extracted", CommentedSeq([DoubleQuotedScalarString(i) for i in IDS]))


def _entry(before: str, after: str, heads: tuple[str, str] | None = None) -> dict[str, Any]:
    before_head, after_head = heads or split_heads(before, after)
    return {"path": NOTE, "before_head": before_head, "after_head": after_head,
            "before_sha256": content_hash(before.encode()),
            "after_sha256": content_hash(after.encode())}


def _gone_on(text: str) -> str:
    """What Ora's append of a turn does to a chat note: keys added at the end of the
    frontmatter, a turn after the body."""
    keys, turn = GONE_ON
    return text.replace("\n---\n# c1", f"\n{keys}---\n# c1", 1) + turn


def _char_heads(before: str, after: str) -> tuple[str, str]:
    """Heads as journals held them before they ended at a line end: where the texts differ."""
    common = 0
    while before[-1 - common] == after[-1 - common]:
        common += 1
    return before[: len(before) - common], after[: len(after) - common]


@pytest.fixture
def note(tmp_path: Path) -> Path:
    (tmp_path / "Chats/Ora").mkdir(parents=True)
    return tmp_path / NOTE


def test_heads_end_at_a_line_end() -> None:
    after = rewrite_frontmatter(BEFORE, _record)
    before_head, after_head = split_heads(BEFORE, after)
    assert before_head.endswith('namespace: "default"\n')
    assert after_head.endswith(f'- "{IDS[1]}"\n')
    assert BEFORE[len(before_head):] == after[len(after_head):] == BEFORE.split("\n", 6)[6]
    assert split_heads(BEFORE, BEFORE) == ("", "")


@pytest.mark.parametrize("old_journal", [False, True])
def test_a_note_that_only_grew_after_the_head_gets_the_head_back_and_keeps_every_other_byte(
    note: Path, old_journal: bool,
) -> None:
    after = rewrite_frontmatter(BEFORE, _record)
    entry = _entry(BEFORE, after, _char_heads(BEFORE, after) if old_journal else None)
    note.write_text(_gone_on(after), encoding="utf-8")
    assert restore_head(note.parents[2], entry) == "edited"  # asked to keep nothing: untouched
    assert note.read_text(encoding="utf-8") == _gone_on(after)

    # Before: refused as "edited" for good, the head computed but never used.
    assert restore_head(note.parents[2], entry, keep_edits=KEYS) == "merged"
    assert note.read_text(encoding="utf-8") == _gone_on(BEFORE)


def test_an_edited_head_is_not_spliced(note: Path) -> None:
    after = rewrite_frontmatter(BEFORE, _record)
    edited = _gone_on(after).replace("tags: []", "tags: [bread]")
    note.write_text(edited, encoding="utf-8")
    assert restore_head(note.parents[2], _entry(BEFORE, after), keep_edits=KEYS) == "edited"
    assert note.read_text(encoding="utf-8") == edited


def test_a_splice_that_would_change_another_value_is_refused(note: Path) -> None:
    # An old journal's head ends inside the line of Ora's last id: had the user changed the
    # rest of that line, splicing the head back would carry it onto `namespace`.
    after = rewrite_frontmatter(BEFORE, _record)
    before_head, after_head = _char_heads(BEFORE, after)
    assert after_head.endswith(IDS[1]) and before_head.endswith("default")
    edited = after.replace(f'{IDS[1]}"\n', f'{IDS[1]}x"\n')
    note.write_text(edited, encoding="utf-8")
    entry = _entry(BEFORE, after, (before_head, after_head))
    assert restore_head(note.parents[2], entry, keep_edits=KEYS) == "edited"
    assert note.read_text(encoding="utf-8") == edited


def test_a_note_as_written_is_restored_byte_for_byte_and_one_as_before_is_unchanged(
    note: Path,
) -> None:
    after = rewrite_frontmatter(BEFORE, _record)
    entry = _entry(BEFORE, after)
    note.write_text(after, encoding="utf-8")
    assert restore_head(note.parents[2], entry, keep_edits=KEYS) == "restored"
    assert note.read_text(encoding="utf-8") == BEFORE
    assert restore_head(note.parents[2], entry, keep_edits=KEYS) == "unchanged"
    note.unlink()
    assert restore_head(note.parents[2], entry, keep_edits=KEYS) == "gone"


@pytest.mark.parametrize("old_journal", [False, True])
def test_the_heads_tell_the_values_an_edit_changed(old_journal: bool) -> None:
    after = rewrite_frontmatter(BEFORE, _record)
    entry = _entry(BEFORE, after, _char_heads(BEFORE, after) if old_journal else None)
    now = _gone_on(after).replace("tags: []", "tags: [bread]")  # an old head needs the note
    values = head_values(entry, now)
    assert values is not None
    before, written = values
    assert "extracted" not in before and written["extracted"] == IDS
    assert {k: v for k, v in written.items() if k != "extracted"} == before
