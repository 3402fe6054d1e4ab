"""A private document's notes (`ora ingest`) lie where its private rule covers them, beside it,
and are private in search as soon as the document is: made private after ingest, its notes
(then in `Resources/`) leave every non-private answer at once, and ingest moves them beside it.
Each was found by a user test: the notes stayed public in search ("nothing to write: the notes
are up to date"), and a private document's text was copied out of its private folder (into
`Resources/`, and into the journal on a re-ingest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sidecar.documents.ingest import apply_ingest, plan_ingest
from sidecar.errors import Conflict

from .conftest import cli
from .make_pdfs import one_page_pdf


def _holding(vault: Path, word: str) -> list[str]:
    """The files of the vault holding `word`, but for the trash."""
    return sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*")
                  if p.is_file() and ".trash" not in p.parts and word.encode() in p.read_bytes())


def test_a_document_made_private_after_ingest_has_private_notes_at_once_then_beside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    vault, data = tmp_path / "vault", str(tmp_path / "data")
    (vault / "Medical").mkdir(parents=True)
    (vault / "Medical/scan.pdf").write_bytes(one_page_pdf(
        "Diagnosis: zqxword carcinoma, stage two.", title="zqxtitle scan"))
    (vault / "hello.md").write_text("# Hello\n\nA public note.\n", encoding="utf-8")
    cli(capsys, "ingest", str(vault), "Medical/scan.pdf", "--apply", "--data", data)
    old = "Resources/scan/scan - page 1.md"
    assert (vault / old).is_file()
    (vault / "ora.yaml").write_text("private:\n  - Medical/\n", encoding="utf-8")
    cli(capsys, "index", str(vault), "--data", data)
    for query in ("zqxword carcinoma", "zqxtitle"):
        found = cli(capsys, "search", str(vault), query, "--data", data)
        assert "zqx" not in json.dumps(found["results"]), found["results"]
        private = cli(capsys, "search", str(vault), query, "--private", "--data", data)
        assert [r["path"] for r in private["results"]][:1] == [old]

    plan = cli(capsys, "ingest", str(vault), "Medical/scan.pdf", "--data", data)
    new = "Medical/scan/scan - page 1.md"
    assert [n["path"] for n in plan["notes"]] == [new] and plan["stale"] == [old]
    done = cli(capsys, "ingest", str(vault), "Medical/scan.pdf", "--apply", "--data", data)
    assert done == {"written": [new], "trashed": [old]}
    assert "\ntags: [private]\n" in (vault / new).read_text(encoding="utf-8")
    assert _holding(vault, "zqx") == ["Medical/scan.pdf", new]
    assert cli(capsys, "ingest", str(vault), "Medical/scan.pdf", "--data", data)["unchanged"]
    undone = cli(capsys, "ingest", str(vault), "--undo", "--data", data)
    assert sorted(undone["undone"]) == [new, old] and (vault / old).is_file()


def test_a_note_edited_in_the_folder_its_notes_leave_is_refused_not_left_behind(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    (vault / "Medical").mkdir(parents=True)
    (vault / "Medical/scan.pdf").write_bytes(one_page_pdf("Ferritin was low in March."))
    [old] = apply_ingest(vault, plan_ingest(vault, "Medical/scan.pdf", data=None),
                         data=None)["written"]
    with (vault / old).open("a", encoding="utf-8") as note:
        note.write("\nMy own remark.\n")
    (vault / "ora.yaml").write_text("private:\n  - Medical/\n", encoding="utf-8")
    plan = plan_ingest(vault, "Medical/scan.pdf", data=None)
    assert plan.conflicts == [old] and plan.stale == []
    with pytest.raises(Conflict, match="move it there, or away"):
        apply_ingest(vault, plan, data=None)
    assert not (vault / "Medical/scan").exists() and "My own remark" in (vault / old).read_text(
        encoding="utf-8")


def test_a_private_documents_text_never_leaves_its_private_folder_and_undo_restores_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    vault = tmp_path / "vault"
    (vault / "Health").mkdir(parents=True)
    (vault / "ora.yaml").write_text("private:\n  - Health/\n", encoding="utf-8")
    pdf = vault / "Health/bloodwork.pdf"
    pdf.write_bytes(one_page_pdf("Ferritin zqxone was low.", title="zqxtitle labs"))
    note = "Health/bloodwork/bloodwork - page 1.md"
    assert apply_ingest(vault, plan_ingest(vault, "Health/bloodwork.pdf", data=None),
                        data=None)["written"] == [note]
    first = (vault / note).read_text(encoding="utf-8")
    assert "\ntags: [private]\n" in first
    pdf.write_bytes(one_page_pdf("Ferritin zqxtwo is normal again.", title="zqxtitle labs"))
    assert apply_ingest(vault, plan_ingest(vault, "Health/bloodwork.pdf", data=None),
                        data=None)["written"] == [note]
    # Only under Health/ (the journal, in .ora-journal/, names the notes but holds no text).
    assert all(p.startswith("Health/") for p in _holding(vault, "zqx")), _holding(vault, "zqx")
    assert any(p.endswith(".ora-before") for p in _holding(vault, "zqxone"))
    undone = cli(capsys, "ingest", str(vault), "--undo", "--data", str(tmp_path / "data"))
    assert undone["undone"] == [note]
    assert (vault / note).read_text(encoding="utf-8") == first
    assert _holding(vault, "zqx") == ["Health/bloodwork.pdf", note]  # the copy is gone too


def test_a_document_private_by_its_own_name_has_private_notes_in_the_resource_folder(
    tmp_path: Path,
) -> None:
    # `private: [labs.pdf]` covers no folder beside it: its notes go where a public document's
    # go, private by their tag and by the document they name (a tag taken off by hand too).
    from sidecar.vault.note import read_note
    from sidecar.vault.vault_settings import load_vault_settings, note_private

    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "ora.yaml").write_text("private:\n  - labs.pdf\n", encoding="utf-8")
    (vault / "labs.pdf").write_bytes(one_page_pdf("Ferritin was low."))
    [note] = apply_ingest(vault, plan_ingest(vault, "labs.pdf", data=None), data=None)["written"]
    assert note == "Resources/labs/labs - page 1.md"
    path = vault / note
    assert "\ntags: [private]\n" in path.read_text(encoding="utf-8")
    path.write_text(path.read_text(encoding="utf-8").replace("[private]", "[]"), encoding="utf-8")
    assert note_private(read_note(vault, note, 1 << 20), load_vault_settings(vault, data=None))


def test_a_document_of_a_private_folder_stays_private_while_ora_yaml_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A server started while a sync tool saves ora.yaml: the index read its last settings from
    # the data folder; before, ingest read without it and took the document for public.
    from sidecar.documents.ingest import is_private_document
    from sidecar.vault import settings_memory
    from sidecar.vault.vault_settings import load_vault_settings

    monkeypatch.setattr(settings_memory, "_memory", {})
    vault, data = tmp_path / "vault", tmp_path / "data"
    vault.mkdir()
    data.mkdir()
    (data / "ora.yaml.last-good").write_text("private: [Health]\n", encoding="utf-8")
    load_vault_settings(vault, data)
    assert is_private_document(vault, "Health/scan.pdf", data=data)
    monkeypatch.setattr(settings_memory, "_memory", {})  # a process that just started
    assert is_private_document(vault, "Health/scan.pdf", data=data)
