"""A document moved into a private folder after its ingest takes its page notes out of every
non-private answer: the index files them private, and an answer asked before the index planned
them again leaves them out too. Found by a user test: the notes' `source_path` still named the
public path, so they stayed in search after the move, a rename, and `ora index`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sidecar.documents.ingest import apply_ingest, plan_ingest
from sidecar.documents.places import documents_seen
from sidecar.retrieval.private_now import settings_now

from .conftest import cli
from .make_pdfs import one_page_pdf

NOTE = "Resources/scan/scan - page 1.md"


def _ingested_public(vault: Path) -> None:
    (vault / "Papers").mkdir(parents=True)
    (vault / "Health").mkdir()
    (vault / "ora.yaml").write_text("private:\n  - Health/\n", encoding="utf-8")
    (vault / "Papers/scan.pdf").write_bytes(one_page_pdf("Diagnosis zqxmoved tumour marker."))
    assert apply_ingest(vault, plan_ingest(vault, "Papers/scan.pdf", data=None),
                        data=None)["written"] == [NOTE]


def test_a_document_moved_into_a_private_folder_has_its_notes_filed_private(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    vault, data = tmp_path / "vault", str(tmp_path / "data")
    _ingested_public(vault)
    cli(capsys, "index", str(vault), "--data", data)
    assert NOTE in json.dumps(cli(capsys, "search", str(vault), "zqxmoved", "--data", data))
    for old, new in (("Papers/scan.pdf", "Health/scan.pdf"),
                     ("Health/scan.pdf", "Health/renamed.pdf")):
        (vault / old).rename(vault / new)
        cli(capsys, "index", str(vault), "--data", data)
        found = cli(capsys, "search", str(vault), "zqxmoved", "--data", data)
        assert "zqxmoved" not in json.dumps(found["results"]), (new, found["results"])
        private = cli(capsys, "search", str(vault), "zqxmoved", "--private", "--data", data)
        assert [r["path"] for r in private["results"]][:1] == [NOTE]
        assert all(r["private"] for r in private["results"] if r["path"] == NOTE)


def test_a_note_whose_document_moved_into_a_private_folder_is_private_now_before_any_index(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    _ingested_public(vault)
    now = settings_now(vault, None)
    assert not now.private_paths()(NOTE)
    (vault / "Papers/scan.pdf").rename(vault / "Health/scan.pdf")
    assert now.private_paths()(NOTE)
    (vault / "Health/scan.pdf").rename(vault / "Papers/again.pdf")  # public again
    assert now.private_paths()(NOTE)  # until a document is seen changed: errs to privacy
    documents_seen()  # the watcher's (or the editor's) event of the move
    assert not now.private_paths()(NOTE)
