"""Two documents of one name (`A/x.pdf`, `B/x.pdf`) ingested at once get `x` and `x 2`, as
one after the other: the folder an apply writes to is chosen again under the vault's ingest
lock. Found by a user test: both planned `Resources/x/` before either wrote, and the second
apply was refused, saying a note "was edited since ingest wrote it", which nobody had."""

from __future__ import annotations

from pathlib import Path

from sidecar.documents.ingest import apply_ingest, plan_ingest

from .make_pdfs import one_page_pdf


def test_two_documents_of_one_name_planned_at_once_get_their_own_folders(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    for folder in ("A", "B"):
        (vault / folder).mkdir(parents=True)
        (vault / folder / "x.pdf").write_bytes(one_page_pdf(f"From folder {folder}."))
    first, second = (plan_ingest(vault, f"{f}/x.pdf", data=None) for f in ("A", "B"))
    assert first.folder == second.folder == "Resources/x"  # neither written yet
    assert apply_ingest(vault, first, data=None)["written"] == ["Resources/x/x - page 1.md"]
    assert apply_ingest(vault, second, data=None)["written"] == [
        "Resources/x 2/x 2 - page 1.md"]
    assert "folder B" in (vault / "Resources/x 2/x 2 - page 1.md").read_text(encoding="utf-8")
