"""Which files are notes, safe vault paths, and wikilink resolution."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sidecar.errors import BadRequest
from sidecar.lint.diagnostics import LintContext, lint_text
from sidecar.vault.links import NameIndex, link_target, parse_wikilink
from sidecar.vault.scan import is_ignored, iter_note_paths, normalise_rel


def test_iter_note_paths_is_sorted_and_skips_dot_folders_and_other_files(tmp_path: Path) -> None:
    for rel in ["b.md", "A/a.md", ".obsidian/x.md", ".ora/y.md", ".trash/z.md", "A/.hidden/h.md",
                "img.png", "notes.txt", "A/.dot.md"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x", encoding="utf-8")
    assert list(iter_note_paths(tmp_path)) == ["A/a.md", "b.md"]


def test_symlinks_are_not_notes(tmp_path: Path) -> None:
    (tmp_path / "real.md").write_text("x", encoding="utf-8")
    os.symlink(tmp_path / "real.md", tmp_path / "link.md")
    os.symlink(tmp_path, tmp_path / "loop")
    assert list(iter_note_paths(tmp_path)) == ["real.md"]


@pytest.mark.parametrize(("rel", "ignored"), [
    ("Engrams/Note.md", False), ("Note.MD", False), (".obsidian/app.md", True),
    ("A/.trash/x.md", True), ("image.png", True), ("", True),
])
def test_is_ignored(rel: str, ignored: bool) -> None:
    assert is_ignored(rel) is ignored


@pytest.mark.parametrize("rel", ["../outside.md", "/etc/passwd", "a/../../b.md", ""])
def test_paths_that_leave_the_vault_are_refused(rel: str) -> None:
    with pytest.raises(BadRequest):
        normalise_rel(rel)


def test_backslashes_become_slashes() -> None:
    assert normalise_rel("Engrams\\Note.md") == "Engrams/Note.md"


@pytest.mark.parametrize(("value", "target"), [
    ("[[Note]]", "Note"), ("[[Note#Heading|alias]]", "Note"), ("[[Folder/Note|x]]", "Folder/Note"),
    ("[[Note^block]]", "Note"), ("![[Embed]]", "Embed"), (" [[Spaced]] ", "Spaced"),
    ("[[#only heading]]", None), ("Note", None), ("[[a]] and [[b]]", None), ("[[]]", None),
])
def test_parse_wikilink(value: str, target: str | None) -> None:
    assert parse_wikilink(value) == target


def test_link_target_accepts_bare_names() -> None:
    assert link_target("Learning Lab") == "Learning Lab"
    assert link_target("[[Learning Lab|lab]]") == "Learning Lab"
    assert link_target("[[broken") is None


def test_name_index_resolves_like_obsidian() -> None:
    names = NameIndex(["Engrams/Sleep.md", "Archive/Old/Sleep.md", "Matrices/Hub.md", "Hub2.md"])
    assert names.resolve("sleep") == "Engrams/Sleep.md"  # shortest path wins
    assert names.resolve("Archive/Old/Sleep") == "Archive/Old/Sleep.md"
    assert names.resolve("Matrices/Hub.md") == "Matrices/Hub.md"
    assert names.resolve("HUB") == "Matrices/Hub.md"
    assert names.resolve("Missing") is None
    assert names.resolve("Other/Hub") is None
    assert names.resolve_link("[[Hub#Part|h]]") == "Matrices/Hub.md"
    assert "matrices/hub.md" in names and len(names) == 4


def test_aliases_resolve_links_after_file_names_and_paths() -> None:
    names = NameIndex(
        ["Books/Deep Work.md", "People/Cal Newport.md", "DW.md"],
        {"Books/Deep Work.md": ("DW", "Newport 2016"), "People/Cal Newport.md": ("Cal",)},
    )
    assert names.resolve_link("[[Newport 2016]]") == "Books/Deep Work.md"
    assert names.resolve_link("[[cal|the author]]") == "People/Cal Newport.md"
    assert names.resolve("DW") == "DW.md"  # a file name wins over another note's alias
    assert names.resolve("Nobody") is None


def test_lint_resolves_links_to_aliases_read_from_the_vault(tmp_path: Path) -> None:
    (tmp_path / "Books").mkdir()
    (tmp_path / "Books" / "Deep Work.md").write_text(
        "---\ntype: matrix\naliases: Newport 2016, DW\n---\nbody\n", encoding="utf-8")
    # a matrix: a nexus names one (nexus-not-matrix)
    ctx = LintContext.for_vault(tmp_path, data=None)
    text = ("---\nnexus: ['[[Newport 2016]]', DW]\ntype: engram\ntags: []\n"
            "date created: 2024-01-01\ndate modified: 2024-01-01\n---\nbody\n")
    assert lint_text(text, "n.md", ctx) == []
    assert [d.code for d in lint_text(text.replace("DW]", "Nope]"), "n.md", ctx)] == [
        "link-broken"]
