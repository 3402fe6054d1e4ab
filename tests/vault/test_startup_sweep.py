"""At start-up (`ora serve`, `ora watch`, `ora index`: the index's first reconcile) the whole
vault is swept of the hidden copies writes killed mid-way left (`temp_files.sweep_vault`), not only
a folder a later write happens in: the same rules (stale copies only, kept in the trash a note
of their folder goes to, a private folder's own), and excluded folders left alone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sidecar.index import Index, open_index
from sidecar.models.embedder import Embedder
from sidecar.settings import make_config
from sidecar.vault import temp_files
from sidecar.vault.trash_place import TRASH_FOLDER

NOTE = b"---\ntype: engram\n---\n# Note\n\nA note about kettles.\n"
SYNCS = b"---\ntype: engram\n---\n# Note\n\nA note about kettles, and the laptop's edit.\n"
TEMP = ".n.md.0123abcd.ora-tmp"  # what a write of n.md killed just after its swap left


def _vault(tmp_path: Path) -> Path:
    """A vault with a killed write's copy (another program's save) beside a note in the top
    folder, a plain folder, a private folder and an excluded one; none written since."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "ora.yaml").write_text("private:\n  - Health/\nexclude:\n  - Scratch/\n",
                                    encoding="utf-8")
    for folder in ("", "Notes", "Health/Labs", "Scratch"):
        (vault / folder).mkdir(parents=True, exist_ok=True)
        (vault / folder / "n.md").write_bytes(NOTE)
        (vault / folder / TEMP).write_bytes(_syncs(folder))
    return vault


def _syncs(folder: str) -> bytes:
    """The save a killed write's copy in `folder` holds (each its own: a copy whose bytes the
    trash holds already is deleted, not kept twice)."""
    return SYNCS + f"In {folder or 'the top folder'}.\n".encode()


@pytest.fixture
def started(tmp_path: Path, embedder: Embedder,
            monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Index]]:
    """The vault of `_vault`, its copies stale, and a writer index on it that has made its
    start-up reconcile, as `ora serve`, `watch` and `index` do first."""
    vault = _vault(tmp_path)
    monkeypatch.setattr(temp_files, "TEMP_STALE_S", -1.0)  # every copy is old enough
    index = open_index(make_config(vault, tmp_path / "data"), writer=True, embedder=embedder)
    try:
        index.reconcile()
        yield vault, index
    finally:
        index.close()


def _trashes(vault: Path) -> dict[str, bytes]:
    """Every file in any `.trash/` of the vault, by vault-relative path."""
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in vault.rglob("*")
            if p.is_file() and TRASH_FOLDER in p.relative_to(vault).parts}


def test_the_start_up_reconcile_sweeps_every_folder_of_the_vault(
    started: tuple[Path, Index],
) -> None:
    # Before: the copies stayed until a later write in their own folder, which for most
    # folders never came.
    vault, _ = started
    assert not (vault / TEMP).exists()
    assert not (vault / "Notes" / TEMP).exists()
    assert not (vault / "Health/Labs" / TEMP).exists()


def test_the_start_up_sweep_keeps_a_private_folders_copy_inside_it(
    started: tuple[Path, Index],
) -> None:
    vault, _ = started
    assert _trashes(vault) == {".trash/n.md": _syncs(""), ".trash/n 1.md": _syncs("Notes"),
                               "Health/.trash/n.md": _syncs("Health/Labs")}


def test_the_start_up_sweep_leaves_excluded_folders_alone(started: tuple[Path, Index]) -> None:
    vault, _ = started
    assert (vault / "Scratch" / TEMP).read_bytes() == _syncs("Scratch")
