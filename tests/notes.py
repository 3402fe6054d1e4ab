"""A test vault written from a mapping of note paths to their text (or raw bytes), and files
made immutable for the tests of writes refused."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest


def write_notes(root: Path, notes: Mapping[str, str | bytes]) -> Path:
    """Write each note at `root / path`, making its folders; text is written as UTF-8."""
    for rel, text in notes.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return root


def tide_vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A vault of six small notes and its data folder, with the packaged int8 embedder (the
    disk-error tests run `ora index` on it in a child process with a file-size limit)."""
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))
    vault = write_notes(tmp_path / "vault", {
        f"Notes/Tide {n}.md": f"# Tide {n}\n\nThe tides of harbour {n}.\n" for n in range(6)})
    return vault, tmp_path / "data"


@contextlib.contextmanager
def immutable(path: Path) -> Iterator[None]:
    """`chattr +i` on `path` (a file or a folder; root on ext4 and the like) for the block;
    skips the test where the file system or user cannot."""
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(path)],
                                        capture_output=True).returncode:
        pytest.skip("cannot make a file immutable here")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(path)], check=True)
