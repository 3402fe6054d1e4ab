"""A save that a write racing another program keeps aside (`write._keep_other`,
`_keep_removed`) goes to the trash its note goes to (`trash_place.trash_of`): for a note of a
private folder the `.trash/` at the top of that folder, so its text never leaves where the
private rule covers it (docs/privacy.md)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from sidecar.errors import Conflict
from sidecar.vault import write
from sidecar.vault.edit import edit_frontmatter
from sidecar.vault.frontmatter_edit import set_value
from sidecar.vault.trash_place import TRASH_FOLDER
from sidecar.vault.write import atomic_write, content_hash

ORIGINAL = b"---\ntype: engram\n---\n# Labs\n\nThe text Ora read.\n"
ORAS = b"---\ntype: engram\nchecked: yes\n---\n# Labs\n\nThe text Ora read.\n"
SYNCS = b"---\ntype: engram\n---\n# Labs\n\nThe text Ora read, and the laptop's edit.\n"
LATER = SYNCS + b"\nThe editor's newest save.\n"
REL = "Health/Labs/Note.md"

needs_exchange = pytest.mark.skipif(getattr(write, "_EXCHANGE", None) is None,
                                    reason="no atomic exchange on this system")


def _private_vault(tmp_path: Path) -> Path:
    """A vault whose `Health/` is private, holding REL (ORIGINAL)."""
    vault = tmp_path / "vault"
    (vault / "Health/Labs").mkdir(parents=True)
    (vault / "ora.yaml").write_text("private:\n  - Health/\n", encoding="utf-8")
    (vault / REL).write_bytes(ORIGINAL)
    return vault


def _rename_save(path: Path, data: bytes) -> Callable[[], None]:
    """A program saving `data` by renaming a new file over `path`."""
    def save() -> None:
        tmp = path.with_name(f".{path.name}.sync-tmp")
        tmp.write_bytes(data)
        os.rename(tmp, path)
    return save


def _sync_then(path: Path, monkeypatch: pytest.MonkeyPatch, then: Callable[[], None]) -> None:
    """A sync tool's rename (SYNCS) lands just before Ora's swap, and `then` just after it."""
    real, calls = write._exchange, [0]

    def exchange(a: Path, b: Path) -> bool:
        calls[0] += 1
        if calls[0] == 1:
            _rename_save(path, SYNCS)()
        swapped = real(a, b)
        if calls[0] == 1:
            then()
        return swapped

    monkeypatch.setattr(write, "_exchange", exchange)


def _trashes(vault: Path) -> dict[str, bytes]:
    """Every file in any `.trash/` of the vault, by vault-relative path."""
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in vault.rglob("*")
            if p.is_file() and TRASH_FOLDER in p.relative_to(vault).parts}


# Ora's writes of a note: the writer itself, and a frontmatter edit (adopt, triage, lint fix).
WRITES: dict[str, Callable[[Path], object]] = {
    "atomic-write": lambda vault: atomic_write(vault / REL, ORAS, content_hash(ORIGINAL), REL),
    "edit": lambda vault: edit_frontmatter(vault, REL, lambda cm: set_value(cm, "checked", "yes")),
}


@needs_exchange
@pytest.mark.parametrize("how", sorted(WRITES))
def test_a_private_notes_displaced_save_is_kept_in_its_private_folders_trash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str,
) -> None:
    # Before: the sync tool's save went to the vault's top-level .trash/, outside Health/.
    vault = _private_vault(tmp_path)
    _sync_then(vault / REL, monkeypatch, _rename_save(vault / REL, LATER))
    with pytest.raises(Conflict, match=r"the note holds one.*kept in Health/\.trash/Note\.md"):
        WRITES[how](vault)
    assert (vault / REL).read_bytes() == LATER
    assert _trashes(vault) == {"Health/.trash/Note.md": SYNCS}


@needs_exchange
def test_a_private_note_deleted_during_a_write_leaves_its_text_in_its_private_trash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: the text the note held went to the vault's top-level .trash/.
    vault = _private_vault(tmp_path)
    _sync_then(vault / REL, monkeypatch, (vault / REL).unlink)
    with pytest.raises(Conflict, match=r"removed.*kept in Health/\.trash/Note\.md"):
        WRITES["atomic-write"](vault)
    assert not (vault / REL).exists()
    assert _trashes(vault) == {"Health/.trash/Note.md": SYNCS}


@needs_exchange
def test_a_public_notes_displaced_save_still_goes_to_the_vaults_trash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    vault = _private_vault(tmp_path)
    (vault / "Notes").mkdir()
    path = vault / "Notes/Note.md"
    path.write_bytes(ORIGINAL)
    _sync_then(path, monkeypatch, _rename_save(path, LATER))
    with pytest.raises(Conflict, match=r"kept in \.trash/Note\.md"):
        atomic_write(path, ORAS, content_hash(ORIGINAL), "Notes/Note.md")
    assert _trashes(vault) == {".trash/Note.md": SYNCS}


@needs_exchange
def test_a_file_written_without_a_vault_path_keeps_its_displaced_save_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ora's own files (the journal, the manifest) are written without a vault-relative path:
    another Ora process's save of one stays in their folder's `.trash/`, not the vault's, where
    the user would find Ora's bookkeeping among their deleted notes."""
    vault = _private_vault(tmp_path)
    (vault / ".obsidian").mkdir()
    path = vault / ".ora-journal/ingested.json"
    path.parent.mkdir()
    path.write_bytes(ORIGINAL)
    _sync_then(path, monkeypatch, _rename_save(path, LATER))
    with pytest.raises(Conflict):
        atomic_write(path, ORAS, content_hash(ORIGINAL))
    assert _trashes(vault) == {".ora-journal/.trash/ingested.json": SYNCS}
