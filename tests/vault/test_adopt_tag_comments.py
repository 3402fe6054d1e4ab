"""`ora adopt` respells a note's `tags` list where it stands: the user's comments in it (on an
item, or a line before the first item) and every unchanged byte are kept, and an edit that
cannot be made says what would not read back."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.errors import InvalidFrontmatter
from sidecar.lint.adopt import plan_adoption
from sidecar.lint.adopt_journal import apply_adoption
from sidecar.vault.frontmatter_edit import rewrite_frontmatter, set_value
from tests.notes import write_notes


def _tags_block(text: str) -> str:
    return text.split("tags:", 1)[1].split("\ntype:", 1)[0]


@pytest.mark.parametrize(("tags", "after"), [
    ("\n  - '#Health'\n  - work # imported from Evernote 2019\n",
     "\n  - 'health'\n  - work # imported from Evernote 2019\n"),
    ("\n  # my tags\n  - '#Health'\n  - work\n", "\n  # my tags\n  - 'health'\n  - work\n"),
    ("\n- '#Health'  # first\n- '#health' # again\n- work\t# w\n",
     "\n- 'health'   # first\n- work\t# w\n"),
    (" ['#Health', work]  # inline\n", " ['health', work]   # inline\n"),
])
def test_respelling_tags_keeps_the_comments_in_the_list(
        tmp_path: Path, tags: str, after: str) -> None:
    vault = write_notes(tmp_path, {"N.md": f"---\ntags:{tags}---\nb\n"})
    plan = plan_adoption(vault, data=None)
    assert not plan.skipped, plan.skipped
    assert plan.proposals[0].values["tags"] == ["health", "work"]
    apply_adoption(vault, plan.proposals)
    text = (vault / "N.md").read_text(encoding="utf-8")
    assert text.startswith(f"---\ntags:{after}type: ")
    assert _tags_block(text) == after.rstrip("\n")


def test_tags_folded_in_from_the_legacy_tag_go_at_the_end_of_the_list(tmp_path: Path) -> None:
    vault = write_notes(tmp_path, {"N.md": "---\ntags:\n  - a # mine\ntag: b\n---\nb\n"})
    plan = plan_adoption(vault, data=None)
    apply_adoption(vault, plan.proposals)
    text = (vault / "N.md").read_text(encoding="utf-8")
    assert text.startswith("---\ntags:\n  - a # mine\n  - b\n") and "tag:" not in text


def test_an_edit_that_would_not_read_back_says_what_failed() -> None:
    text = "---\ntype: engram\ntags: [memory]\n...\n---\n# Note\n"
    with pytest.raises(InvalidFrontmatter, match="no longer parse") as err:
        rewrite_frontmatter(text, lambda cm: set_value(cm, "date created", "2024"))
    assert "`...`" not in str(err.value)
