"""`ora related` (no server, no watcher) leaves out notes changed since `ora index`, as `ora
search` does: a note tagged private since is neither a result nor named in a result's
relationships outside private mode, and how many were left out is said on stderr, naming none."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sidecar.cli import main

from .conftest import IndexVault
from .test_related_relationships import GREEN, NOTES, OOLONG, SOURCE


@pytest.fixture(autouse=True)
def _int8(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")  # the embedder the index was built with


def _related(vault: str, capsys: pytest.CaptureFixture[str],
             *flags: str) -> tuple[dict[str, dict[str, Any]], str]:
    assert main(["related", vault, SOURCE, "--json", *flags]) == 0
    out = capsys.readouterr()
    return {r["path"]: r for r in json.loads(out.out)["results"]}, out.err


def test_cli_related_leaves_out_and_names_no_note_tagged_private_since_indexing(
    index_vault: IndexVault, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = index_vault(NOTES).config.vault
    results, err = _related(str(vault), capsys)
    assert OOLONG in results and results[GREEN]["relationships"] == {"extends": [OOLONG]}
    assert "left out" not in err
    with (vault / OOLONG).open("a", encoding="utf-8") as file:
        file.write("\nSecret now. #private\n")
    results, err = _related(str(vault), capsys)
    assert OOLONG not in results and results[GREEN]["relationships"] == {}
    assert OOLONG not in json.dumps(results) and OOLONG not in err
    assert "1 note left out" in err and "ora index" in err


def test_cli_related_leaves_out_a_note_edited_since_indexing_in_private_mode_too(
    index_vault: IndexVault, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its lines moved: citing its closest chunk would cite lines it no longer holds."""
    vault = index_vault(NOTES).config.vault
    file = vault / GREEN
    file.write_text("a\nb\nc\n" + file.read_text(encoding="utf-8"), encoding="utf-8")
    results, err = _related(str(vault), capsys, "--private")
    assert GREEN not in results and "1 note left out" in err
