"""Symbolic links are never followed: not a linked folder anywhere along a path, not a linked
note. Reads refuse or skip them, writes refuse them, and a linked note stays a link."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.errors import BadRequest
from sidecar.lint.diagnostics import fix_dates
from sidecar.vault.edit import edit_frontmatter
from sidecar.vault.frontmatter_edit import add_tag
from sidecar.vault.note import read_note
from sidecar.vault.scan import iter_note_paths, symlink_in, vault_path
from sidecar.vault.trash import move_to_trash

SECRET = "---\ntype: engram\ntags:\n  - memory\n---\n# Secret\n\nOutside the vault.\n"


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """VAULT with `Linked/` → a folder outside it and `Alias.md` → a note inside it."""
    vault, outside = tmp_path / "vault", tmp_path / "elsewhere"
    (vault / "Notes").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.md").write_text(SECRET, encoding="utf-8")
    (vault / "Notes" / "Real.md").write_text(SECRET, encoding="utf-8")
    (vault / "Linked").symlink_to(outside, target_is_directory=True)
    (vault / "Notes" / "Deep").symlink_to(outside, target_is_directory=True)
    (vault / "Alias.md").symlink_to(vault / "Notes" / "Real.md")
    return vault


@pytest.mark.parametrize(
    ("rel", "link"),
    [("Linked/secret.md", "Linked"), ("Notes/Deep/secret.md", "Notes/Deep"),
     ("Alias.md", "Alias.md"), ("Notes/Real.md", None), ("Notes/New/x.md", None)],
)
def test_the_first_linked_component_of_a_path_is_found(linked: Path, rel: str,
                                                       link: str | None) -> None:
    assert symlink_in(linked, rel) == link


def test_notes_behind_links_are_not_notes_of_the_vault(linked: Path) -> None:
    assert list(iter_note_paths(linked)) == ["Notes/Real.md"]
    for rel in ("Linked/secret.md", "Notes/Deep/secret.md", "Alias.md"):
        with pytest.raises(BadRequest, match="symbolic link"):
            vault_path(linked, rel)
        with pytest.raises(BadRequest, match="symbolic link"):
            read_note(linked, rel, 1_000_000)


@pytest.mark.parametrize("rel", ["Linked/secret.md", "Notes/Deep/secret.md"])
def test_no_write_goes_through_a_linked_folder(linked: Path, rel: str) -> None:
    secret = linked.parent / "elsewhere" / "secret.md"
    with pytest.raises(BadRequest):
        edit_frontmatter(linked, rel, lambda cm: add_tag(cm, "archived"))
    with pytest.raises(BadRequest):
        fix_dates(linked, rel)
    with pytest.raises(BadRequest):
        move_to_trash(linked, rel, None)
    assert secret.read_text(encoding="utf-8") == SECRET
    assert not (linked / ".trash").exists()


def test_a_linked_note_is_refused_and_stays_a_link(linked: Path) -> None:
    alias = linked / "Alias.md"
    with pytest.raises(BadRequest, match="symbolic link"):
        edit_frontmatter(linked, "Alias.md", lambda cm: add_tag(cm, "archived"))
    with pytest.raises(BadRequest, match="symbolic link"):
        move_to_trash(linked, "Alias.md", None)
    assert alias.is_symlink()
    assert (linked / "Notes" / "Real.md").read_text(encoding="utf-8") == SECRET
