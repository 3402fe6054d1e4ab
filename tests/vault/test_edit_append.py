"""Notes Ora writes itself (chat notes, the supervision log): created without ever overwriting,
appended to with every existing byte kept, in the file's own line endings, atomically."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from ruamel.yaml.comments import CommentedMap

from sidecar.errors import Conflict
from sidecar.vault.edit import append_to_note
from sidecar.vault.frontmatter_edit import add_tag
from sidecar.vault.write import content_hash, create_note

CRLF = "---\r\ntype: chat  # mine\r\ntags: [a]\r\n---\r\n# Talk\r\n\r\nkept   as is\r\n"


def test_create_note_never_overwrites(tmp_path: Path) -> None:
    digest = create_note(tmp_path, "Chats/Ora/a.md", "# A\n")
    assert (tmp_path / "Chats/Ora/a.md").read_text() == "# A\n"
    assert digest == content_hash(b"# A\n")
    with pytest.raises(Conflict):
        create_note(tmp_path, "Chats/Ora/a.md", "# other\n")
    assert (tmp_path / "Chats/Ora/a.md").read_text() == "# A\n"
    assert [p.name for p in (tmp_path / "Chats/Ora").iterdir()] == ["a.md"]  # no temp left


@pytest.mark.parametrize("umask", [0o077, 0o022, 0o002])
def test_a_created_note_gets_the_mode_the_users_umask_gives_new_files(
    tmp_path: Path, umask: int
) -> None:
    """As a note Obsidian creates: a user whose umask keeps files to themselves (077) must not
    find a private conversation's chat note readable by every account (it was always 0644)."""
    old = os.umask(umask)
    try:
        create_note(tmp_path, "Chats/Ora/a.md", "# A\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "Chats/Ora/a.md").stat().st_mode) == 0o666 & ~umask


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_append_keeps_every_byte_and_the_line_endings(tmp_path: Path, newline: str) -> None:
    """CRLF, and classic Mac's bare CR (which got `\n` lines appended, and its frontmatter
    unread)."""
    text = CRLF.replace("\r\n", newline)
    path = tmp_path / "t.md"
    path.write_bytes(text.encode())

    def private(cm: CommentedMap) -> None:
        add_tag(cm, "private")

    read, new = append_to_note(tmp_path, "t.md", "## You\n\nhello\n", private)
    data = path.read_bytes()
    assert read == content_hash(text.encode()) and new == content_hash(data)
    expected = CRLF.replace("[a]", "[a, private]") + "\r\n## You\r\n\r\nhello\r\n"
    assert data.decode() == expected.replace("\r\n", newline)


def test_append_refuses_a_note_that_changed(tmp_path: Path) -> None:
    path = tmp_path / "t.md"
    path.write_text("# T\n")
    with pytest.raises(Conflict):
        append_to_note(tmp_path, "t.md", "more\n", expected_hash=content_hash(b"# other\n"))
    assert path.read_text() == "# T\n"
