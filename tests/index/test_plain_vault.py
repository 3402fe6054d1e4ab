"""examples/plain-vault, an everyday Obsidian vault with no Ora schema: every note is indexed
(except Obsidian's Excluded files), answers come from untyped notes, the journal tagged
#private inline stays out of non-private search, and lint finds no error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sidecar.lint.diagnostics import lint_vault
from sidecar.models.embedder import Embedder
from sidecar.retrieval.search import SearchOptions, search_sync

from .conftest import OpenIndex

ROOT = Path(__file__).resolve().parents[2]
PLAIN = ROOT / "examples" / "plain-vault"
QUESTIONS = json.loads((ROOT / "bench/data/plain_vault_questions.json").read_text("utf-8"))


@pytest.mark.slow
def test_the_plain_vault_indexes_every_note_and_answers_from_them(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder
) -> None:
    vault = tmp_path / "plain-vault"
    shutil.copytree(PLAIN, vault)
    notes = {p.relative_to(vault).as_posix() for p in vault.rglob("*.md")}
    notes = {n for n in notes if not n.startswith("Templates/")}  # Obsidian's Excluded files
    index = open_idx(vault)
    summary = index.reconcile()
    assert summary["errors"] == [] and summary["files"] == len(notes) >= 40
    rows = index.ledger.rows(index.namespace)
    assert {path for path, row in rows.items() if row.chunk_ids} == notes
    assert not [d for d in lint_vault(vault, data=None) if d.severity == "error"]

    options = SearchOptions(k=10, rerank=False)
    found = 0
    for question in QUESTIONS["questions"][:10]:
        paths = [r["path"] for r in search_sync(index, embedder, None, question["q"],
                                                options)["results"]]
        found += any(p in question["expected"] for p in paths[:5])
    assert found >= 8

    journal = "Journal/2026-11 November.md"
    public = search_sync(index, embedder, None, "Parkinson's appointment with Dad", options)
    assert journal not in {r["path"] for r in public["results"]}
    private = search_sync(index, embedder, None, "Parkinson's appointment with Dad",
                          SearchOptions(k=10, rerank=False, private=True))
    assert journal in [r["path"] for r in private["results"][:3]]
