"""Fixtures for the vault tests: a small throw-away vault and a note writer."""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_VAULT = ROOT / "examples" / "vault"

GOOD_NOTE = """---
nexus:
  - "[[Hub]]"
type: engram
subtype: fact
tags:
  - atomic
  - memory
date created: 2024-01-02
date modified: 2024-01-03
---
# A good note

Body text.
"""

HUB_NOTE = """---
nexus: []
type: matrix
project_type: knowledge
tags: [compound]
date created: 2024-01-01
date modified: 2024-01-01
---
# Hub
"""


_MODIFIED = re.compile(rb"^date modified: (\d{4}-\d{2}-\d{2})", re.M | re.I)


def as_kept_by_lint(path: Path) -> None:
    """Give a note written with a `date modified` that day's file time, as a vault kept by
    `ora lint --fix` has: otherwise every fixture note would be `date-modified-stale`."""
    found = _MODIFIED.search(path.read_bytes())
    if found:
        noon = dt.datetime.fromisoformat(found.group(1).decode() + "T12:00").timestamp()
        os.utime(path, (noon, noon))


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A vault with a hub matrix and one good engram that links to it."""
    root = tmp_path / "vault"
    (root / "Engrams").mkdir(parents=True)
    (root / "Matrices").mkdir()
    (root / "Matrices" / "Hub.md").write_text(HUB_NOTE, encoding="utf-8")
    (root / "Engrams" / "Good.md").write_text(GOOD_NOTE, encoding="utf-8")
    for note in ("Matrices/Hub.md", "Engrams/Good.md"):
        as_kept_by_lint(root / note)
    return root


@pytest.fixture
def write(vault: Path) -> Callable[[str, str | bytes], str]:
    """Write a note (text or raw bytes) into the vault; returns its vault-relative path."""

    def _write(rel: str, content: str | bytes) -> str:
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))
        as_kept_by_lint(path)
        return rel

    return _write
