"""`POST /v1/ingest/undo` outside private mode passes over a private document's ingest, as
`/v1/extract/undo` passes over a private extraction: it undoes the latest public ingest, or
answers as when there is nothing to undo, and never tells that a private ingest exists."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from sidecar.settings import Config, make_config

from ..conftest import AppClient
from .make_pdfs import one_page_pdf

PUBLIC, PRIVATE = "Papers/tides.pdf", "Health/labs.pdf"


def _config(vault: Path, data: Path) -> Config:
    models = data.parent / "models"
    return make_config(vault, data, embed_model="int8", models_dir=str(models),
                       cohere_api_key="", reranker_dir=str(models / "none"), llm_url="",
                       scan_delay=-1.0)


async def test_a_non_private_undo_passes_over_a_private_ingest_to_the_public_one_behind_it(
    tmp_path: Path, app_client: Callable[[Config], Awaitable[AppClient]],
) -> None:
    # Before: 400 "a private document: process it in private mode", telling a non-private
    # client a private ingest exists, and the public ingest behind it could not be undone.
    vault = tmp_path / "vault"
    for folder in ("Papers", "Health"):
        (vault / folder).mkdir(parents=True)
    (vault / "ora.yaml").write_text("private:\n  - Health/\n", encoding="utf-8")
    (vault / PUBLIC).write_bytes(one_page_pdf("Tidal pumping moves salt water inland."))
    (vault / PRIVATE).write_bytes(one_page_pdf("Ferritin was low in March."))
    api = await app_client(_config(vault, tmp_path / "data"))
    await api.reconciled()
    status, none_yet = await api.call("POST", "/v1/ingest/undo", {})
    assert status == 404
    status, public = await api.call("POST", "/v1/ingest", {"path": PUBLIC, "apply": True})
    assert status == 200 and public["written"]
    status, private = await api.call("POST", "/v1/ingest",
                                     {"path": PRIVATE, "apply": True, "private": True})
    assert status == 200 and private["written"]

    status, undone = await api.call("POST", "/v1/ingest/undo", {})
    assert status == 200 and undone["document"] == PUBLIC
    assert undone["undone"] == public["written"] and undone["refused"] == []
    assert not (vault / public["written"][0]).exists()
    assert (vault / private["written"][0]).exists()  # the private ingest untouched
    # nothing public left: the answer of a vault with nothing to undo, word for word
    assert await api.call("POST", "/v1/ingest/undo", {}) == (404, none_yet)
    assert "labs" not in str(none_yet) and "private" not in str(none_yet)

    status, undone = await api.call("POST", "/v1/ingest/undo", {"private": True})
    assert status == 200 and undone["document"] == PRIVATE
    assert not (vault / private["written"][0]).exists()
