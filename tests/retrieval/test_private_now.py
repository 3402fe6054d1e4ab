"""`SettingsNow`: a request costs a stat of ora.yaml (and of the ingest manifest), not a read
of the file (`retrieval/private_now.py`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sidecar.documents.manifest import manifest_path
from sidecar.retrieval import private_now
from sidecar.vault.vault_settings import VaultSettings, load_vault_settings


def save_settings(vault: Path, patterns: list[str]) -> None:
    """ora.yaml with these `private` folders, saved by rename as an editor saves it."""
    temporary = vault / ".ora.yaml.tmp"
    temporary.write_text("private:\n" + "".join(f"  - {p}\n" for p in patterns),
                         encoding="utf-8")
    os.replace(temporary, vault / "ora.yaml")


def test_ora_yaml_is_read_again_only_when_it_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A request costs a stat of ora.yaml, not a read: the settings are read again when the
    file changed, and a missing file at most once a MISSING_RECHECK_S (what its settings are
    changes with time: `load_vault_settings`)."""
    reads: list[Path] = []

    def counted(vault: Path, data: Path | None = None) -> VaultSettings:
        reads.append(vault)
        return load_vault_settings(vault, data)

    class Clock:
        now = 100.0

        def monotonic(self) -> float:
            return self.now

    clock = Clock()
    monkeypatch.setattr(private_now, "load_vault_settings", counted)
    monkeypatch.setattr(private_now, "time", clock)
    save_settings(tmp_path, ["Health/"])
    reader = private_now.SettingsNow(tmp_path)
    assert all(reader.private_paths()("health/Dose.md") for _ in range(3))
    assert len(reads) == 1
    save_settings(tmp_path, ["Heaven/"])  # the same size, saved by rename
    assert reader.private_paths()("Heaven/b0.md")
    assert not reader.private_paths()("Health/Dose.md")
    assert len(reads) == 2
    (tmp_path / "ora.yaml").unlink()
    reader.settings()
    reader.settings()
    assert len(reads) == 3
    clock.now += private_now.MISSING_RECHECK_S
    reader.settings()
    assert len(reads) == 4


def test_a_note_ingested_from_a_document_is_private_once_the_manifest_names_a_private_one(
    tmp_path: Path,
) -> None:
    page = "Resources/Report/Report - page 1.md"
    save_settings(tmp_path, ["Papers/"])
    reader = private_now.SettingsNow(tmp_path)
    assert reader.private_paths()("Papers/Report.pdf") and not reader.private_paths()(page)
    manifest = manifest_path(tmp_path)
    manifest.parent.mkdir()
    manifest.write_text(json.dumps({"documents": {"Papers/Report.pdf": {
        "sha256": "0" * 64, "notes": {page: "1" * 64}}}}), encoding="utf-8")
    assert reader.private_paths()(page)
