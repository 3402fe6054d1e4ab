"""Where an ingested document went is looked for (a walk over the private documents) only when a
document was seen changed, not at every request: a user who deletes the original PDF after its
ingest made every non-private request walk the vault (362 ms each on 20,000 notes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sidecar.documents import places
from sidecar.documents.ingest import apply_ingest, plan_ingest
from sidecar.documents.manifest import note_documents
from sidecar.vault.vault_settings import load_vault_settings

from .make_pdfs import one_page_pdf

DOC = "Papers/scan.pdf"


def test_a_deleted_document_is_looked_for_again_only_once_a_document_was_seen_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    vault = tmp_path / "vault"
    (vault / "Papers").mkdir(parents=True)
    (vault / "ora.yaml").write_text("private:\n  - Health/\n", encoding="utf-8")
    (vault / DOC).write_bytes(one_page_pdf("Some text about tides."))
    apply_ingest(vault, plan_ingest(vault, DOC, data=None), data=None)
    walks: list[Any] = []
    walk = places._moved_private
    monkeypatch.setattr(places, "_moved_private", lambda *a: walks.append(a) or walk(*a))
    privacy = places.DocumentPrivacy(vault)
    settings = load_vault_settings(vault, None)

    (vault / DOC).unlink()  # the original deleted after its ingest
    for _ in range(5):
        assert privacy.private_notes(settings) == frozenset()
    assert len(walks) == 1

    (vault / "Health").mkdir()  # the same bytes put back, in a private folder
    (vault / "Health/scan.pdf").write_bytes(one_page_pdf("Some text about tides."))
    places.documents_seen()
    assert privacy.private_notes(settings) == set(note_documents(vault)) and len(walks) == 2
